"""``raw.parsed_answers``: a model's responses parsed and scored, re-parsed only where something changed.

A cached re-run used to parse every stored response again (the relational CoT checks alone are most of
that).  Each row now carries ``parse_key``, a hash of everything its parse reads: the response text or
error, the prompt's setting, the whole sample row, and ``parser_fingerprint()``, the source code of the
registered families and of this module.  A row whose key is unchanged is kept as it is; a changed key
(another answer, an edited parser, a regenerated sample) parses again, and rows of prompts the model no
longer has answers to are dropped.  Hashing the code rather than a hand-bumped version means an edited
parser can never be served stale rows.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

import duckdb

from relreason_dagster.benchmarks.base import Parsed, Sample
from relreason_dagster.benchmarks.registry import FAMILIES, get_family
from relreason_dagster.common.duckdb_rows import fetch_dicts, upsert_rows
from relreason_dagster.storage.schema import TEST_KIND

_BENCHMARKS_DIR = Path(__file__).resolve().parents[1] / "benchmarks"


def _family_sources(family: object) -> list[Path] | None:
    """The files a family's parsing can live in: its module's package folder, or the lone module.

    None when the source cannot be found (a class made at run time): the caller then never reuses.
    """
    cls = type(family)
    module = sys.modules.get(cls.__module__)
    source = getattr(module, "__file__", None)
    if not source or not source.endswith(".py"):
        return None
    path = Path(source).resolve()
    return sorted(path.parent.glob("*.py")) if getattr(module, "__package__", None) else [path]


def parser_fingerprint(families: Iterable[object] | None = None) -> str:
    """A hash of the parsing code: shared benchmark modules, every registered family's folder, this module."""
    files = {*sorted(_BENCHMARKS_DIR.glob("*.py")), Path(__file__).resolve()}
    digest = hashlib.sha256()
    for family in FAMILIES.values() if families is None else families:
        sources = _family_sources(family)
        if sources is None:  # unknown code: a key no later process can match
            digest.update(f"{type(family).__qualname__}:{os.getpid()}:{id(type(family))}".encode())
        else:
            files.update(sources)
    for path in sorted(files):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def incomplete_answer(content: str | None, reasoning: str | None, finish_reason: str | None) -> str | None:
    """Why a stored answer is incomplete (None when it is an answer to parse).

    An empty answer beside a reasoning trace (the reply was all thinking: a ``<think>`` that never
    closed, or content empty and the thinking in its own field), or an empty answer cut at
    ``max_tokens``, is no answer: it is scored N/A as incomplete and never handed to the family's
    parser, which might read an empty text as an answer of its own (FLenQA's "refused", an empty
    prediction of no true cells).  Issue 47, item 5: no answer is ever taken from the thinking.
    """
    if (content or "").strip():
        return None
    if (reasoning or "").strip():
        return "the reply is all reasoning: no answer after the thinking"
    if finish_reason == "length":
        return "cut at max_tokens before any answer"
    return None


def parse_response_row(model: str, r: dict[str, Any]) -> dict[str, Any]:
    """One ``raw.parsed_answers`` row from a response joined to its prompt and sample."""
    sample = Sample.from_row(r)
    base = {
        "prompt_id": r["prompt_id"],
        "model": model,
        "sample_id": sample.sample_id,
        "benchmark": sample.benchmark,
        "task": sample.task,
        "split": sample.split,
        "setting": r["setting"],
    }
    if r["error"] is not None or r["content"] is None:
        return {
            **base,
            "parse_status": "error",
            "parsed": None,
            "tp": 0,
            "fp": 0,
            "fn": 0,
            "pred_pos": 0,
            "n_cells": sample.n_cells,
            "correct": None,
            "detail": json.dumps({"error": r["error"]}),
        }
    parsed = get_family(sample.benchmark).parse(sample, r["setting"], r["content"])
    why = incomplete_answer(r["content"], r.get("reasoning"), r.get("finish_reason"))
    if why is not None:  # the family's row for no answer (its cell counts), always N/A and never right
        detail = {**parsed.detail, "incomplete": why}
        parsed = replace(parsed, parse_status="na", correct=False, detail=detail)
    return answer_row(base, parsed)


