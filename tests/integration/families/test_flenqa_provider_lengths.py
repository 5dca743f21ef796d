"""Lengths as the provider counts them: FLenQA smoke against a provider whose tokenizer is 1.3x coarser
(issue 56, acceptance 3).

The provider is the fake OpenAI server with a *scripted* ``prompt_tokens`` (``scaled_prompt_tokens(1.3)``:
1.3 x relreason's own count of each prompt, rounded; a script, not a tokenizer).  Two entries ask it:
``coarse`` names its own tokenizer (``tiktoken:o200k_base``, data installed with LiteLLM), ``plain``
names none.  One launch (``run_pipeline``, as `relreason run` calls it) and its dbt build; then
``marts.flenqa_provider_lengths`` is checked per model and length against numbers computed here from
raw.prompts and the script's rule (never typed), the own-tokenizer counts against tiktoken called
directly, and the FLenQA figure drawn against the provider-counted length is checked to put its points
at those x values (and the default figure at the target's slots).  `relreason report --flenqa-length
provider` writes the report.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, scaled_prompt_tokens
from tests.pipeline_home import isolated_home, rows

# The module's home is one launch of FLenQA smoke (two models, 96 answers from the local fake, 72 calls)
# and its dbt build: ~115 s of CPU, 370-560 s of wall time on 2 cores shared with five other test runs
# (the dbt build alone 200 s); 1200 s, as the budget sweep's whole-run test, keeps an idle run within a
# fifth (tests/timeout_budget.py).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]

KEY_ENV = "RELREASON_TEST_PROVIDER_LENGTHS_KEY"
FACTOR = 1.3
OWN = "tiktoken:o200k_base"


def _models_yaml(api_base: str) -> str:
    entry = (
        "  - name: {name}\n"
        "    litellm_model: openai/{served}\n"
        "    params: {{temperature: 0}}\n"
        f"    api_base: {api_base}\n"
        f"    api_key_env: {KEY_ENV}\n"
        "    concurrency: 8\n"
    )
    return (
        "models:\n"
        + entry.format(name="coarse", served="fake-coarse")
        + f"    tokenizer: {OWN}\n"
        + entry.format(name="plain", served="fake-plain")
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Any:
    from relreason_dagster.pipeline import run_models

    root = tmp_path_factory.mktemp("provider_lengths")
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, "sk-fake-provider-lengths")
    try:
        with FakeOpenAIServer(prompt_tokens=scaled_prompt_tokens(FACTOR)) as server:
            isolated_home(mp, root, _models_yaml(server.api_base))
            run_models(["coarse", "plain"], profile="smoke", benchmarks=["flenqa"])
            calls = len(server.entries())
        yield {"root": root, "calls": calls}
    finally:
        mp.undo()


def _own_count(messages: list[dict[str, Any]]) -> int:
    """The prompt in o200k_base as OpenAI's cookbook counts a chat: contents + 3 a message + 3."""
    # Sets TIKTOKEN_CACHE_DIR to the encodings LiteLLM ships (no download).
    import litellm.litellm_core_utils.default_encoding  # noqa: F401
    import tiktoken

    encoding = tiktoken.get_encoding("o200k_base")
    return sum(len(encoding.encode(m["content"], disallowed_special=())) + 3 for m in messages) + 3


