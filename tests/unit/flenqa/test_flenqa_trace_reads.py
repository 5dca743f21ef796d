"""FLenQA's trace reads on hand-made responses: which sources a knob gives, what each source reads,
and the reasoning figure with and without traces."""

from __future__ import annotations

import json

import pytest

from relreason_dagster.benchmarks.base import Sample
from relreason_dagster.benchmarks.flenqa import report, steps, trace_reads
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.flenqa.plot import pool_reasoning_rows
from relreason_dagster.results.figures import render_rows

KEYS = ["Alice is in the kitchen.", "The kitchen is north of the hall."]
TRACE = "False. Let me check this properly: " + " ".join(KEYS) + " so Alice is north of the hall after all."


def _response(prompt_id: str, content: str, reasoning: str | None) -> dict:
    return {
        "prompt_id": prompt_id,
        "setting": "cot",
        "content": content,
        "reasoning": reasoning,
        "input": json.dumps({"key_sentences": KEYS}),
    }


@pytest.mark.parametrize(
    ("knob", "traced", "sources"),
    [
        ("auto", True, {"answer", "trace"}),
        ("auto", False, {"answer"}),
        ("both", False, {"answer", "trace"}),
        ("trace", True, {"trace"}),
        ("answer", True, {"answer"}),
    ],
)
def test_the_knob_gives_each_response_one_row_per_source(knob, traced, sources):
    responses = [
        _response("p1", "So the answer is True.", TRACE if traced else None),
        _response("p2", "So the answer is True.", None),
    ]
    rows = steps.read_rows(responses, knob, "m")
    assert {(r["prompt_id"], r["source"]) for r in rows} == {(p, s) for p in ("p1", "p2") for s in sources}


def test_the_trace_is_read_where_the_answer_shows_nothing_and_a_missing_trace_reads_as_empty():
    responses = [_response("p1", "So the answer is True.", TRACE), _response("p2", " ".join(KEYS), None)]
    got = {(r["prompt_id"], r["source"]): r for r in steps.read_rows(responses, "both", "m")}
    assert (got["p1", "trace"]["answer_first"], got["p1", "trace"]["keys_covered"]) == (True, 2)
    assert (got["p1", "answer"]["answer_first"], got["p1", "answer"]["keys_covered"]) == (False, 0)
    # No trace: nothing found in it, and never the answer's two key sentences in its place.
    assert (got["p2", "trace"]["answer_first"], got["p2", "trace"]["keys_covered"]) == (False, 0)
    assert got["p2", "answer"]["keys_covered"] == 2


def test_an_answer_row_reads_what_the_parser_put_in_the_answers_detail():
    sample = Sample(
        sample_id="s", benchmark="flenqa", task="pir", split="test", n=1, variant={},
        input={"key_sentences": KEYS, "question": "q"}, gold=None, label=True, seed=0, generator_version="x",
    )  # fmt: skip
    content = (
        "True. " + " ".join(KEYS) + " and so on for many more words of reasoning after the verdict here."
    )
    detail = FlenqaFamily().parse(sample, "cot", content).detail
    read = trace_reads.cot_reads("answer", content, TRACE, KEYS)
    assert read == {
        "answer_first": detail["answer_first"],
        "keys_covered": detail["keys_covered"],
        "reading": detail["reading"],
    }


def _cell(padding: str, length: int, mean: float, n_correct: int, n: int = 4) -> dict:
    return {
        "model": "thinker",
        "setting": "cot",
        "task": "pir",
        "length": length,
        "padding": padding,
        "position": "none" if padding == "none" else "random",
        "n": n,
        "n_with_trace": n,
        "mean_reasoning_tokens": mean,
        "n_correct": n_correct,
    }


def test_the_figure_pools_tasks_and_starts_every_padding_at_the_minimal_text():
    rows = [_cell("none", 0, 10, 4), _cell("similar", 250, 20, 2), _cell("different", 250, 30, 1)]
    rows.append({**_cell("similar", 250, 40, 4), "task": "monorel"})
    pooled = pool_reasoning_rows(rows)
    assert set(pooled) == {("similar", "thinker", "cot"), ("different", "thinker", "cot")}
    assert pooled["similar", "thinker", "cot"][0] == {"mean_tokens": 10, "accuracy": 1.0}
    assert pooled["similar", "thinker", "cot"][250] == {"mean_tokens": 30, "accuracy": 0.75}


def test_the_trace_figure_draws_no_traces_and_traces():
    (spec,) = report.TRACE_FIGURES
    assert spec.marts == ("marts.flenqa_reasoning_length",)
    assert spec not in report.FIGURES  # the "Reasoning traces" section collects it, not FLenQA's own
    empty = render_rows(spec, {})
    drawn = render_rows(
        spec, {"marts.flenqa_reasoning_length": [_cell("none", 0, 10, 4), _cell("similar", 250, 20, 2)]}
    )
    assert empty[:4] == drawn[:4] == b"\x89PNG" and empty != drawn
    fig = report.draw_reasoning_length({"marts.flenqa_reasoning_length": []})
    assert any("No reasoning traces" in t.get_text() for ax in fig.axes for t in ax.texts)