def answer_row(base: dict[str, Any], parsed: Parsed) -> dict[str, Any]:
    """A ``raw.parsed_answers`` row: the keys in ``base`` plus the scored answer (LLM and DLM alike)."""
    return parsed.row(base)


# The model's current test answers with the key of what their parse reads.
_KEYED = f"""
    SELECT r.prompt_id,
           md5(json_array(?, p.setting, r.content, r.error, s, r.reasoning, r.finish_reason)::VARCHAR)
             AS parse_key
    FROM raw.responses r
    JOIN raw.prompts p USING (prompt_id)
    JOIN raw.samples s ON s.sample_id = p.sample_id
    WHERE r.model = ? AND p.kind = '{TEST_KIND}'
"""


def refresh_parsed_answers(
    con: duckdb.DuckDBPyConnection, model: str, fingerprint: str | None = None
) -> dict[str, int]:
    """Bring ``model``'s rows up to date with its responses.

    Returns counts: ``rows`` current answers, ``parsed`` (new or changed), ``kept`` (reused as stored),
    ``deleted`` (old rows replaced or of prompts no longer answered).
    """
    fingerprint = fingerprint or parser_fingerprint()
    con.execute("CREATE OR REPLACE TEMP TABLE _parse_keys AS " + _KEYED, [fingerprint, model])
    try:
        todo = fetch_dicts(
            con,
            """
            SELECT r.prompt_id, r.content, r.error, r.reasoning, r.finish_reason, p.setting, s.*, k.parse_key
            FROM _parse_keys k
            JOIN raw.responses r ON r.prompt_id = k.prompt_id AND r.model = ?
            JOIN raw.prompts p ON p.prompt_id = k.prompt_id
            JOIN raw.samples s ON s.sample_id = p.sample_id
            WHERE NOT EXISTS (
                SELECT 1 FROM raw.parsed_answers a
                WHERE a.model = ? AND a.prompt_id = k.prompt_id AND a.parse_key = k.parse_key
            )
            """,
            [model, model],
        )
        rows = [{**parse_response_row(model, r), "parse_key": r["parse_key"]} for r in todo]
        deleted = replace_model_rows(con, "parsed_answers", "_parse_keys", ("prompt_id",), model, rows)
        total = con.execute("SELECT count(*) FROM _parse_keys").fetchone()
    finally:
        con.execute("DROP TABLE IF EXISTS _parse_keys")
    n_total = int(total[0]) if total else 0
    return {"rows": n_total, "parsed": len(rows), "kept": n_total - len(rows), "deleted": deleted}


def replace_model_rows(
    con: duckdb.DuckDBPyConnection,
    table: str,
    keys: str,
    key_columns: tuple[str, ...],
    model: str,
    rows: list[dict[str, Any]],
) -> int:
    """In one transaction, drop ``model``'s rows of ``raw.<table>`` whose parse key is not current in
    the temp table ``keys`` (re-parsed below, or of prompts no longer answered) and upsert ``rows``;
    returns how many were dropped.  One transaction, so a reader never sees a model half replaced."""
    match = " AND ".join(f"k.{c} = t.{c}" for c in (*key_columns, "parse_key"))
    con.execute("BEGIN TRANSACTION")
    try:
        current = f"SELECT 1 FROM {keys} k WHERE {match}"
        stale = f"DELETE FROM raw.{table} t WHERE t.model = ? AND NOT EXISTS ({current})"
        deleted = con.execute(stale, [model]).fetchone()
        upsert_rows(con, table, rows)
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return int(deleted[0]) if deleted else 0
