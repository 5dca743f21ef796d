"""The typed response row is the lake's row: same columns, same order, and a tuple the store takes as is."""

from __future__ import annotations

from datetime import datetime

from relreason_dagster.llm.draw_plan import Work
from relreason_dagster.llm.replies import Outcome
from relreason_dagster.llm.response_row import OutcomeRows, ResponseRow, copied_row
from relreason_dagster.storage.responses import COLUMNS


def test_the_row_names_the_lake_columns_in_order():
    assert ResponseRow._fields == COLUMNS


def test_one_request_answering_two_prompt_ids_costs_once_and_redacts_every_text():
    rows: list[ResponseRow] = []
    maker = OutcomeRows(
        "m", "openai/x", lambda t: None if t is None else t.replace("sk-1", "[k]"), rows.append, "?"
    )
    outcome = Outcome(
        "a sk-1", "stop", 3, 2, 0.5, 1, None, reasoning="r sk-1", reasoning_tokens=1, cost_usd=0.2
    )
    created = datetime(2026, 1, 1)
    maker.store(Work("h", [], {}, ["p1", "p2"], sample_index=3), outcome, {"p1": "kor"}, created)
    assert [(r.prompt_id, r.benchmark, r.from_cache, r.cost_usd) for r in rows] == [
        ("p1", "kor", False, 0.2),
        ("p2", "?", True, 0.0),
    ]
    assert {r.content for r in rows} == {"a [k]"} and {r.reasoning for r in rows} == {"r [k]"}
    assert {(r.sample_index, r.request_hash, r.sanitized) for r in rows} == {(3, "h", False)}


def test_a_cache_copy_made_no_attempt_and_costs_nothing():
    hit = {
        "litellm_model": "openai/x",
        "content": "a",
        "finish_reason": "stop",
        "prompt_tokens": 1,
        "completion_tokens": 1,
        "latency_s": 0.1,
        "sanitized": True,
        "cost_usd": 0.3,
    }
    row = copied_row("p", "h", hit, model="m2", benchmark="kor", created=datetime(2026, 1, 1))
    assert (row.model, row.attempts, row.error, row.from_cache, row.sanitized, row.cost_usd) == (
        "m2",
        0,
        None,
        True,
        True,
        0.0,
    )
    assert row.sample_index == 0 and row.reasoning is None
