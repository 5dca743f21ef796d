"""A user's file that cannot be read or written is one line naming the file and the fix.

Why: the OS says "Permission denied", "Read-only file system", "Is a directory" or "No space left on
device" as an ``OSError`` that, left alone, reaches the terminal as a 27-line traceback (``models add
--study all`` on a read-only ``models.yaml`` did).  What to do about it depends on the file, so the
caller names the fix; the wording per cause lives here, once.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator

from relreason_dagster.errors import ConfigError

_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)  # no room: the disk, a quota, a file size limit
_FIXES = {
    "write": "make it and its folder writable, or choose another path",
    "read": "check the path and its permissions",
}


def file_error(
    path: str | os.PathLike[str], exc: OSError, *, doing: str = "write", fix: str = ""
) -> ConfigError:
    """The one line for ``exc``, raised while trying to ``doing`` (read, write) ``path``: the file, what
    went wrong in the OS's words, and ``fix`` (a default per ``doing`` when not given)."""
    where = str(path)
    reason = exc.strerror or str(exc)
    fix = fix or _FIXES.get(doing, _FIXES["read"])
    if exc.errno in _FULL:
        return ConfigError(
            f"{where}: not written ({reason}); it is as it was: free space there and run again"
        )
    if isinstance(exc, FileNotFoundError) and doing == "write":
        return ConfigError(f"{where}: cannot write it: its folder does not exist; create it, or {fix}")
    if isinstance(exc, IsADirectoryError):
        return ConfigError(f"{where}: cannot {doing} it: it is a folder; {fix}")
    return ConfigError(f"{where}: cannot {doing} it ({reason}); {fix}")


@contextlib.contextmanager
def user_file(path: str | os.PathLike[str], *, doing: str = "write", fix: str = "") -> Iterator[None]:
    """Turn an ``OSError`` inside the block into :func:`file_error`'s one-line ``ConfigError``."""
    try:
        yield
    except OSError as exc:
        raise file_error(path, exc, doing=doing, fix=fix) from None
