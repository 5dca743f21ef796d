"""Two reasoning models, three draws each, on FLenQA's smoke profile: the pipeline end to end.

The models are a fake OpenAI-compatible server (a scripted stand-in for a provider, named as such):
``fake-o`` hands its thinking over in ``reasoning_content`` with a reasoning-token count, ``fake-r1``
inlines it as ``<think>…</think>`` before the answer.  Both are at temperature 0.7 and run through the
CLI with ``--samples 3``.  The server's answers vary by draw (the first ask of a prompt text is right,
later ones alternate), so pass@k, maj@k and the models' paired comparison have something to measure;
the thinking names "true" and "false", so a parser that read it would be caught.
"""

from __future__ import annotations

from collections import Counter

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import get_family
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline_home import isolated_home, rows

pytestmark = pytest.mark.integration

MODELS = {"reasoner-field": "fake-o", "reasoner-tags": "fake-r1"}
KEY_ENV = "RELREASON_FAKE_KEY"
K = 3


def _models_yaml(api_base: str) -> str:
    return "models:\n" + "".join(
        f"""\
  - name: {name}
    litellm_model: openai/{served}
    api_base: {api_base}
    api_key_env: {KEY_ENV}
    params: {{temperature: 0.7}}
    concurrency: 4
    max_attempts: 2
"""
        for name, served in MODELS.items()
    )


def _responder(gold_by_text: dict[str, str]):
    asked: Counter[str] = Counter()

    def respond(messages):
        content = messages[-1]["content"]
        asked[content] += 1
        gold = gold_by_text.get(content, "True")
        if asked[content] % 2 == 1:
            return gold
        return "False" if "True" in gold else "True"

    return respond


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("reasoning_samples")
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, "sk-fake")
    family = get_family("flenqa")
    profile = profiles.get_profile("smoke", "flenqa")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    prompts = family.build_prompts(samples, profile)
    gold = {p.messages[-1]["content"]: family.render_gold(by_id[p.sample_id], p.setting) for p in prompts}
    reasoning = dict(zip(MODELS.values(), ("field", "think_tags"), strict=True))
    with FakeOpenAIServer(responder=_responder(gold), reasoning=reasoning) as server:
        isolated_home(mp, root, _models_yaml(server.api_base))
        from relreason_dagster.cli import main

        argv = ["run", "--profile", "smoke", "--benchmark", "flenqa", "--samples", str(K)]
        for name in MODELS:
            argv += ["--model", name]
        status = main(argv)
        log = server.entries()
    assert status == 0
    yield {"log": log, "n_texts": len(gold)}
    mp.undo()


def test_three_rows_and_three_distinct_calls_per_prompt_and_model(home):
    per_prompt = rows(
        "SELECT model, prompt_id, count(*), count(DISTINCT request_hash) FROM raw.response_draws GROUP BY ALL"
    )
    assert {(n, distinct) for _, _, n, distinct in per_prompt} == {(K, K)}
    assert {m for m, *_ in per_prompt} == set(MODELS)
    # In the server's log: every prompt text asked K times by each model (identical texts share a call).
    calls = Counter((e.model, e.key) for e in home["log"] if e.status == 200)
    assert set(calls.values()) == {K}
    assert len(calls) == len(MODELS) * home["n_texts"]
    assert {e.params.get("temperature") for e in home["log"]} == {0.7}


def test_reasoning_is_kept_apart_from_the_answer(home):
    got = rows(
        "SELECT model, count(*), count(*) FILTER (WHERE coalesce(reasoning, '') = ''),"
        " count(*) FILTER (WHERE content LIKE '%<think>%' OR content LIKE '%</think>%'),"
        " min(reasoning_tokens) FROM raw.response_draws WHERE error IS NULL GROUP BY model ORDER BY model"
    )
    by_model = {model: rest for model, *rest in got}
    assert set(by_model) == set(MODELS)
    for model, (n, empty, tagged, min_tokens) in by_model.items():
        assert n > 0 and empty == 0 and tagged == 0, model
        if model == "reasoner-field":
            assert min_tokens is not None and min_tokens > 0
    # The parser read the answer, not the thinking (which names both verdicts, so read it would be
    # unreadable or a coin flip): every direct answer parses, as exactly the verdict the answer gives.
    direct = rows(
        "SELECT response, parsed::VARCHAR, parse_status FROM marts.sample_results WHERE setting = 'direct'"
    )
    assert direct and all(s == "ok" and p.strip('"') == r.lower() for r, p, s in direct), direct[:3]


def test_sampling_and_paired_marts(home):
    cells = rows("SELECT model, k, pass_at_1, pass_at_k, maj_at_k, ci_low, ci_high FROM marts.pass_at_k")
    assert cells and {k for _, k, *_ in cells} == {K}
    for _model, _k, p1, pk, maj, low, high in cells:
        assert 0 <= p1 <= pk <= 1 and 0 <= maj <= 1 and low <= p1 <= high
    pairs = rows("SELECT model_a, model_b, n, p_value, p_holm FROM marts.paired_comparisons")
    assert pairs and {(a, b) for a, b, *_ in pairs} == {tuple(sorted(MODELS))}
    assert all(n > 0 and 0 <= p <= holm <= 1 for _, _, n, p, holm in pairs)


def test_report_and_samples_show_the_reasoning_collapsed_and_the_a_vs_b_section(home, tmp_path):
    import duckdb

    from relreason_dagster.results.report import build_report
    from relreason_dagster.results.samples import format_sample, sample_rows

    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        page = build_report(con, tmp_path).path.read_text(encoding="utf-8")
        shown = [format_sample(r) for r in sample_rows(con, model="reasoner-tags", limit=2)]
    finally:
        con.close()
    assert '<section id="a-vs-b"><h2>A vs B</h2>' in page and "reasoner-field</b> vs <b>reasoner-tags" in page
    assert '<section id="sampling">' in page
    assert "<details><summary>reasoning (" in page
    assert shown and all("--- reasoning (" in text and "<think>" not in text for text in shown)


def test_flenqa_reasoning_tokens_say_where_their_count_comes_from(home):
    """The provider's count where the reply carries one (``fake-o``), the trace counted with the
    profile's tokenizer where it does not (``fake-r1``'s inline block); every answer has a trace."""
    got = rows(
        "SELECT model, reasoning_tokens_source, sum(n), sum(n_with_trace), min(mean_reasoning_tokens) > 0"
        " FROM marts.flenqa_reasoning_length GROUP BY ALL ORDER BY model"
    )
    answers = rows(
        "SELECT model, count(*) FROM intermediate.int_flenqa_answers WHERE setting IN ('direct', 'cot')"
        " GROUP BY model ORDER BY model"
    )
    assert [(m, n, n, True) for m, n in answers] == [(m, n, t, pos) for m, _, n, t, pos in got]
    assert [(m, s) for m, s, *_ in got] == [("reasoner-field", "provider"), ("reasoner-tags", "tokenizer")]
