"""The home's event log keeps its SQLite connections open between events (defs/event_log_storage.py).

Dagster's own SQLite event log opens a connection per write; relreason's home writes the same files
through one engine per shard.  Checked here: a home's instance uses it, at Dagster's default place;
events written and read back are the same as through Dagster's class on the same files; the number of
SQLite connections opened for many events stays bounded; and a forked child neither reuses nor closes
the parent's connections.
"""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg
import pytest
from dagster._core.events.log import EventLogEntry
from dagster._core.storage.event_log import SqliteEventLogStorage
from sqlalchemy import event
from sqlalchemy.engine import Engine

from relreason_dagster import env
from relreason_dagster.defs.event_log_storage import KEEP_ENGINES, PooledSqliteEventLogStorage

RUN_ID = "0" * 8 + "-run"


def _log_entry(run_id: str, i: int) -> EventLogEntry:
    return EventLogEntry(
        error_info=None,
        level=20,
        user_message=f"message {i}",
        run_id=run_id,
        timestamp=1_700_000_000.0 + i,
    )


@pytest.fixture
def base_dir(tmp_path) -> Path:
    return tmp_path / "history" / "runs"


def test_a_home_s_instance_uses_it_at_dagster_s_default_place(tmp_path, monkeypatch):
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    monkeypatch.setattr(env, "_dagster_home_set_here", None)
    home = env.ensure_dagster_home(tmp_path / "relreason")
    with dg.DagsterInstance.get() as instance:
        storage = instance.event_log_storage
        assert isinstance(storage, PooledSqliteEventLogStorage)
        assert Path(storage._base_dir) == home / "history" / "runs"
    # Opened by folder from a process whose DAGSTER_HOME is another home (as a test or a script does).
    monkeypatch.setenv("DAGSTER_HOME", str(tmp_path / "elsewhere"))
    instance = dg.DagsterInstance.from_config(str(home))
    try:
        assert Path(instance.event_log_storage._base_dir) == home / "history" / "runs"
    finally:
        instance.dispose()


def test_events_read_back_alike_through_dagster_s_own_class(base_dir):
    pooled = PooledSqliteEventLogStorage(str(base_dir))
    for i in range(30):
        pooled.store_event(_log_entry(RUN_ID, i))
    mine = [e.user_message for e in pooled.get_logs_for_run(RUN_ID)]
    pooled.dispose()
    theirs = SqliteEventLogStorage(str(base_dir))
    assert [e.user_message for e in theirs.get_logs_for_run(RUN_ID)] == mine
    assert mine == [f"message {i}" for i in range(30)]
    theirs.dispose()


def test_many_events_open_few_connections(base_dir):
    opened: list[object] = []

    def count(dbapi_connection: object, _record: object) -> None:
        opened.append(dbapi_connection)

    def store_many(storage: SqliteEventLogStorage, run_id: str) -> int:
        opened.clear()
        event.listen(Engine, "connect", count)
        try:
            for i in range(200):
                storage.store_event(_log_entry(run_id, i))
        finally:
            event.remove(Engine, "connect", count)
        storage.dispose()
        return len(opened)

    # Dagster's own class opens a connection per event; the pool opens the run's shard once.
    assert store_many(SqliteEventLogStorage(str(base_dir)), "theirs") >= 200
    assert 1 <= store_many(PooledSqliteEventLogStorage(str(base_dir)), RUN_ID) <= 3


def test_only_the_latest_shards_keep_an_engine(base_dir):
    pooled = PooledSqliteEventLogStorage(str(base_dir))
    for n in range(KEEP_ENGINES + 5):
        pooled.store_event(_log_entry(f"run-{n}", 0))
    assert len(pooled._engines) == KEEP_ENGINES
    assert f"run-{KEEP_ENGINES + 4}" in pooled._engines and "run-0" not in pooled._engines
    pooled.dispose()
    assert pooled._engines == {}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_opens_its_own_connection(base_dir):
    pooled = PooledSqliteEventLogStorage(str(base_dir))
    pooled.store_event(_log_entry(RUN_ID, 0))
    parent_engine = pooled._engines[RUN_ID]
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: write through its own engine, report whether it was a new one
        try:
            pooled.store_event(_log_entry(RUN_ID, 1))
            os.write(write, b"new" if pooled._engines[RUN_ID] is not parent_engine else b"same")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert os.read(read, 8) == b"new"
    pooled.store_event(_log_entry(RUN_ID, 2))  # the parent's connection still works after the child
    assert [e.user_message for e in pooled.get_logs_for_run(RUN_ID)] == [f"message {i}" for i in range(3)]
    pooled.dispose()
