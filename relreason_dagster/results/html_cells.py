"""Text of a report cell: escaped, and numbers that keep their digits when they are very small.

Why a module: the report's generic sections (A vs B, repeated sampling, reasoning traces) print
p-values and correlations in the same cells; a p-value of 0.000012 must not read as 0.000 in one
section and as 1.2e-05 in another.
"""

from __future__ import annotations

import html
from typing import Any


def escape(value: Any) -> str:
    """``value`` as HTML text; None as empty."""
    return html.escape("" if value is None else str(value))


def number(value: Any, digits: int = 3) -> str:
    """A number for the page: ``digits`` decimals, or significant digits when 0 < |x| < 0.001; None as —."""
    if value is None:
        return "—"
    x = float(value)
    return f"{x:.{digits}g}" if 0 < abs(x) < 1e-3 else f"{x:.{digits}f}"
