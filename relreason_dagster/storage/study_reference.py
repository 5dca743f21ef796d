"""The studies' published numbers, read from the families' ``published.csv`` into ``raw.study_reference``.

Each family ships the numbers its study printed as a CSV in its own folder (found by
``benchmarks.registry.published_files``); this module knows only the file format
(``benchmarks.base.PUBLISHED_COLUMNS``), never a family, so a new family's rows arrive with no change
here or in dbt (``marts.study_reference`` selects the table whole).  A malformed file is a one-line
error naming the file, the line and the fix: a published number that cannot be read must not turn
silently into a missing one.
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.base import COMPARABILITY_COLUMNS, PUBLISHED_COLUMNS
from relreason_dagster.common.duckdb_rows import replace_rows
from relreason_dagster.errors import ConfigError

TABLE = "study_reference"
INTEGER_COLUMNS = ("n", "length")
REQUIRED = ("family", "source", "model", "metric")
# Bumped when the rows a file gives change for the same bytes (the stored rows are then re-read).
READER_VERSION = "study-reference-v3"
# An optional column after ``note`` that is not a key: ``true`` when the printed value is a misprint (the
# paper's own arithmetic or its released outputs give another value; the evidence goes in ``note``).  A
# misprinted cell is never compared as printed, so it must also say ``comparable`` false and why.
MISPRINT_COLUMN = "misprint"


def file_key(path: Path) -> str:
    """What a file's stored rows were read from: its bytes and the reader's version."""
    return hashlib.sha256(READER_VERSION.encode() + b"\0" + path.read_bytes()).hexdigest()


def _integer(text: str, where: str, column: str) -> int | None:
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        raise ConfigError(
            f"{where}: {column} {text!r} is not a whole number; write digits or leave it empty"
        ) from None


def _number(text: str, where: str) -> float | None:
    if text == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise ConfigError(
            f"{where}: value {text!r} is not a number; write it in the marts' unit (0.85 for 85%) or "
            "leave it empty for N/A (the paper's text goes in 'printed')"
        ) from None
    if not math.isfinite(value):
        raise ConfigError(f"{where}: value {text!r} is not finite; leave it empty for N/A")
    return value


def _comparability(cells: Mapping[str, str], where: str) -> tuple[bool, str | None]:
    """The row's ``comparable`` (empty or absent: true) and ``why_not``; a false one must say why."""
    text = cells.get("comparable", "").lower()
    why = cells.get("why_not", "") or None
    if text not in ("", "true", "false"):
        raise ConfigError(f"{where}: comparable {text!r} must be true, false or empty (true)")
    comparable = text != "false"
    if not comparable and not why:
        raise ConfigError(f"{where}: comparable is false but why_not is empty; say in one line why not")
    if comparable and why:
        raise ConfigError(f"{where}: why_not is set on a comparable row; set comparable to false or drop it")
    return comparable, why


def _misprint(cells: Mapping[str, str], where: str, comparable: bool) -> bool:
    """The row's ``misprint`` (empty or absent: false); a misprint needs its evidence, and is not
    comparable."""
    text = cells.get(MISPRINT_COLUMN, "").lower()
    if text not in ("", "true", "false"):
        raise ConfigError(f"{where}: misprint {text!r} must be true, false or empty (false)")
    if text != "true":
        return False
    if not cells.get("note"):
        raise ConfigError(f"{where}: misprint is true but note is empty; give the evidence there")
    if comparable:
        raise ConfigError(
            f"{where}: a misprint cannot be compared as printed; set comparable false and say why in why_not"
        )
    return True


def read_published(family: str, path: Path) -> list[dict[str, Any]]:
    """The ``raw.study_reference`` rows of family ``family``'s ``published.csv`` at ``path``."""
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.reader(handle)
        header = next(reader, None)
        if header is None:
            raise ConfigError(
                f"{path}: empty file; its first line is the header {','.join(PUBLISHED_COLUMNS)}"
            )
        header = [h.strip() for h in header]
        if tuple(header[: len(PUBLISHED_COLUMNS)]) != PUBLISHED_COLUMNS:
            raise ConfigError(
                f"{path}: the header must start with {','.join(PUBLISHED_COLUMNS)} (extra key columns "
                f"after note); found {','.join(header)}"
            )
        extra = [
            h for h in header[len(PUBLISHED_COLUMNS) :] if h not in (*COMPARABILITY_COLUMNS, MISPRINT_COLUMN)
        ]
        if len(set(header)) != len(header) or any(not name for name in extra):
            raise ConfigError(
                f"{path}: every header column needs a name of its own; found {','.join(header)}"
            )
        rows: list[dict[str, Any]] = []
        for values in reader:
            where = f"{path}:{reader.line_num}"
            if not any(v.strip() for v in values):
                continue  # a blank line
            if len(values) != len(header):
                raise ConfigError(
                    f"{where}: {len(values)} fields for {len(header)} columns; quote a field that "
                    "holds a comma"
                )
            cells = dict(zip(header, (v.strip() for v in values), strict=True))
            missing = [c for c in REQUIRED if not cells[c]]
            if missing:
                raise ConfigError(f"{where}: {', '.join(missing)} is empty; every row names them")
            if cells["family"] != family:
                raise ConfigError(
                    f"{where}: family {cells['family']!r} in the file of family {family!r}; a family's "
                    "file holds its own rows only"
                )
            row: dict[str, Any] = {c: (cells[c] or None) for c in PUBLISHED_COLUMNS}
            for column in INTEGER_COLUMNS:
                row[column] = _integer(cells[column], where, column)
            row["value"] = _number(cells["value"], where)
            row["comparable"], row["why_not"] = _comparability(cells, where)
            row[MISPRINT_COLUMN] = _misprint(cells, where, row["comparable"])
            row["keys"] = json.dumps({k: cells[k] for k in extra if cells[k]}, sort_keys=True)
            row["line"] = reader.line_num
            rows.append(row)
    return rows


def published_rows(files: Mapping[str, Path]) -> dict[str, list[dict[str, Any]]]:
    """Every family's rows, ``{family: rows}``, from ``{family: published.csv}``."""
    return {family: read_published(family, path) for family, path in files.items()}


def store_family(con: Any, family: str, rows: list[dict[str, Any]]) -> int:
    """Replace family ``family``'s stored published numbers with ``rows``; returns how many."""
    return replace_rows(con, TABLE, rows, "family = ?", [family])


def drop_other_families(con: Any, keep: list[str]) -> int:
    """Delete the rows of families not in ``keep`` (no longer registered, or their file is gone)."""
    where = f"family NOT IN ({', '.join('?' for _ in keep)})" if keep else "true"
    (n,) = con.execute(f"SELECT count(*) FROM raw.{TABLE} WHERE {where}", keep).fetchone()
    con.execute(f"DELETE FROM raw.{TABLE} WHERE {where}", keep)
    return int(n)
