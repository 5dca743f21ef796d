"""`relreason sql` cannot write: the connection refuses, whatever the statement looks like.

Issue 30 defect 1: ``EXPLAIN ANALYZE COPY ... TO '<lake>/responses/...'`` passed the old check of
statement kinds and wrote forged answers into the lake, which ``raw.responses`` then served.  Each
statement below tries a different way to write (the lake, the results file, another file, the
connection's settings); the lake and the results file must be byte-identical afterwards and
``raw.responses`` must serve no forged row.  Every statement is also run on the connection itself
(``open_results().execute``), without `relreason sql`'s error wording, so the refusal is shown to
come from DuckDB, not from a check in front of it.
"""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from relreason_dagster import paths
from relreason_dagster.cli import main
from relreason_dagster.results.readonly import open_results
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.read_copy import COPY_DIR
from relreason_dagster.storage.schema import ensure_schema


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A results file with one stored answer in the lake, a mart and a view over raw.responses."""
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RELREASON_LAKE", raising=False)
    monkeypatch.delenv("RELREASON_DUCKDB", raising=False)
    lake = Lake.default()
    con = duckdb.connect(str(paths.duckdb_path()))
    ensure_schema(con, lake)
    lake.append(
        "responses",
        pa.table(
            {
                "prompt_id": ["p1"],
                "model": ["M"],
                "benchmark": ["relational"],
                "content": ["So the answer is: yes."],
                "from_cache": [False],
                "created_at": pa.array([datetime(2026, 1, 1)], pa.timestamp("us")),
            }
        ),
    )
    con.execute(
        "INSERT INTO raw.prompts (prompt_id, sample_id, benchmark, task, split, setting, messages) "
        "VALUES ('p1', 's1', 'relational', 't', 'iid', 'nl', '[]')"
    )
    con.execute("CREATE SCHEMA marts")
    con.execute("CREATE TABLE marts.relational_f1 AS SELECT 'M' AS model, 0.5::DOUBLE AS f1")
    # Like dbt's staging views: a view of the results file that reads the lake view.
    con.execute("CREATE SCHEMA main_staging")
    con.execute(
        "CREATE VIEW main_staging.stg_answers AS SELECT r.prompt_id, r.content, p.task "
        "FROM raw.responses r JOIN raw.prompts p USING (prompt_id)"
    )
    con.close()
    return tmp_path / "home"


def _fingerprint(home: Path) -> dict[str, str]:
    """Every file of the home but the readers' own copies, by content."""
    return {
        str(p.relative_to(home)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(home.rglob("*"))
        if p.is_file() and COPY_DIR not in p.relative_to(home).parts
    }


def _attacks(home: Path) -> list[str]:
    lake = home / "lake"
    part = lake / "responses" / "model=M" / "benchmark=relational"
    poisoned = (
        "select * replace ('POISONED [[True]]' as content, created_at + interval 100 year as created_at) "
        f"from read_parquet('{part}/*.parquet')"
    )
    poisoned_raw = (
        "select * replace ('POISONED [[True]]' as content, created_at + interval 100 year as created_at), "
        "'relational' as benchmark from raw.responses"
    )
    main_file = home / "relreason.duckdb"
    return [
        # The reported form, reading through read_parquet and through the view.
        f"EXPLAIN ANALYZE COPY ({poisoned}) TO '{part}/zz.parquet' (FORMAT parquet)",
        f"EXPLAIN ANALYZE COPY ({poisoned_raw}) TO '{part}/zz.parquet' (FORMAT parquet)",
        f"EXPLAIN COPY ({poisoned_raw}) TO '{part}/zy.parquet' (FORMAT parquet)",
        f"COPY ({poisoned_raw}) TO '{part}/zx.parquet' (FORMAT parquet)",
        f"COPY (WITH forged AS ({poisoned_raw}) SELECT * FROM forged) TO '{part}/zw.parquet' (FORMAT csv)",
        f"select 1; COPY ({poisoned_raw}) TO '{part}/zv.parquet' (FORMAT parquet)",
        f"EXPORT DATABASE '{lake}/exported'",
        f"ATTACH '{main_file}' AS w; DELETE FROM w.raw.prompts",
        f"ATTACH '{lake}/new.duckdb' AS w; CREATE TABLE w.t AS SELECT 1",
        "INSTALL httpfs",
        "LOAD httpfs",
        "SET enable_external_access = true",
        "RESET enable_external_access",
        "SET lock_configuration = false",
        f"SET allowed_directories = ['{lake}']",
        f"SET temp_directory = '{lake}'",
        "PRAGMA enable_profiling = 'json'",
        f"PRAGMA profiling_output = '{lake}/profile.json'",
        "CREATE OR REPLACE VIEW raw.responses AS SELECT 'POISONED' AS content",
        "INSERT INTO raw.prompts SELECT * REPLACE ('x' AS prompt_id) FROM raw.prompts",
        "DELETE FROM raw.prompts",
        "DROP TABLE marts.relational_f1",
        "CREATE TABLE raw.forged AS SELECT 1",
        "DETACH relreason",
        f"SELECT * FROM read_text('{home}/relreason.duckdb')",
        f"SELECT * FROM glob('{lake}/**')",
    ]


def _forged_rows() -> int:
    con = open_results()
    try:
        return con.execute("SELECT count(*) FROM raw.responses WHERE content LIKE 'POISONED%'").fetchone()[0]
    finally:
        con.close()


def test_no_statement_writes_the_lake_or_the_results_file(home, capsys):
    before = _fingerprint(home)
    attacks = _attacks(home)
    assert len(attacks) > 20
    for sql in attacks:
        assert main(["sql", sql]) == 2, sql
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, (sql, err)
        assert "read-only" in err or "SQL error" in err, (sql, err)
    for sql in attacks:  # the same on the bare connection: DuckDB itself refuses
        con = open_results()
        try:
            with pytest.raises(duckdb.Error):
                con.execute(sql)
        finally:
            con.close()
    assert _fingerprint(home) == before
    assert _forged_rows() == 0


def test_session_changes_end_with_the_session(home, capsys):
    """What a reader may change is its own in-memory scratch space; the next reader sees none of it."""
    script = (
        "USE memory; CREATE SCHEMA raw; CREATE VIEW raw.responses AS SELECT 'POISONED' AS content; "
        "SELECT count(*) AS n FROM raw.responses WHERE content LIKE 'POISONED%'"
    )
    assert main(["sql", "--json", script]) == 0
    assert json.loads(capsys.readouterr().out) == [{"n": 1}]
    assert main(["sql", "--json", "CREATE TEMP TABLE t AS SELECT 41 AS x; SELECT x + 1 AS y FROM t"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"y": 42}]
    assert _forged_rows() == 0


def test_reads_still_work(home, capsys):
    """The marts, raw.responses (the lake) and views over it read as before; a new answer shows at once."""
    assert main(["sql", "--json", "SELECT model, f1 FROM marts.relational_f1"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"model": "M", "f1": 0.5}]
    assert main(["sql", "--json", "SELECT prompt_id, task FROM main_staging.stg_answers"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"prompt_id": "p1", "task": "t"}]
    Lake.default().append(
        "responses",
        pa.table(
            {
                "prompt_id": ["p2"],
                "model": ["M"],
                "benchmark": ["relational"],
                "content": ["no"],
                "from_cache": [False],
                "created_at": pa.array([datetime(2026, 1, 2)], pa.timestamp("us")),
            }
        ),
    )
    # The lake is read live, not from the copy: the new answer is there without a new copy.
    assert main(["sql", "--json", "SELECT prompt_id, sanitized FROM raw.responses ORDER BY 1"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"prompt_id": "p1", "sanitized": False},
        {"prompt_id": "p2", "sanitized": False},
    ]
    assert main(["sql", "SELECT sum(i) FROM range(10) t(i)"]) == 0
    assert "45" in capsys.readouterr().out


def test_the_reader_leaves_the_results_file_free(home):
    """While a reader's connection is open, a writer opens the file at once (no lock is held)."""
    con = open_results()
    try:
        writer = duckdb.connect(str(paths.duckdb_path()))
        writer.execute("CREATE TABLE marts.later AS SELECT 1 AS x")
        writer.close()
        # The reader keeps its copy: the table made meanwhile is not in it.
        assert con.execute("SELECT count(*) FROM marts.relational_f1").fetchone() == (1,)
    finally:
        con.close()
    con = open_results()  # a new reader copies the changed file
    try:
        assert con.execute("SELECT x FROM marts.later").fetchall() == [(1,)]
    finally:
        con.close()
    copies = list((home / COPY_DIR).glob("*.duckdb"))
    assert 1 <= len(copies) <= 2  # the old copy goes once it is KEEP_S old; never one per read


def test_a_tmp_folder_in_the_current_directory_is_neither_written_nor_read(home, capsys, monkeypatch):
    """DuckDB keeps file access to its temp directory (default ``<cwd>/.tmp``) after external access is
    off: run from a model's lake folder holding a ``.tmp/``, `relreason sql` wrote a Parquet file there
    and ``raw.responses`` served it.  The reader now has no temp directory at all."""
    folder = home / "lake" / "responses" / "model=M"
    tmp = folder / ".tmp"
    tmp.mkdir()
    (tmp / "planted.txt").write_text("secret\n", encoding="utf-8")
    import pyarrow.parquet as pq

    pq.write_table(pa.table({"secret": ["s3cr3t"]}), tmp / "planted.parquet")
    monkeypatch.chdir(folder)
    before = _fingerprint(home)
    attacks = [
        "COPY (SELECT 1 AS a) TO '.tmp/x.parquet' (FORMAT parquet)",
        "COPY (SELECT * FROM raw.responses) TO '.tmp/benchmark=relational/x.parquet' (FORMAT parquet)",
        "COPY (SELECT 1 AS a) TO 'x.parquet' (FORMAT parquet)",
        "EXPORT DATABASE '.tmp/exported'",
        "SELECT * FROM read_text('.tmp/planted.txt')",
        "SELECT * FROM read_parquet('.tmp/planted.parquet')",
        "SELECT * FROM read_parquet('.tmp/*.parquet')",
        "SELECT * FROM glob('.tmp/*')",
        "SET temp_directory = '.tmp'",
    ]
    for sql in attacks:
        assert main(["sql", sql]) == 2, sql
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err, (sql, err)
    assert _fingerprint(home) == before
    assert sorted(p.name for p in tmp.iterdir()) == ["planted.parquet", "planted.txt"]
    assert _forged_rows() == 0


def test_a_damaged_lake_file_is_moved_aside_by_sql_and_the_next_query_reads(home, capsys):
    """A truncated lake file failed every later `relreason sql` of every model until a run moved it."""
    part = home / "lake" / "responses" / "model=M" / "benchmark=relational"
    good = sorted(part.glob("*.parquet"))[0]
    damaged = part / "part-damaged.parquet"
    damaged.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    assert main(["sql", "--json", "SELECT prompt_id FROM raw.responses"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out) == [{"prompt_id": "p1"}]
    assert "damaged lake file" in captured.err and not damaged.exists()
    assert list((home / "lake" / "_quarantine").rglob("part-damaged.parquet"))
    assert main(["sql", "--json", "SELECT count(*) AS n FROM raw.responses"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"n": 1}]
