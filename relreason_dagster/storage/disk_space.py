"""Whether an error is a full disk, and where: the test every command and the pipeline share.

A full disk reaches the code as many different errors (the OS's ENOSPC, SQLite's "database or disk
is full" or "disk I/O error" from Dagster's storage, DuckDB, pyarrow); telling them apart here lets
the CLI print one line for all of them.  It reads only where files live (``paths.py``) and the free
space there, so it sits with storage and imports nothing above.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from typing import Any

from relreason_dagster import paths

# What a full disk looks like in the errors of the layers below: the OS, SQLite (Dagster's storage),
# DuckDB, pyarrow.  SQLite says "disk I/O error" for a write the OS refused for lack of space.
_NO_SPACE_TEXT = ("no space left on device", "database or disk is full", "[errno 28]")
_IO_ERROR_TEXT = ("disk i/o error",)
# Below this much free space, an I/O error is taken for a full disk.
_LOW_SPACE_BYTES = 64 * 2**20


def _space_paths() -> list[Path]:
    """Where a run writes: the home (DuckDB file, Dagster storage, logs), the lake, the temp folder."""
    where = [paths.relreason_home()]
    lake = paths.lake_url()
    if "://" not in lake or lake.startswith("file://"):
        where.append(Path(lake.removeprefix("file://")))
    if os.environ.get("DAGSTER_HOME"):
        where.append(Path(os.environ["DAGSTER_HOME"]))
    where.append(Path(tempfile.gettempdir()))
    return where


def _free_bytes(path: Path) -> int | None:
    for candidate in (path, *path.parents):
        try:
            stat = os.statvfs(candidate)
        except OSError:
            continue
        return stat.f_bavail * stat.f_frsize
    return None


def _fullest(paths: list[Path]) -> tuple[Path, int | None]:
    """The path with the least free space, and that space."""
    known = [(free, p) for p in paths if (free := _free_bytes(p)) is not None]
    if not known:
        return paths[0], None
    free, path = min(known, key=lambda item: item[0])
    return path, free


def no_space(error: BaseException | str) -> bool:
    """Whether ``error`` (an exception, its causes, or a failure's text) is a full disk."""
    seen: set[int] = set()
    texts = []
    item: Any = error
    while item is not None and id(item) not in seen:
        seen.add(id(item))
        if isinstance(item, str):
            texts.append(item)
            break
        if isinstance(item, OSError) and item.errno == errno.ENOSPC:
            return True
        texts.append(f"{type(item).__name__}: {item}")
        item = item.__cause__ or item.__context__
    text = " ".join(texts).lower()
    if any(marker in text for marker in _NO_SPACE_TEXT):
        return True
    if any(marker in text for marker in _IO_ERROR_TEXT):
        _path, free = _fullest(_space_paths())
        return free is not None and free < _LOW_SPACE_BYTES
    return False


def no_space_line() -> str:
    """The one line that replaces a full disk's errors (tracebacks of SQLite, DuckDB, the OS)."""
    path, _free = _fullest(_space_paths())
    return f"no space left on device under {path}: free space and run again (nothing stored is lost)"
