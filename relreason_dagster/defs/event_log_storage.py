"""Dagster's SQLite event log, keeping its database connections open between events.

Every step event (each dbt model's output, each dbt test's check result, each log line) is written to
the event log, and Dagster's ``SqliteEventLogStorage`` builds a new SQLAlchemy engine and opens a new
SQLite connection for every write, twice for an asset event (the run's shard, then the index shard).
A run's dbt step emits ~900 events; profiled on two cores, storing them cost 13.4 s of the 50 s of a
one-family run, ~6.5 s of it opening and closing connections, in the process that also reads dbt's
output (so dbt waits on it).  This subclass keeps one engine with a small pool per shard it writes,
which is what SQLAlchemy does for a file database by default.

The writes stay what Dagster's are: the same statements, each in its own transaction under the same
lock, on the same files (``<DAGSTER_HOME>/history/runs``), so the UI, the daemon and other processes
read them as before.  Connections are per process: after a fork the child drops the parent's engines
unused (:meth:`_engine` compares the process id), and only the most recent shards keep an engine (a
long-lived UI process opens the shard of every run it shows).
"""

from __future__ import annotations

import contextlib
import os
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

# Private Dagster API, kept: Dagster exports no event log storage class, and an `event_log_storage:`
# entry in dagster.yaml must name an EventLogStorage.  Besides the class, this module relies on its
# ``_connect(shard)``, ``_db_lock``, ``_initialized_dbs``, ``_initdb(engine)`` and
# ``conn_string_for_shard(shard)``; tests/unit/orchestration/test_dagster_private_api.py fails with
# the names when a Dagster release moves or reshapes any of them.
from dagster._core.storage.event_log import SqliteEventLogStorage
from sqlalchemy import create_engine  # what dagster._core.storage.sql.create_engine re-exports
from sqlalchemy.engine import Connection, Engine

# Seconds a write waits on another process's lock: Dagster's own SQLite storages' value
# (dagster._core.storage.sqlite.SQLITE_BUSY_TIMEOUT_SECONDS; the upgrade test compares them).
SQLITE_BUSY_TIMEOUT_SECONDS = 30
# Shards whose engine stays open: a run's own shard and the index shard, plus a few runs a UI shows.
KEEP_ENGINES = 8


class PooledSqliteEventLogStorage(SqliteEventLogStorage):
    """:class:`SqliteEventLogStorage` with one engine per shard kept open (see the module's docstring)."""

    def __init__(self, base_dir: str, inst_data: Any = None) -> None:
        self._engines: OrderedDict[str, Engine] = OrderedDict()
        self._engines_pid = os.getpid()
        super().__init__(base_dir, inst_data)

    @classmethod
    def from_config_value(cls, inst_data: Any, config_value: Any) -> PooledSqliteEventLogStorage:
        # Dagster's own builds its class by name, not ``cls``.
        return cls(inst_data=inst_data, **dict(config_value))

    def _engine(self, shard: str) -> Engine:
        """This process's engine for ``shard`` (called with ``self._db_lock`` held)."""
        if self._engines_pid != os.getpid():  # a forked child: the parent's connections are not ours
            for engine in self._engines.values():
                engine.dispose(close=False)
            self._engines.clear()
            self._engines_pid = os.getpid()
        engine = self._engines.get(shard)
        if engine is None:
            engine = create_engine(
                self.conn_string_for_shard(shard),
                pool_size=1,
                max_overflow=2,
                connect_args={"timeout": SQLITE_BUSY_TIMEOUT_SECONDS, "check_same_thread": False},
            )
            self._engines[shard] = engine
            while len(self._engines) > KEEP_ENGINES:
                _, oldest = self._engines.popitem(last=False)
                oldest.dispose()
        else:
            self._engines.move_to_end(shard)
        return engine

    @contextlib.contextmanager
    def _connect(self, shard: str) -> Iterator[Connection]:
        with self._db_lock:
            engine = self._engine(shard)
            if shard not in self._initialized_dbs:
                self._initdb(engine)
                self._initialized_dbs.add(shard)
            with engine.connect() as conn, conn.begin():
                yield conn

    def _close_engines(self) -> None:
        with self._db_lock:
            for engine in self._engines.values():
                engine.dispose()
            self._engines.clear()

    def wipe(self) -> None:
        """Close this process's connections before Dagster deletes the shards' files."""
        self._close_engines()
        super().wipe()

    def dispose(self) -> None:
        self._close_engines()
        super().dispose()
