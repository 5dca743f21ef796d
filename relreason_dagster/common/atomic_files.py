"""Files written whole or not at all: a temporary file in the same folder, fsync, rename.

Why: a file rewritten in place is cut off when the disk fills or the process dies mid-write, and
every later command then fails on it (a full disk during `models add --study all` left
``models.yaml`` ending mid-entry).  A rename inside one folder is atomic on POSIX file systems, so a
reader sees the old file or the new one, never a part.  On any failure the temporary file is
removed and the old file is untouched.

The target is what a plain write would change: a symlink is followed (its target is replaced, the
link stays), and a file the user made read-only is refused as a write in place would be (a rename
needs only the folder writable, so without this check it would silently replace a protected file).
"""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

_UMASK = os.umask(0o022)  # read once at import (os.umask is the only way, and it sets it too)
os.umask(_UMASK)


@contextlib.contextmanager
def atomic_open(
    path: str | os.PathLike[str], mode: str = "w", encoding: str | None = "utf-8", newline: str | None = None
) -> Iterator[IO]:
    """A handle on a temporary file beside ``path``; on a clean exit it is fsynced and renamed
    over ``path`` (keeping the old file's permission bits), else removed."""
    target = _target(Path(path))
    binary = "b" in mode
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent or ".")
    try:
        text_args = {} if binary else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, mode, **text_args) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        try:  # mkstemp makes 0600; the file keeps its old bits, a new one gets the usual ones
            bits = os.stat(target).st_mode & 0o7777
        except OSError:
            bits = 0o666 & ~_UMASK
        with contextlib.suppress(OSError):
            os.chmod(tmp, bits)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_folder(target.parent)


def write_text(path: str | os.PathLike[str], text: str, encoding: str = "utf-8") -> None:
    """``Path.write_text``, whole or not at all."""
    with atomic_open(path, "w", encoding=encoding) as handle:
        handle.write(text)


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """``Path.write_bytes``, whole or not at all."""
    with atomic_open(path, "wb") as handle:
        handle.write(data)


def _target(path: Path) -> Path:
    """The file a write to ``path`` changes; an existing folder or read-only file is refused before
    anything is written (the write would fail only at the rename, after filling the disk)."""
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    if path.is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if path.exists() and not os.access(path, os.W_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
    return path


def _fsync_folder(folder: Path) -> None:
    """The rename itself survives a crash only once the folder is synced (best effort)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder or ".", os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
