"""FLenQA's ``paper`` profile through the real pipeline, against a fake OpenAI server.

The model is a fake OpenAI-compatible server (named as such: a scripted stand-in for a provider)
whose models.yaml entry has its own sampling settings (temperature 0.7, top-p 0.9).  The profile
extends ``paper`` with fewer base instances and lengths (the paper grid's 36,600 reasoning prompts
would take an hour to count and ask; ``tests/unit/flenqa/test_flenqa_figures_marts.py`` checks the marts'
pooling at the paper's full size, 600/300/600/300 per point), and keeps everything else of it: its
paddings, positions and its ``generation`` knob.  So:

- every FLenQA request the server sees carries the study's temperature 0 and top-p 0 (Appendix E),
  over the model's own settings; a profile stating other params asks again (they are in the key);
- each figure mart pools the study's share of the grid: Figure 1 and 4 two paddings x three tasks
  per point, Figures 3 and 5 three tasks (x ``n_base``: 600/300/600/300 at the paper's 100);
- §7's dependence tests have their ``p_value``: the server answers some CoT prompts wrongly,
  answer first, without the key sentences, so both factors go with incorrect answers.
"""

from __future__ import annotations

import hashlib

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import get_family
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline_home import build_only_the_runs_marts, isolated_home, rows
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

MODEL = "fake-paper"
PROFILE = "flenqa-paper-mini"
OTHER = "flenqa-paper-mini-warm"
N_BASE = 2
FLENQA = {"n_base": N_BASE, "lengths": [250, 500], "settings": ["direct", "cot"]}
# Ignored in the study's name: what the server's log must not show under the paper profile.
MODEL_PARAMS = {"temperature": 0.7, "top_p": 0.9}
KEY_ENV = "RELREASON_FAKE_KEY"


def _models_yaml(api_base: str) -> str:
    return f"""\
models:
  - name: {MODEL}
    litellm_model: openai/fake-flenqa
    api_base: {api_base}
    api_key_env: {KEY_ENV}
    params: {{temperature: {MODEL_PARAMS["temperature"]}, top_p: {MODEL_PARAMS["top_p"]}}}
    concurrency: 8
    timeout_s: 600
    max_attempts: 2
"""


def _answer_first_wrong(text: str) -> str:
    """A CoT reply that gives the wrong verdict first and never quotes a key sentence."""
    return (
        f"{text}. I answer at once and explain afterwards: the passage talks about many people and places, "
        "and after reading it through I am settled on that."
    )


def _responder(samples_by_text: dict[str, tuple[str, str]]):
    def respond(messages):
        content = messages[-1]["content"]
        setting, gold = samples_by_text[content]
        if setting == "cot" and int(hashlib.sha256(content.encode()).hexdigest(), 16) % 3 == 0:
            return _answer_first_wrong("False" if gold.rstrip(".").endswith("True") else "True")
        return gold

    return respond


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("flenqa_paper")
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, "sk-fake")
    written = {
        PROFILE: {"extends": "paper", "relational": None, "selfcontra": None, "kor": None, "flenqa": FLENQA},
        OTHER: {"extends": PROFILE, "flenqa": {"generation": {"temperature": 0.0}}},
    }
    use_profiles(mp, root / "profiles.yaml", written)
    family = get_family("flenqa")
    profile = profiles.get_profile(PROFILE, "flenqa")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    built = family.build_prompts(samples, profile)
    by_text = {
        p.messages[-1]["content"]: (p.setting, family.render_gold(by_id[p.sample_id], p.setting))
        for p in built
    }
    with FakeOpenAIServer(responder=_responder(by_text)) as server:
        isolated_home(mp, root, _models_yaml(server.api_base))
        build_only_the_runs_marts(mp)  # its tests read FLenQA's marts and figures
        from relreason_dagster.pipeline import run_models

        report = run_models([MODEL], profile=PROFILE, benchmarks=["flenqa"])
        paper_requests = server.entries()
        server.reset_log()
        errors = rows("SELECT count(*) FROM raw.responses WHERE error IS NOT NULL")
        # The marts stay the paper run's: the second run only shows what it asks.
        other = run_models([MODEL], profile=OTHER, benchmarks=["flenqa"], run_dbt=False)
        other_requests = server.entries()
    assert report.failures == [], report.failures
    assert other.failures == [], other.failures
    assert errors == [(0,)]
    yield {"paper": paper_requests, "other": other_requests, "n_requests": len(by_text)}
    mp.undo()


def test_paper_profile_requests_carry_the_studys_temperature_and_top_p(home):
    requests = home["paper"]
    assert len(requests) == home["n_requests"]  # one call per distinct prompt text, nothing else
    assert {(e.params.get("temperature"), e.params.get("top_p")) for e in requests} == {(0, 0)}
    assert all(e.status == 200 for e in requests)


def test_other_generation_params_are_another_request(home):
    """Same prompts, other stated params: not a cache hit; the model's own top-p shows again."""
    requests = home["other"]
    assert len(requests) == home["n_requests"]
    assert {(e.params.get("temperature"), e.params.get("top_p")) for e in requests} == {
        (0, MODEL_PARAMS["top_p"])
    }


@pytest.mark.parametrize(
    ("mart", "per_point", "groups"),
    [
        ("flenqa_figure1", 3 * 2, 1),  # three tasks x similar and different padding, random placement
        ("flenqa_figure3", 3, 1),  # three tasks, duplicate padding
        ("flenqa_figure4", 3 * 2, 3),  # three tasks x two paddings, per position first/middle/last
        ("flenqa_figure5", 3, 2),  # three tasks, per padding similar/different
    ],
)
def test_each_figure_mart_pools_the_studys_share_of_the_grid(home, mart, per_point, groups):
    found = rows(f"SELECT n, count(*) FROM marts.{mart} WHERE model = '{MODEL}' GROUP BY n")
    points = 2 * len(FLENQA["lengths"]) * groups  # direct and cot x lengths x the figure's lines
    assert found == [(per_point * N_BASE, points)]  # at the paper's n_base 100: 600 / 300 / 600 / 300


def test_the_dependence_tests_have_p_values(home):
    found = rows(
        "SELECT factor, count(*), count(p_value), max(p_value) FROM marts.flenqa_cot_dependence "
        f"WHERE model = '{MODEL}' AND length > 0 GROUP BY factor ORDER BY factor"
    )
    assert [f[0] for f in found] == ["answer_first", "incomplete_coverage"]
    for _factor, n_rows, n_tested, largest in found:
        assert n_rows == len(FLENQA["lengths"]) and n_tested == n_rows
        assert 0 <= largest <= 1
    # The scripted wrong answers are exactly the answer-first ones: the test must see it.
    wrong_first = rows(
        "SELECT min(wrong_rate_exposed), max(wrong_rate_unexposed) FROM marts.flenqa_cot_dependence "
        f"WHERE model = '{MODEL}' AND factor = 'answer_first'"
    )
    assert wrong_first == [(1.0, 0.0)]


def test_the_run_draws_the_studys_figures(home):
    """Figures 1, 3, 4, 5 and 7, each a PNG of the run's home (what the report embeds)."""
    for name in ("flenqa_figure1", "flenqa_figure3", "flenqa_figure4", "flenqa_figure5", "flenqa_label_bias"):
        plot = paths.relreason_home() / "plots" / f"{name}.png"
        assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
