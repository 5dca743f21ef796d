"""A reader's own copy of the DuckDB file, so no reader ever holds the file a run writes.

DuckDB lets one process write a file and refuses the writer while any other process has it open,
readers included: a `relreason sql` query that ran for minutes across a run's dbt step made dbt fail
with "Could not set lock on file".  So a reader holds the file only while copying it (opened
read-only, which takes DuckDB's shared lock: no writer is half-way through a write while the bytes
are copied), and queries the copy.  A writer can meet only that copy: dbt retries its connect
(``retries`` in dbt_project/profiles.yml) and relreason's own opens back off (``duckdb_io``), so a
read of any length never fails a run.

The copies live in ``<folder of the file>/read-copies/`` (a private temporary folder when that
cannot be written) and are shared: a copy is named after the file's identity (inode, size and
modification time of the file and of its write-ahead log), so while the file is unchanged every
reader opens the same copy and neither copies nor opens the file (a writer changes the identity
with its first write; one that has written nothing yet leaves the last committed state, which is
what the copy holds).  A copy is made under a temporary name and renamed into place when
complete; copies older than :data:`KEEP_S` that are no longer the newest are deleted (a reader that
has one open keeps reading it: the inode lives on), so the folder holds about one copy of the file.

While a writer holds the file (a dbt build takes seconds to minutes), a reader that finds a copy
reads that one after :data:`STALE_AFTER_S` and is told how old it is; without a copy it waits for
the writer (``wait_s``: `relreason sql --lock-wait S`, default ``duckdb_io.DEFAULT_LOCK_WAIT_S``).

Closing any descriptor of a file drops every POSIX lock this process holds on it, so the copy is
made in a process that has no other DuckDB connection to the file open (the CLI's readers; the
pipeline's writers never read through here).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from relreason_dagster.storage.duckdb_io import DEFAULT_LOCK_WAIT_S, is_lock_conflict, open_duckdb

COPY_DIR = "read-copies"
# A copy that is not the newest is deleted once it is this old (a reader that picked it a moment
# ago may still be about to open it).
KEEP_S = 120.0
# How long a reader waits for a writer before reading the newest copy instead.
STALE_AFTER_S = 3.0
# Temporary files of a copier that was killed are removed after this long.
TMP_KEEP_S = 3600.0


@dataclass(frozen=True)
class ReadCopy:
    """A prepared copy of the file; ``stale_since`` is set when it predates a writer still at work."""

    path: Path
    catalog: str  # the original file's catalog name (its stem): the name views refer to it by
    stale_since: float | None = None


def wal_path(path: Path) -> Path:
    return path.with_name(path.name + ".wal")


def _identity(path: Path) -> str:
    parts = []
    for p in (path, wal_path(path)):
        try:
            st = p.stat()
        except FileNotFoundError:
            parts.append("-")
        else:
            parts.append(f"{st.st_ino}:{st.st_size}:{st.st_mtime_ns}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def copy_folder(path: Path) -> Path:
    """``read-copies`` beside the file, or a private temporary folder when that one cannot be
    written (results read from a read-only place)."""
    folder = path.parent / COPY_DIR
    try:
        folder.mkdir(exist_ok=True)
        if os.access(folder, os.W_OK | os.X_OK):
            return folder
    except OSError:
        pass
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    folder = Path(tempfile.gettempdir()) / f"relreason-{COPY_DIR}-{os.getuid()}" / digest
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    return folder


def _copies(folder: Path, stem: str) -> list[Path]:
    """The finished copies in ``folder``, newest first."""
    found = []
    for p in folder.glob(f"{stem}-*.duckdb"):
        with contextlib.suppress(FileNotFoundError):
            found.append((p.stat().st_mtime, p))
    return [p for _, p in sorted(found, reverse=True)]


def _remove(path: Path) -> None:
    for p in (path, wal_path(path)):
        with contextlib.suppress(FileNotFoundError):
            p.unlink()


def _prune(folder: Path, stem: str, keep: Path) -> None:
    now = time.time()
    for p in _copies(folder, stem):
        with contextlib.suppress(FileNotFoundError):
            if p != keep and now - p.stat().st_mtime > KEEP_S:
                _remove(p)
    for p in folder.glob(".tmp-*"):
        with contextlib.suppress(FileNotFoundError):
            if now - p.stat().st_mtime > TMP_KEEP_S:
                p.unlink()


def _prepare(tmp: Path, catalog: str, prepare: Callable[[Any], None]) -> None:
    """Open the fresh copy writable under the original's catalog name, let ``prepare`` change it,
    and fold its write-ahead log in (the copy then is one file)."""
    con = duckdb.connect(":memory:")
    try:
        con.execute(f'ATTACH ? AS "{catalog}"', [str(tmp)])
        con.execute(f'USE "{catalog}"')
        prepare(con)
        con.execute(f'CHECKPOINT "{catalog}"')
        con.execute("USE memory")
        con.execute(f'DETACH "{catalog}"')
    finally:
        con.close()


def read_copy(
    path: Path,
    prepare: Callable[[Any], None],
    *,
    wait_s: float | None = None,
    stale_after_s: float = STALE_AFTER_S,
) -> ReadCopy:
    """A current copy of the DuckDB file at ``path``, made (and ``prepare``d) if the file changed.

    ``prepare(con)`` gets a connection to the new copy (writable, the current database) and may
    change it, e.g. point views at sources the reader supplies.  Raises ``duckdb.IOException`` when
    a writer holds the file past ``wait_s`` and no earlier copy exists.
    """
    folder = copy_folder(path)
    current = folder / f"{path.stem}-{_identity(path)}.duckdb"
    if current.exists():  # the file is as it was when this copy was made: no need to open it
        with contextlib.suppress(FileNotFoundError):
            os.utime(current)  # in use again: not pruned for another KEEP_S
            return ReadCopy(current, path.stem)
    wait = DEFAULT_LOCK_WAIT_S if wait_s is None else wait_s
    newest = _copies(folder, path.stem)
    try:
        # A shared lock: no writer is at work while the bytes are read.
        lock = open_duckdb(path, read_only=True, wait_s=min(wait, stale_after_s) if newest else wait)
    except duckdb.IOException as exc:
        if newest and is_lock_conflict(exc):
            with contextlib.suppress(FileNotFoundError):
                return ReadCopy(newest[0], path.stem, stale_since=newest[0].stat().st_mtime)
        raise
    try:
        final = folder / f"{path.stem}-{_identity(path)}.duckdb"
        if final.exists():
            os.utime(final)  # in use again: not pruned for another KEEP_S
            return ReadCopy(final, path.stem)
        tmp = folder / f".tmp-{os.getpid()}-{uuid.uuid4().hex}.duckdb"
        shutil.copyfile(path, tmp)
        if wal_path(path).exists():  # a writer was killed: its log holds committed changes
            shutil.copyfile(wal_path(path), wal_path(tmp))
    finally:
        lock.close()
    try:
        _prepare(tmp, path.stem, prepare)
        os.replace(tmp, final)
    finally:
        _remove(tmp)
    _prune(folder, path.stem, final)
    return ReadCopy(final, path.stem)
