"""Readers' copies of the DuckDB file (storage/read_copy.py): shared while the file is unchanged,
bounded, complete after a killed writer, and the fallback while a writer holds the file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from relreason_dagster.errors import ConfigError
from relreason_dagster.results.readonly import open_results, swap_lake_sources
from relreason_dagster.storage import launch_record, read_copy
from relreason_dagster.storage.read_copy import COPY_DIR, wal_path


def _nothing(con) -> None:
    return None


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "relreason.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE t AS SELECT 1 AS x")
    con.close()
    return path


def _copies(db: Path) -> list[Path]:
    return sorted((db.parent / COPY_DIR).glob("*.duckdb"))


def test_one_copy_while_the_file_is_unchanged_and_old_ones_go(db, monkeypatch):
    first = read_copy.read_copy(db, _nothing)
    assert read_copy.read_copy(db, _nothing).path == first.path and _copies(db) == [first.path]
    con = duckdb.connect(str(db))
    con.execute("INSERT INTO t VALUES (2)")
    con.close()
    monkeypatch.setattr(read_copy, "KEEP_S", 0.0)
    second = read_copy.read_copy(db, _nothing)
    assert second.path != first.path and _copies(db) == [second.path]
    con = duckdb.connect(str(second.path), read_only=True)
    assert con.execute("SELECT sum(x) FROM t").fetchone() == (3,)
    con.close()


def test_a_killed_writers_log_is_in_the_copy(db):
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import duckdb, os, sys; con = duckdb.connect(sys.argv[1]); "
            "con.execute('INSERT INTO t VALUES (40)'); os._exit(0)",
            str(db),
        ],
        check=True,
    )
    assert wal_path(db).exists()  # the commit is only in the write-ahead log
    copy = read_copy.read_copy(db, _nothing)
    con = duckdb.connect(str(copy.path), read_only=True)
    assert con.execute("SELECT sum(x) FROM t").fetchone() == (41,)
    con.close()
    assert not wal_path(copy.path).exists()


def test_while_a_writer_holds_the_file_the_newest_copy_is_read(db, tmp_path):
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; con = duckdb.connect(sys.argv[1]); print('ready', flush=True); "
            "time.sleep(600)",
            str(db),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert writer.stdout.readline().strip() == "ready"
        with pytest.raises(ConfigError, match="held by another process"):
            open_results(db, wait_s=0.2)  # no copy yet: nothing to read instead
        writer.kill()
        writer.wait()
        open_results(db).close()  # now a copy exists
        notes: list[str] = []
        # A writer that has written nothing yet: the copy is what the file holds, read without a note.
        writer = subprocess.Popen(writer.args, stdout=subprocess.PIPE, text=True)
        assert writer.stdout.readline().strip() == "ready"
        con = open_results(db, wait_s=0.2, note=notes.append)
        assert con.execute("SELECT x FROM t").fetchall() == [(1,)] and notes == []
        con.close()
        writer.kill()
        writer.wait()
        # A writer at work: the newest copy is read, and said to be older than the file.
        code = writer.args[2].replace("print(", "con.execute('INSERT INTO t VALUES (2)'); print(")
        writer = subprocess.Popen(
            [*writer.args[:2], code, *writer.args[3:]], stdout=subprocess.PIPE, text=True
        )
        assert writer.stdout.readline().strip() == "ready"
        con = open_results(db, wait_s=0.2, note=notes.append)
        try:
            assert con.execute("SELECT x FROM t").fetchall() == [(1,)]
        finally:
            con.close()
        assert len(notes) == 1 and "a run is writing the results; these are as of" in notes[0]
    finally:
        writer.kill()
        writer.wait()


def test_readers_copies_and_dbt_builds_are_not_launch_inputs(tmp_path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("RELREASON_HOME", str(home))
    monkeypatch.setenv("RELREASON_MODELS", str(tmp_path / "models.yaml"))
    (tmp_path / "models.yaml").write_text("models:\n  - name: m\n    litellm_model: scripted/m\n")
    (home / "lake").mkdir(parents=True)
    (home / "relreason.duckdb").write_bytes(b"stored")
    # Only the home's listing matters here: the code and the dbt project may change meanwhile
    # (other work in the same checkout), so they are not hashed in this test.
    monkeypatch.setattr(launch_record, "hash_code_and_engines", lambda *args, **kwargs: None)
    monkeypatch.setattr(launch_record, "hash_contents", lambda *args, **kwargs: None)
    key = {"command": "run", "models": ["m"], "profile": "smoke"}
    before = launch_record.fingerprint(key)
    for written in (f"{COPY_DIR}/relreason-abc.duckdb", "dbt/build-20260101-000000-x/run_results.json"):
        (home / written).parent.mkdir(parents=True, exist_ok=True)
        (home / written).write_bytes(b"x")
    assert launch_record.fingerprint(key) == before


def test_only_the_lakes_parquet_is_swapped_for_a_registered_relation():
    lake = "/data/o''k/lake/responses/**/*.parquet"
    sql = (
        f"CREATE VIEW raw.responses AS SELECT * FROM read_parquet('{lake}', union_by_name = true) "
        "UNION ALL SELECT * FROM read_parquet('/elsewhere/x.parquet')"
    )
    swapped, sources = swap_lake_sources(sql)
    assert sources == [("relreason_lake_responses", "responses", lake.replace("''", "'"))]
    assert swapped == (
        'CREATE VIEW raw.responses AS SELECT * FROM "temp".main."relreason_lake_responses" '
        "UNION ALL SELECT * FROM read_parquet('/elsewhere/x.parquet')"
    )
