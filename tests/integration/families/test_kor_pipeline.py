"""KOR-Bench through the real pipeline (DuckDB, dbt, GX checks) with scripted models of known behaviour.

* ``learner`` (scripted): answers every first question wrongly (a counterfactual one with the
  real-life option, a cipher one with "Hello World", §5's placeholder), then the gold answer once told
  "Your answer is incorrect": accuracy 0 at round 0 and 1 after round 1, real-life rate 1; mixed
  records answered in JSON, right.
* ``stubborn`` (scripted): always the same wrong answer: never corrected, every round asked.
"""

from __future__ import annotations

import json

import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.kor import prompts as kor_prompts
from relreason_dagster.benchmarks.kor.family import MIXED_TASK, item_of
from relreason_dagster.benchmarks.registry import get_family
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import build_only_the_runs_marts, isolated_home, rows, scripted_models_yaml
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

MODELS_YAML = scripted_models_yaml("learner", "stubborn", concurrency=4)
ROUNDS = 2


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("relreason_kor")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, MODELS_YAML)
    build_only_the_runs_marts(mp)  # its tests read KOR's marts, checks and report section
    use_profiles(mp, root / "profiles.yaml", {"smoke": {"kor": {"self_correction_rounds": ROUNDS}}})
    family = get_family("kor")
    profile = profiles.get_profile("smoke", "kor")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    first: dict[str, str] = {}
    corrected: dict[str, str] = {}
    for p in family.build_prompts(samples, profile):
        sample = by_id[p.sample_id]
        text = p.messages[0]["content"]
        corrected[text] = family.render_gold(sample, p.setting)
        if sample.task == MIXED_TASK:
            first[text] = corrected[text]
        elif sample.task == "counterfactual":
            first[text] = f"In the real world it is {item_of(sample).real_life_answer}"
        elif sample.task == "cipher":
            first[text] = "[[HELLO WORLD]]"
        else:
            first[text] = "After careful thought: [[not the answer]]"

    def learner(messages, params):
        original = messages[0]["content"]
        told = messages[-1]["content"] == kor_prompts.FOLLOW_UP
        return corrected[original] if told else first[original]

    register_scripted_provider()
    set_responder("learner", learner)
    set_responder("stubborn", lambda messages, params: "[[no idea]]")
    yield {"n_single": sum(1 for s in samples if s.task != MIXED_TASK), "n_prompts": len(first)}
    mp.undo()


def test_self_correction_rounds_real_life_and_mixed(home):
    from relreason_dagster.pipeline import run_models

    reset_calls()
    report = run_models(["learner", "stubborn"], profile="smoke", benchmarks=["kor"])
    assert report.failures == []
    n = home["n_single"]
    # learner: every single question once, then once more (corrected in round 1); stubborn: all rounds.
    assert call_count("learner") == home["n_prompts"] + n
    assert call_count("stubborn") == home["n_prompts"] + ROUNDS * n
    curve = rows(
        "SELECT model, round, n, accuracy, n_corrected FROM marts.kor_self_correction "
        "WHERE category = 'overall' ORDER BY model, round"
    )
    assert curve == [
        ("learner", 0, n, 0.0, 0),
        ("learner", 1, n, 1.0, n),
        ("stubborn", 0, n, 0.0, 0),
        ("stubborn", 1, n, 0.0, 0),
        ("stubborn", 2, n, 0.0, 0),
    ]
    # "Still wrong" is the paper's judgement; the robust verdict of every round is kept beside it.
    robust = rows(
        "SELECT model, round, robust_accuracy FROM marts.kor_self_correction "
        "WHERE category = 'overall' ORDER BY model, round"
    )
    assert robust == [("learner", 0, 0.0), ("learner", 1, 1.0)] + [("stubborn", k, 0.0) for k in range(3)]
    # Each round links to the one before it; round-k prompts carry the whole conversation.
    links = rows(
        "SELECT r.round, r.parent_prompt_id = prev.prompt_id, r.history, p.messages "
        "FROM raw.kor_rounds r JOIN raw.kor_rounds prev "
        "ON prev.model = r.model AND prev.sample_id = r.sample_id AND prev.round = r.round - 1 "
        "JOIN raw.prompts p ON p.prompt_id = r.prompt_id WHERE r.model = 'stubborn' AND r.round = 2"
    )
    assert len(links) == n
    for _, linked, history, messages in links:
        turns = json.loads(messages)
        assert linked and history == "full"
        assert [t["role"] for t in turns] == ["user", "assistant", "user", "assistant", "user"]
        assert turns[-1]["content"] == kor_prompts.FOLLOW_UP
    cf = rows("SELECT model, accuracy, real_life_rate FROM marts.kor_counterfactual ORDER BY model")
    assert cf == [("learner", 0.0, 1.0), ("stubborn", 0.0, 0.0)]
    mixed = rows("SELECT model, setting, accuracy, pass_rate FROM marts.kor_mixed ORDER BY model")
    assert mixed == [("learner", "Multi-Q", 1.0, 1.0), ("stubborn", "Multi-Q", 0.0, 0.0)]
    by_rule = rows("SELECT count(*), list(DISTINCT answer_format) FROM marts.kor_accuracy_by_rule")
    assert by_rule[0][0] == 2 * n and set(by_rule[0][1]) <= {"NR", "ME", "TR", "MC", "SD"}
    # Self-correction prompts are model-specific follow-ups (kind self_correction): stored with the KOR
    # prompts, but out of the benchmark prompt views, and never parsed as answers of a setting.
    kinds = rows("SELECT kind, count(*) FROM raw.prompts GROUP BY kind ORDER BY kind")
    assert kinds == [("self_correction", n + ROUNDS * n), ("test", home["n_prompts"])]
    assert rows(
        "SELECT count(*) FROM staging.stg_prompts JOIN raw.prompts p USING (prompt_id) WHERE p.kind <> 'test'"
    ) == [(0,)]
    assert rows("SELECT DISTINCT setting FROM raw.parsed_answers WHERE setting LIKE 'round%'") == []
    checks = {name: passed for name, passed, _ in report.checks}
    assert checks["kor_gold_self_check"] is True
    assert checks["kor_item_counts_check"] is True
    assert checks["kor_answer_formats_check"] is True


