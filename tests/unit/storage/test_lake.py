"""The Parquet lake: append-only files, partitions, compaction, the raw.responses view, migration,
model text kept exactly (or flagged when it cannot be), and DuckDB handles released on failure."""

from __future__ import annotations

import datetime as dt

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from relreason_dagster.storage.lake import RESPONSES_SCHEMA, Lake
from relreason_dagster.storage.prompt_snapshots import current_prompts, write_snapshot
from relreason_dagster.storage.responses import COLUMNS, ResponseStore, clean_str, clean_text
from relreason_dagster.storage.schema import ensure_schema


def row(pid: str, model: str, content: str | None, error: str | None = None, minute: int = 0) -> tuple:
    when = dt.datetime(2026, 1, 1, 0, minute)
    return (
        pid,
        model,
        "relational",
        f"h-{pid}",
        "openai/x",
        content,
        "stop",
        1,
        1,
        0.1,
        1,
        error,
        False,
        when,
    )


def test_rows_land_in_model_and_benchmark_folders_and_files_are_never_rewritten(tmp_path):
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    first = store.append([row("p1", "a", "x"), row("p2", "b", "y")])
    assert len(first) == 2 and all("/responses/model=" in f and "/benchmark=relational/" in f for f in first)
    import os

    before = {f: os.stat(f).st_mtime_ns for f in first}
    second = store.append([row("p1", "a", "x2", minute=1)])
    assert set(first).isdisjoint(second)
    assert {f: os.stat(f).st_mtime_ns for f in first} == before  # still there, untouched
    assert store.latest("a")["p1"]["content"] == "x2"
    assert store.stored_ok("b") == {("p2", "h-p2")}


def test_compaction_merges_own_files_and_keeps_every_row(tmp_path):
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    files = [f for i in range(5) for f in store.append([row(f"p{i}", "a", str(i))])]
    merged = store.compact(files)
    assert len(merged) == 1 and store.lake.files("responses") == merged
    assert store.count("a") == 5


