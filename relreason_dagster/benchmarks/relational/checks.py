"""The relational family's data-quality bounds (the shared checks read them; it has no check of its own).

Label balance is the positive share of target cells per task: binary relations are sparse by
nature, unary ones should be neither all-true nor all-false.
"""

from __future__ import annotations

from relreason_dagster.benchmarks.base import FamilyCheck, QualityBounds

QUALITY = QualityBounds(
    label_balance={
        "*": (0.005, 0.95),
        "HasFather": (0.2, 0.95),
        "HasSister": (0.05, 0.9),
        "1-Outdegree": (0.05, 0.9),
        "2-Outdegree": (0.05, 0.9),
        "IsMGUncle": (0.0, 0.2),
    },
    token_ranges={"nl": (50, 32768), "nl_cot": (50, 32768), "tv": (50, 65536)},
)

CHECKS: tuple[FamilyCheck, ...] = ()
