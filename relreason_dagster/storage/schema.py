"""DuckDB tables of schema ``raw``: the one place their columns are declared.

dbt reads these tables (staging views in ``dbt_project/models/staging`` and the families' ``dbt/``); the
assets write them.  Keys are content hashes, so every write is an idempotent
upsert rather than an append.  Model responses are not a table here: they
live in the Parquet lake (``storage/lake.py``) and ``raw.responses`` is a view
over it, so model calls never write (or lock) this file.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from relreason_dagster.storage.lake import RESPONSES_SCHEMA, Lake

RAW_TABLES: dict[str, str] = {
    # What each family's samples and prompts, and each model's parsed answers, were last built from
    # (storage/built_from.py); ``part`` is the family or the model.
    "built_from": """
        asset VARCHAR NOT NULL,
        part VARCHAR NOT NULL,
        inputs_key VARCHAR NOT NULL,
        n_rows BIGINT NOT NULL,
        PRIMARY KEY (asset, part)
    """,
    "samples": """
        benchmark VARCHAR NOT NULL,
        task VARCHAR NOT NULL,
        sample_id VARCHAR NOT NULL PRIMARY KEY,
        split VARCHAR NOT NULL,
        n INTEGER,
        variant JSON,
        input JSON,
        gold JSON,
        label BOOLEAN,
        gold_pos INTEGER,
        n_cells INTEGER,
        seed INTEGER,
        generator_version VARCHAR
    """,
    "prompts": """
        prompt_id VARCHAR NOT NULL PRIMARY KEY,
        sample_id VARCHAR NOT NULL,
        benchmark VARCHAR NOT NULL,
        task VARCHAR NOT NULL,
        split VARCHAR NOT NULL,
        setting VARCHAR NOT NULL,
        messages JSON NOT NULL,
        template_version VARCHAR,
        max_tokens INTEGER,
        input_tokens INTEGER,
        tokenizer VARCHAR,
        target_tokens INTEGER,
        target_tolerance INTEGER,
        target_exempt BOOLEAN,
        kind VARCHAR NOT NULL DEFAULT 'test'
    """,
    "parsed_answers": """
        prompt_id VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        sample_id VARCHAR,
        benchmark VARCHAR,
        task VARCHAR,
        split VARCHAR,
        setting VARCHAR,
        parse_status VARCHAR NOT NULL,
        parsed JSON,
        tp INTEGER,
        fp INTEGER,
        fn INTEGER,
        pred_pos INTEGER,
        n_cells INTEGER,
        correct BOOLEAN,
        detail JSON,
        parse_key VARCHAR,
        PRIMARY KEY (prompt_id, model)
    """,
    # Draws 1 .. K-1 of a repeated-sampling run (``--samples K``), parsed like draw 0, whose row is in
    # parsed_answers (storage/parsed_draws.py); empty when every run drew once.
    "parsed_draws": """
        prompt_id VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        sample_index INTEGER NOT NULL,
        sample_id VARCHAR,
        benchmark VARCHAR,
        task VARCHAR,
        split VARCHAR,
        setting VARCHAR,
        parse_status VARCHAR NOT NULL,
        parsed JSON,
        tp INTEGER,
        fp INTEGER,
        fn INTEGER,
        pred_pos INTEGER,
        n_cells INTEGER,
        correct BOOLEAN,
        parse_key VARCHAR,
        PRIMARY KEY (prompt_id, model, sample_index)
    """,
    # Each test prompt counted in the own tokenizer of each run model whose models.yaml entry names one
    # (``tokenizer:``, common/model_tokenizers.py); raw.prompts.input_tokens stays relreason's count.
    # Written by the ``prompts`` asset; read by marts.flenqa_provider_lengths beside the provider's count.
    "prompt_tokens": """
        prompt_id VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        tokenizer VARCHAR NOT NULL,
        input_tokens INTEGER NOT NULL,
        PRIMARY KEY (prompt_id, model)
    """,
    # The sweep variants a launch ran (llm/registry.py: an entry's `sweep:` levels), one row per model
    # name; an ordinary entry has none.  The budget marts read base model, level and the level's rank.
    "model_sweeps": """
        model VARCHAR NOT NULL PRIMARY KEY,
        base_model VARCHAR NOT NULL,
        param VARCHAR NOT NULL,
        level VARCHAR NOT NULL,
        level_rank INTEGER NOT NULL
    """,
    # The prompts a model left out because they do not fit its context window with their max_tokens
    # (llm/context_window.py): never sent, never an answer, counted by the marts (prompts_too_long and a
    # family's own, e.g. flenqa_too_long).  Copied from the model step's lake record (storage/too_long.py).
    "too_long": """
        prompt_id VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        benchmark VARCHAR,
        needed_tokens INTEGER NOT NULL,
        context_window INTEGER,
        window_source VARCHAR,
        PRIMARY KEY (prompt_id, model)
    """,
    # The studies' published numbers: every registered family's ``published.csv`` (one row per printed
    # cell, storage/study_reference.py).  Key columns a family adds after ``note`` are in ``keys``;
    # ``line`` is the row's line in its file; ``comparable``/``why_not`` whether a run can stand beside it;
    # ``misprint`` whether the printed value is contradicted by the paper's own numbers or released outputs.
    "study_reference": """
        family VARCHAR NOT NULL,
        source VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        task VARCHAR,
        category VARCHAR,
        dataset VARCHAR,
        setting VARCHAR,
        split VARCHAR,
        n INTEGER,
        length INTEGER,
        padding VARCHAR,
        position VARCHAR,
        metric VARCHAR NOT NULL,
        value DOUBLE,
        printed VARCHAR,
        note VARCHAR,
        keys JSON,
        line INTEGER NOT NULL,
        comparable BOOLEAN,
        why_not VARCHAR,
        misprint BOOLEAN,
        PRIMARY KEY (family, line)
    """,
}


# What a prompt is for (raw.prompts.kind).  Only ``test`` prompts are a family's questions: they are
# parsed into raw.parsed_answers and counted by the marts.  The others are follow-ups of a test answer
# (a family's step names its kind: a self-correction round, a judge's question), stored like every
# prompt (cached, answered once) but read only by the asset that asked them.
TEST_KIND = "test"


def legacy_follow_ups() -> list[tuple[str, str, str]]:
    """``(old benchmark name, family, kind)`` of every registered family's step whose prompts had a
    benchmark name of their own before the kind column (the step's ``legacy_benchmark``)."""
    from relreason_dagster.benchmarks.registry import FAMILIES, family_steps

    return [
        (step.legacy_benchmark, name, str(step.kind))
        for name in FAMILIES
        for step in family_steps(name)
        if getattr(step, "legacy_benchmark", None) and step.kind
    ]


# Columns added after a table first shipped: an older DuckDB file gains them in place.
ADDED_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "prompts": [("target_tokens", "INTEGER"), ("target_tolerance", "INTEGER"), ("target_exempt", "BOOLEAN")],
    # What a row's parse (or check) read (storage/parsed_answers.py); NULL on older rows: they redo once.
    "parsed_answers": [("parse_key", "VARCHAR")],
    # A published cell the paper's own arithmetic or released outputs contradict (storage/study_reference.py).
    "study_reference": [("misprint", "BOOLEAN")],
}


