"""The paper's Table 2 as transcribed in the family's ``published.csv``, looked up per model and column.

The numbers are data with a source, never typed into code: ``published.csv`` (in the family folder,
kept with the trail back to the paper text) holds one row per printed cell, ``value`` a share in
[0, 1], ``metric`` ``accuracy`` or ``real_life_ratio``.  Until that file exists every lookup is
``None`` and ``kor rescore`` prints the Table 2 column as missing.

Model names: a file's model (``gpt-4o``) is matched to the table's (``GPT-4o-2024-05-13``)
case-insensitively, exactly or with a date suffix (``-20…``) on the table's side; a citation in
parentheses is ignored, and ``.`` reads as ``-`` (``claude-3-5-sonnet`` is Table 3's
``Claude-3.5-sonnet``).  Categories match case-insensitively; ``overall`` is the Overall column.
``published_value`` looks up the same way in another table (Table 3: category ``mixed``, setting
``Multi-Q`` / ``Multi-R`` / ``Multi-RQ`` / ``overall``).
"""

from __future__ import annotations

import csv
import functools
import re
from pathlib import Path

PUBLISHED_CSV = Path(__file__).resolve().parent.parent / "published.csv"
TABLE = "Table 2"
_CITATION_RE = re.compile(r"\s*\(.*?\)\s*")
_DATE_SUFFIX = r"-20\d\d(-\d\d-\d\d|\d{4})"
_SETTINGS = ("zero_shot", "three_shot")


def _norm(name: str) -> str:
    return _CITATION_RE.sub("", name).strip().lower().replace(".", "-")


def _setting(value: str) -> str:
    return value.strip().lower().replace("-", "_")


@functools.cache
def _rows(path: Path, table: str = TABLE) -> tuple[dict[str, str], ...]:
    if not path.is_file():
        return ()
    with path.open(encoding="utf-8", newline="") as handle:
        return tuple(
            row
            for row in csv.DictReader(handle)
            if row.get("family", "kor") == "kor" and (row.get("source") or "").startswith(table)
        )


def _model_matches(file_model: str, table_model: str) -> bool:
    ours, theirs = _norm(file_model), _norm(table_model)
    return theirs == ours or re.fullmatch(re.escape(ours) + _DATE_SUFFIX, theirs) is not None


def table2_value(
    model: str, category: str, metric: str = "accuracy", setting: str = "", path: Path = PUBLISHED_CSV
) -> float | None:
    """Table 2's cell for ``model`` × ``category`` (``metric`` accuracy or real_life_ratio), or None."""
    found: list[float] = []
    for row in _rows(path):
        if row.get("metric") != metric or _norm(row.get("category") or row.get("task") or "") != category:
            continue
        row_setting = _setting(row.get("setting") or "")
        if setting and row_setting in _SETTINGS and row_setting != _setting(setting):
            continue
        if not _model_matches(model, row.get("model") or ""):
            continue
        try:
            found.append(float(row["value"]))
        except (KeyError, ValueError):
            continue
    return found[0] if len(set(found)) == 1 else None


def published_value(
    table: str, model: str, category: str, metric: str, setting: str, path: Path = PUBLISHED_CSV
) -> float | None:
    """``table``'s cell for ``model`` x ``category`` x ``setting`` x ``metric`` (exact setting), or None."""
    found = {
        float(row["value"])
        for row in _rows(path, table)
        if row.get("metric") == metric
        and _norm(row.get("category") or "") == category.lower()
        and (row.get("setting") or "") == setting
        and (row.get("value") or "") != ""
        and _model_matches(model, row.get("model") or "")
    }
    return found.pop() if len(found) == 1 else None
