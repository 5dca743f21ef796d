"""``stg_parsed_answers`` reads each registered baseline's source, and only that baseline's rows of it.

The model's Jinja is rendered here with plain jinja2 (it uses nothing of dbt's but ``source()`` and the
generated ``registered_baselines()``) and run on a hand-made ``raw`` schema: no dbt process, so the
three lists of baselines (none, one, two sharing ``raw.parsed_answers``) cost milliseconds.
"""

from __future__ import annotations

from typing import Any

import duckdb
import jinja2
import pytest

from relreason_dagster import paths
from relreason_dagster.storage.schema import ensure_schema
from tests.dbt_home import dicts, insert

STAGING = paths.DBT_PROJECT_DIR / "models" / "staging" / "stg_parsed_answers.sql"


def _answer(prompt_id: str, model: str, sample_id: str) -> dict[str, Any]:
    return {
        "prompt_id": prompt_id,
        "model": model,
        "sample_id": sample_id,
        "benchmark": "fam",
        "task": "t",
        "split": "test",
        "setting": "s",
        "parse_status": "ok",
        "parsed": "[]",
        "tp": 1,
        "fp": 0,
        "fn": 0,
        "pred_pos": 1,
        "n_cells": 1,
        "correct": True,
        "detail": "{}",
    }


@pytest.fixture(scope="module")
def con():
    con = duckdb.connect()
    ensure_schema(con)
    insert(con, "samples", {"sample_id": "x", "benchmark": "fam", "task": "t", "split": "test"})
    insert(
        con,
        "prompts",
        {
            "prompt_id": "p",
            "sample_id": "x",
            "benchmark": "fam",
            "task": "t",
            "split": "test",
            "setting": "s",
            "messages": "[]",
            "kind": "test",
        },
    )
    insert(
        con,
        "parsed_answers",
        [_answer("p", "llm", "x"), _answer("b1", "base1", "x"), _answer("b2", "base2", "x")],
    )
    yield con
    con.close()


def _staged(con: duckdb.DuckDBPyConnection, baselines: list[dict[str, str]] | None) -> list[dict[str, Any]]:
    """The model's rows with ``baselines`` as the generated macro's list (None: no macro at all)."""
    identifiers = {b["source"]: "parsed_answers" for b in baselines or []}
    context: dict[str, Any] = {"source": lambda _, table: f"raw.{identifiers.get(table, table)}"}
    if baselines is not None:
        context["registered_baselines"] = lambda: baselines
    sql = jinja2.Environment().from_string(STAGING.read_text()).render(**context)
    return dicts(con, f"SELECT * FROM ({sql}) ORDER BY prompt_id")


def test_each_baseline_reads_its_own_rows_and_no_baseline_leaves_the_columns_alone(con):
    one = [{"model": "base1", "source": "base1_answers"}]
    two = [*one, {"model": "base2", "source": "base2_answers"}]
    without, empty = _staged(con, None), _staged(con, [])
    assert [(r["model"], r["baseline"]) for r in without] == [("llm", False)] and empty == without
    assert [(r["model"], r["baseline"]) for r in _staged(con, one)] == [("base1", True), ("llm", False)]
    rows = _staged(con, two)  # two sources over the one table: each baseline's rows once
    assert [(r["model"], r["baseline"]) for r in rows] == [("base1", True), ("base2", True), ("llm", False)]
    assert list(rows[0]) == list(without[0])