def declared_tables() -> tuple[dict[str, str], dict[str, list[tuple[str, str]]]]:
    """Every raw table and added column: the generic ones above plus what each registered family
    declares in its ``tables.py`` (a family owns its own rows' columns; this layer names none)."""
    from relreason_dagster.benchmarks.registry import family_names, family_tables

    tables, added = dict(RAW_TABLES), {name: list(cols) for name, cols in ADDED_COLUMNS.items()}
    for family in family_names():
        own, own_added = family_tables(family)
        tables.update(own)
        for name, cols in own_added.items():
            added.setdefault(name, []).extend(cols)
    return tables, added


# The view's columns: the lake's, less the folder-only ``benchmark`` (the prompt knows it).
RESPONSE_VIEW_COLUMNS = [name for name in RESPONSES_SCHEMA.names if name != "benchmark"]


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _view_column(name: str) -> str:
    # Lake files written before a column existed read it as null: nothing was replaced in them, and
    # their one answer per prompt was draw 0.
    if name == "sanitized":
        return "coalesce(sanitized, false) AS sanitized"
    if name == "sample_index":
        return "coalesce(sample_index, 0) AS sample_index"
    return name


def responses_view_sql(lake: Lake) -> str:
    """``raw.responses``: the latest lake row per (prompt, model) of draw 0, as the old table held it;
    ``raw.response_draws``: the latest row per (prompt, model, draw), every draw of ``--samples K``."""
    source = (
        "SELECT "
        + ", ".join(_view_column(c) for c in RESPONSE_VIEW_COLUMNS)
        + f" FROM read_parquet({_sql_string(lake.glob('responses'))}, union_by_name = true,"
        " hive_partitioning = false)"
    )
    order = "ORDER BY created_at DESC, error IS NULL DESC, from_cache) = 1"
    return (
        f"CREATE OR REPLACE VIEW raw.responses AS {source} WHERE coalesce(sample_index, 0) = 0"
        f" QUALIFY row_number() OVER (PARTITION BY prompt_id, model {order};\n"
        f"CREATE OR REPLACE VIEW raw.response_draws AS {source}"
        f" QUALIFY row_number() OVER (PARTITION BY prompt_id, model, coalesce(sample_index, 0) {order}"
    )


