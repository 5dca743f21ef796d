"""How numbers are shown in tables people read (CLI tables, check and preview tables in the UI).

Three significant digits: enough to compare models, short enough to read a row at a glance.  Exports,
``--json`` and ``--csv`` keep full precision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

SIGNIFICANT_DIGITS = 3


def round_sig(value: Any, digits: int = SIGNIFICANT_DIGITS) -> Any:
    """``value`` rounded to ``digits`` significant digits when it is a finite float (or decimal)."""
    if isinstance(value, Decimal):
        value = float(value)
    if not isinstance(value, float) or not math.isfinite(value) or value == 0.0:
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def rounded_row(row: Sequence[Any], digits: int = SIGNIFICANT_DIGITS) -> list[Any]:
    return [round_sig(v, digits) for v in row]


def rounded_dicts(
    rows: Sequence[Mapping[str, Any]], digits: int = SIGNIFICANT_DIGITS
) -> list[dict[str, Any]]:
    return [{k: round_sig(v, digits) for k, v in row.items()} for row in rows]