def _expected() -> dict[tuple[str, int], dict[str, Any]]:
    """Per (model, length): the script's prompt_tokens and relreason's counts of the asked prompts."""
    asked = rows(
        "SELECT r.model, coalesce(json_extract(s.variant, '$.length')::integer, 0), p.input_tokens,"
        " p.messages"
        " FROM raw.responses r JOIN raw.prompts p USING (prompt_id) JOIN raw.samples s USING (sample_id)"
        " WHERE p.benchmark = 'flenqa' AND p.kind = 'test' AND r.error IS NULL"
    )
    cells: dict[tuple[str, int], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for model, length, tokens, messages in asked:
        cell = cells[(model, length)]
        cell["provider"].append(int(FACTOR * tokens + 0.5))
        cell["relreason"].append(tokens)
        if model == "coarse":
            cell["own"].append(_own_count(json.loads(messages)))
    return {key: dict(cell) for key, cell in cells.items()}


def test_the_mart_shows_the_provider_count_per_model_and_length(home):
    expected = _expected()
    assert {length for _, length in expected} == {0, 250, 1000}  # smoke: the minimal text and two targets
    got = rows(
        "SELECT model, length, n, n_counted, mean_provider_tokens, min_provider_tokens, max_provider_tokens,"
        " sd_provider_tokens, mean_relreason_tokens, own_tokenizer, mean_own_tokens, provider_to_target,"
        " provider_to_relreason, provider_to_own FROM marts.flenqa_provider_lengths ORDER BY ALL"
    )
    assert {(m, n) for m, n, *_ in got} == set(expected)
    # Every answered request is in one cell (a text asked twice is one call: its copy reports the same count).
    answered = sum(len(c["provider"]) for c in expected.values())
    assert sum(n for _, _, n, *_ in got) == answered >= home["calls"]
    for model, length, n, counted, mean, low, high, sd, ours, own_tok, own, to_target, to_ours, to_own in got:
        cell = expected[(model, length)]
        provider = cell["provider"]
        assert n == counted == len(provider)
        assert mean == pytest.approx(statistics.mean(provider), abs=0.006)
        assert (low, high) == (min(provider), max(provider))
        assert sd == pytest.approx(statistics.stdev(provider), abs=0.006)
        assert ours == pytest.approx(statistics.mean(cell["relreason"]), abs=0.006)
        # The script's factor, seen through the mart: 1.3 x relreason's count, up to rounding each prompt.
        assert to_ours == pytest.approx(FACTOR, abs=0.005)
        assert to_target == (None if length == 0 else pytest.approx(mean / length, abs=1e-4))
        if model == "coarse":
            assert own_tok == OWN
            assert own == pytest.approx(statistics.mean(cell["own"]), abs=0.006)
            assert to_own == pytest.approx(mean / own, abs=1e-4)
        else:
            assert (own_tok, own, to_own) == (None, None, None)
    counted = rows("SELECT model, tokenizer, count(*) FROM raw.prompt_tokens GROUP BY ALL")
    (n_prompts,) = rows("SELECT count(*) FROM raw.prompts WHERE benchmark = 'flenqa' AND kind = 'test'")[0]
    assert counted == [("coarse", OWN, n_prompts)]  # only the entry naming a tokenizer is counted in it


def _lines(fig: Any) -> dict[str, list[float]]:
    """The x data of every labelled line of the figure's accuracy panels, by label (``model · setting``)."""
    out: dict[str, list[float]] = {}
    for ax in fig.axes:
        if ax.get_ylabel() != "accuracy":
            continue
        for line in ax.get_lines():
            if not line.get_label().startswith("_"):
                out.setdefault(f"{ax.get_title()}|{line.get_label()}", [float(x) for x in line.get_xdata()])
    return out


def test_the_figure_drawn_against_provider_length_uses_those_x_values(home, tmp_path):
    from relreason_dagster.benchmarks.flenqa import report as flenqa_report
    from relreason_dagster.benchmarks.plotting import plt
    from relreason_dagster.results.figures import read_marts
    from relreason_dagster.results.readonly import open_results

    spec = next(f for f in flenqa_report.FIGURES if f.name == "flenqa_accuracy_vs_provider_length")
    con = open_results()
    try:
        by_mart = read_marts(con, (*spec.marts, *spec.axis_marts))
    finally:
        con.close()
    provider_rows = by_mart["marts.flenqa_provider_lengths"]
    means = {(r["model"], int(r["length"])): float(r["mean_provider_tokens"]) for r in provider_rows}
    lengths = sorted({int(r["length"]) for r in by_mart["marts.flenqa_accuracy_by_length"]})

    provider_fig = spec.draw(by_mart)
    target_fig = flenqa_report.draw_flenqa(by_mart)  # the default axis: the target
    try:
        provider_lines, target_lines = _lines(provider_fig), _lines(target_fig)
    finally:
        plt().close(provider_fig)
        plt().close(target_fig)
    assert provider_lines and provider_lines.keys() == target_lines.keys()
    for label, xs in provider_lines.items():
        model = label.split("|")[1].split(" · ")[0]
        assert xs == [means[(model, length)] for length in lengths]
        assert target_lines[label] == [float(i) for i in range(len(lengths))]

    from relreason_dagster.cli import main

    out = tmp_path / "report"
    try:
        assert main(["report", "--out", str(out), "--max-samples", "1", "--flenqa-length", "provider"]) == 0
        assert flenqa_report.length_axis() == "provider"
    finally:
        flenqa_report.set_length_axis("target")  # the process-wide axis back to its default
    assert (out / "flenqa_figure1.png").stat().st_size > 0
    assert (out / "flenqa_accuracy_vs_provider_length.png").stat().st_size > 0