def test_section5_marts_and_the_real_life_figure(home, tmp_path):
    """KOR §5 (issue 57, acceptance 4): the response-style, Operation-direction, Cipher-error and
    real-life marts hold the scripted models' answers beside Table 2's printed models, and report.html
    shows the real-life figure.  The smoke profile reads no released files (the kor_released step runs
    and stores nothing; tests/unit/kor/test_kor_section5.py reads them), so no row is 'released'."""
    import duckdb

    from relreason_dagster import paths
    from relreason_dagster.results.report import build_report

    n = home["n_single"]
    style = rows(
        "SELECT model, n, n_reasoning, n_answer_only, n_placeholder FROM marts.kor_response_style "
        "WHERE NOT released AND category = 'overall' ORDER BY model"
    )
    assert style == [("learner", n, 0, n - 1, 1), ("stubborn", n, 0, n, 0)]
    direction = rows("SELECT model, n, accuracy FROM marts.kor_operation_direction WHERE NOT released")
    assert sorted(direction) == [("learner", 1, 0.0), ("stubborn", 1, 0.0)]
    errors = rows(
        "SELECT model, error_type, n_wrong FROM marts.kor_cipher_errors WHERE NOT released ORDER BY model"
    )
    assert [(m, e) for m, e, _ in errors if m == "learner"] == [("learner", "placeholder")]
    assert [w for *_, w in errors] == [1, 1]
    real_life = rows("SELECT origin, count(*) FROM marts.kor_real_life_vs_accuracy GROUP BY origin")
    assert dict(real_life) == {"Table 2": 62, "relreason": 2}
    ours = rows(
        "SELECT model, accuracy, real_life_rate FROM marts.kor_real_life_vs_accuracy "
        "WHERE origin = 'relreason'"
    )
    assert sorted(ours) == [("learner", 0.0, 1.0), ("stubborn", 0.0, 0.0)]
    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        summary = build_report(con, tmp_path / "report")
    finally:
        con.close()
    page = summary.path.read_text()
    assert 'data-figure="kor_real_life"' in page
    assert rows("SELECT count(*) FROM raw.kor_released") == [(0,)]
    assert (tmp_path / "report" / "kor_real_life.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_rerun_reuses_every_round(home):
    from relreason_dagster.pipeline import run_models

    reset_calls()
    report = run_models(["learner", "stubborn"], profile="smoke", benchmarks=["kor"], run_dbt=False)
    assert report.failures == []
    assert call_count("learner") == 0 and call_count("stubborn") == 0
    assert rows("SELECT count(*) FROM raw.kor_rounds WHERE model = 'stubborn'") == [
        ((ROUNDS + 1) * home["n_single"],)
    ]
