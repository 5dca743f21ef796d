"""``served_model`` and ``system_fingerprint`` in the lake: older files without them still read (as
null), and the served-model warning counts each entry's current rows (issue 55, item 4)."""

from __future__ import annotations

from datetime import datetime

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq

from relreason_dagster.results.readonly import lake_dataset
from relreason_dagster.results.served_models import mixed_served, served_counts, served_line
from relreason_dagster.storage.lake import RESPONSES_SCHEMA, Lake
from relreason_dagster.storage.responses import COLUMNS, ResponseStore
from relreason_dagster.storage.schema import ensure_schema

NEW = ("served_model", "system_fingerprint")


def _row(pid: str, model: str, served: str | None, *, at: int = 0, error: str | None = None, draw: int = 0):
    values = {
        "prompt_id": pid,
        "model": model,
        "benchmark": "toy",
        "request_hash": f"h-{pid}-{draw}",
        "litellm_model": "openai/x",
        "content": None if error else "True",
        "error": error,
        "attempts": 1,
        "from_cache": False,
        "created_at": datetime(2026, 1, 1, 0, 0, at),
        "sanitized": False,
        "sample_index": draw,
        "served_model": served,
        "system_fingerprint": f"fp-{served}" if served else None,
    }
    return tuple(values.get(c) for c in COLUMNS)


def test_a_lake_file_from_before_the_columns_reads_them_as_null(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    old_schema = pa.schema([f for f in RESPONSES_SCHEMA if f.name not in NEW])
    folder = tmp_path / "lake" / "responses"
    (folder / "model=a" / "benchmark=toy").mkdir(parents=True)
    pq.write_table(old_schema.empty_table(), folder / "_schema.parquet")  # the older release's schema file
    old = dict(zip(COLUMNS, _row("p1", "a", None), strict=True))
    old_rows = pa.Table.from_pylist([{k: old[k] for k in old_schema.names}], schema=old_schema)
    pq.write_table(old_rows, folder / "model=a" / "benchmark=toy" / "part-old.parquet")

    con = duckdb.connect(str(tmp_path / "x.duckdb"))
    ensure_schema(con, lake)  # rewrites the schema file with the new columns; the data file stays as it is
    assert pq.read_schema(folder / "model=a" / "benchmark=toy" / "part-old.parquet").names == old_schema.names
    store = ResponseStore(lake)
    store.append([_row("p2", "a", "snap-1", at=1)])
    got = con.execute(
        "SELECT prompt_id, content, served_model, system_fingerprint FROM raw.responses ORDER BY 1"
    ).fetchall()
    assert got == [("p1", "True", None, None), ("p2", "True", "snap-1", "fp-snap-1")]
    assert con.execute("SELECT count(*), count(served_model) FROM raw.response_draws").fetchone() == (2, 1)
    assert store.latest("a")["p1"]["served_model"] is None
    # What the readers (`relreason sql`, status, report) register for the lake: the same columns.
    read = lake_dataset(f"{folder}/**/*.parquet", "responses").to_table().sort_by("prompt_id")
    assert read.column("served_model").to_pylist() == [None, "snap-1"]  # p1 (older file), p2
    # An older row says nothing about who served it: the entry is not counted as mixed.
    assert served_counts(con) == {"a": [("snap-1", 1)]} and mixed_served(con) == []
    con.close()


def test_the_warning_counts_current_answered_rows_per_entry(duck, store):
    store.append(
        [
            # gpt-x: p1 was snap-1 and is re-answered by snap-2 (its latest row counts); p5 failed.
            _row("p1", "gpt-x", "snap-1", at=0),
            _row("p1", "gpt-x", "snap-2", at=5),
            _row("p2", "gpt-x", "snap-1", at=1),
            _row("p3", "gpt-x", "snap-1", at=1),
            _row("p3", "gpt-x", "snap-1", at=1, draw=1),
            _row("p4", "gpt-x", "snap-2", at=2),
            _row("p5", "gpt-x", None, at=2, error="server_error: boom"),
            _row("p1", "gpt-y", "steady", at=0),
            _row("p1", "three", "a", at=0),
            _row("p2", "three", "b", at=0),
            _row("p3", "three", "c", at=0),
            _row("p4", "three", "a", at=0),
        ]
    )
    assert served_counts(duck)["gpt-x"] == [("snap-1", 3), ("snap-2", 2)]
    assert mixed_served(duck) == [
        "gpt-x: served by snap-1 (3 rows) and snap-2 (2)",
        "three: served by a (2 rows), b (1) and c (1)",
    ]
    assert served_line("m", [("s", 1)]) == "m: served by s (1 row)"


def test_results_whose_views_predate_the_column_warn_of_nothing(tmp_path):
    con = duckdb.connect()
    con.execute("CREATE SCHEMA raw")
    con.execute("CREATE VIEW raw.response_draws AS SELECT 'p' AS prompt_id, 'm' AS model")
    assert served_counts(con) == {} and mixed_served(con) == []