def test_view_shows_the_latest_row_per_prompt_and_works_on_an_empty_lake(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    con = duckdb.connect(str(tmp_path / "x.duckdb"))
    ensure_schema(con, lake)
    assert con.execute("SELECT count(*) FROM raw.responses").fetchone() == (0,)
    store = ResponseStore(lake)
    store.append([row("p1", "a", None, error="server_error: boom", minute=0)])
    store.append([row("p1", "a", "fixed", minute=5), row("p2", "a", "ok")])
    got = con.execute("SELECT prompt_id, content, error FROM raw.responses ORDER BY prompt_id").fetchall()
    assert got == [("p1", "fixed", None), ("p2", "ok", None)]


def test_lone_surrogates_are_stored_not_fatal(tmp_path):
    assert clean_str("ok \ud800 end") == "ok \ufffd end"
    assert clean_text("pair \ud83d\ude00 kept") == ("pair \U0001f600 kept", True)
    assert clean_text("a\x00b") == ("a\x00b", False)
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    store.append(
        [row("p1", "a", "bad \udc00 text"), row("p2", "a", "fine"), row("p3", "a", None, "e \ud800")]
    )
    latest = store.latest("a")
    assert latest["p1"]["content"] == "bad \ufffd text" and latest["p1"]["sanitized"] is True
    assert latest["p2"]["sanitized"] is False
    assert latest["p3"]["error"] == "e \ufffd" and latest["p3"]["sanitized"] is True


def test_nul_bytes_and_a_megabyte_read_back_exactly_through_the_view(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    con = duckdb.connect(str(tmp_path / "x.duckdb"))
    ensure_schema(con, lake)
    nul = "before\x00after\x00"
    big = ("0123456789abcdef" * (1 << 16)) + "\x00end"
    ResponseStore(lake).append([row("p1", "a", nul), row("p2", "a", big)])
    got = dict(con.execute("SELECT prompt_id, content FROM raw.responses").fetchall())
    assert got == {"p1": nul, "p2": big}
    assert con.execute("SELECT bool_or(sanitized) FROM raw.responses").fetchone() == (False,)
    con.close()


def test_lake_files_of_an_older_release_without_the_flag_still_read(tmp_path):
    """Files (schema file included) written before ``sanitized`` existed, and so before ``reasoning``,
    ``reasoning_tokens``, ``sample_index`` and ``cost_usd``: the view and readers still work (null,
    draw 0)."""
    lake = Lake.open(tmp_path / "lake")
    old_schema = pa.schema(list(RESPONSES_SCHEMA)[: RESPONSES_SCHEMA.names.index("sanitized")])
    folder = tmp_path / "lake" / "responses"
    (folder / "model=a" / "benchmark=relational").mkdir(parents=True)
    pq.write_table(old_schema.empty_table(), folder / "_schema.parquet")
    old_rows = pa.Table.from_pylist(
        [dict(zip(old_schema.names, row("p1", "a", "old answer"), strict=True))], schema=old_schema
    )
    pq.write_table(old_rows, folder / "model=a" / "benchmark=relational" / "part-old.parquet")
    con = duckdb.connect(str(tmp_path / "x.duckdb"))
    ensure_schema(con, lake)  # rewrites the schema file with the new column; data files stay as they are
    assert pq.read_schema(folder / "_schema.parquet").names == RESPONSES_SCHEMA.names
    assert con.execute("SELECT content, sanitized FROM raw.responses").fetchall() == [("old answer", False)]
    store = ResponseStore(lake)
    store.append([row("p2", "a", "new \ud800")])
    got = con.execute("SELECT prompt_id, sanitized FROM raw.responses ORDER BY 1").fetchall()
    assert got == [("p1", False), ("p2", True)]
    assert store.latest("a")["p1"]["sanitized"] is None  # the lake itself says "unknown"
    assert store.count("a") == 2
    got = con.execute(
        "SELECT reasoning, reasoning_tokens, cost_usd, sample_index FROM raw.responses WHERE prompt_id = 'p1'"
    ).fetchall()
    assert got == [(None, None, None, 0)]
    assert con.execute("SELECT count(*) FROM raw.response_draws").fetchone() == (2,)
    assert store.draws("a")[("p1", 0)]["content"] == "old answer"
    con.close()


def test_a_failed_open_releases_the_duckdb_file(tmp_path, monkeypatch):
    """``connect`` closes the handle when schema set-up fails: the file is not left locked by us."""
    from relreason_dagster.storage import duckdb_io

    path = tmp_path / "x.duckdb"

    def broken(con):
        con.execute("CREATE TABLE t (a INTEGER)")
        raise RuntimeError("schema step failed")

    monkeypatch.setattr(duckdb_io, "ensure_schema", broken)
    with pytest.raises(RuntimeError, match="schema step failed"):
        duckdb_io.connect(path)
    # An open handle of this process would refuse a read-only open (another configuration) of the file.
    again = duckdb.connect(str(path), read_only=True)
    again.close()
    with pytest.raises(RuntimeError), duckdb_io.duckdb_session(path) as con:
        con.execute("SELECT 1")
        raise RuntimeError("a step failed while the file was open")
    duckdb.connect(str(path), read_only=True).close()


def test_an_old_responses_table_moves_into_the_lake_once(tmp_path):
    con = duckdb.connect(str(tmp_path / "old.duckdb"))
    con.execute("CREATE SCHEMA raw")
    names = ", ".join(COLUMNS[: COLUMNS.index("sanitized")][:2] + COLUMNS[3 : COLUMNS.index("sanitized")])
    con.execute(
        "CREATE TABLE raw.responses (prompt_id VARCHAR, model VARCHAR, request_hash VARCHAR,"
        " litellm_model VARCHAR, content VARCHAR, finish_reason VARCHAR, prompt_tokens INTEGER,"
        " completion_tokens INTEGER,"
        " latency_s DOUBLE, attempts INTEGER, error VARCHAR, from_cache BOOLEAN, created_at TIMESTAMP)"
    )
    con.execute(
        f"INSERT INTO raw.responses ({names}) VALUES ('p1','a','h','m','old',NULL,1,1,0.1,1,NULL,false,now())"
    )
    lake = Lake.open(tmp_path / "lake")
    ensure_schema(con, lake)
    assert con.execute("SELECT content FROM raw.responses").fetchall() == [("old",)]
    kind = "SELECT table_type FROM information_schema.tables WHERE table_name = 'responses'"
    assert con.execute(kind).fetchone() == ("VIEW",)
    ensure_schema(con, lake)  # idempotent: nothing moves twice
    assert ResponseStore(lake).count() == 1


def test_prompt_snapshots_newest_wins(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    write_snapshot(lake, "kor", [{"prompt_id": "old", "messages": "[]", "max_tokens": 8}])
    write_snapshot(
        lake, "kor", [{"prompt_id": "new", "messages": [{"role": "user", "content": "q"}], "max_tokens": 8}]
    )
    write_snapshot(lake, "flenqa", [])
    assert [p["prompt_id"] for p in current_prompts(lake, ["kor", "flenqa"])] == ["new"]
    assert pa.Table.from_pylist(current_prompts(lake, ["kor"])).num_rows == 1