def _migrate_responses_table(con: Any, lake: Lake) -> None:
    """An older file kept responses as a table: move its rows into the lake once, then drop it."""
    kind = con.execute(
        "SELECT table_type FROM information_schema.tables"
        " WHERE table_schema = 'raw' AND table_name = 'responses'"
    ).fetchall()
    if not kind or kind[0][0] != "BASE TABLE":
        return
    from relreason_dagster.storage.responses import ResponseStore

    rows = con.sql(
        "SELECT r.*, coalesce(p.benchmark, 'unknown') AS benchmark FROM raw.responses r "
        "LEFT JOIN raw.prompts p USING (prompt_id)"
    ).to_arrow_table()
    ResponseStore(lake).append(rows)
    con.execute("DROP TABLE raw.responses")


def _has_column(con: Any, table: str, column: str) -> bool:
    return bool(
        con.execute(
            "SELECT 1 FROM information_schema.columns"
            " WHERE table_schema = 'raw' AND table_name = ? AND column_name = ?",
            [table, column],
        ).fetchall()
    )


def _migrate_prompt_kind(con: Any) -> None:
    """A file from before ``raw.prompts.kind``: test prompts get ``test``, follow-ups their kind.

    Follow-ups are recognised by their old benchmark names and moved to their family; parsed rows of
    them (an older ``parsed_answers`` read them as extra settings, e.g. KOR's ``round1``..``round5``)
    are deleted, since they were never answers to a test question.  Runs once: the column is the marker.
    """
    con.execute("BEGIN TRANSACTION")
    try:
        con.execute(f"ALTER TABLE raw.prompts ADD COLUMN kind VARCHAR DEFAULT '{TEST_KIND}'")
        for old, family, kind in legacy_follow_ups():
            con.execute(
                "UPDATE raw.prompts SET kind = ?, benchmark = ? WHERE benchmark = ?", [kind, family, old]
            )
        con.execute(
            "DELETE FROM raw.parsed_answers WHERE prompt_id IN"
            f" (SELECT prompt_id FROM raw.prompts WHERE kind <> '{TEST_KIND}')"
        )
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise


def _schema_mark(view_sql: str) -> str:
    """What the comment on ``raw.responses`` says once this code's schema is in place."""
    declared = json.dumps([*declared_tables(), view_sql], sort_keys=True)
    return "relreason schema " + hashlib.sha256(declared.encode()).hexdigest()[:16]


def _schema_in_place(con: Any, mark: str) -> bool:
    """Whether a previous ``ensure_schema`` of this very code finished on this file: two catalog reads
    (~1 ms) instead of ~20 statements (10-30 ms, paid by every step that opens the file)."""
    view = con.execute(
        "SELECT comment FROM duckdb_views() WHERE schema_name = 'raw' AND view_name = 'responses'"
    ).fetchone()
    if view is None or view[0] != mark:
        return False
    tables = {
        t
        for (t,) in con.execute("SELECT table_name FROM duckdb_tables() WHERE schema_name = 'raw'").fetchall()
    }
    return tables >= set(declared_tables()[0])


def ensure_schema(con: Any, lake: Lake | None = None) -> None:
    """Create schema ``raw``, its tables and the lake views; add columns newer code declares."""
    lake = lake or Lake.default()
    lake.ensure()
    view_sql = responses_view_sql(lake)
    mark = _schema_mark(view_sql)
    if _schema_in_place(con, mark):
        return
    con.execute("CREATE SCHEMA IF NOT EXISTS raw")
    raw_tables, added_columns = declared_tables()
    for name, columns in raw_tables.items():
        con.execute(f"CREATE TABLE IF NOT EXISTS raw.{name} ({columns})")
    if not _has_column(con, "prompts", "kind"):
        _migrate_prompt_kind(con)
    for name, added in added_columns.items():
        for column, kind in added:
            con.execute(f"ALTER TABLE raw.{name} ADD COLUMN IF NOT EXISTS {column} {kind}")
    _migrate_responses_table(con, lake)
    con.execute(view_sql)
    con.execute(f"COMMENT ON VIEW raw.responses IS {_sql_string(mark)}")
