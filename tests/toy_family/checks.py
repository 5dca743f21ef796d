"""The toy family's bounds for the shared data-quality checks."""

from relreason_dagster.benchmarks.base import QualityBounds

QUALITY = QualityBounds(label_balance={"*": (0.5, 0.5)}, token_ranges={"direct": (5, 64)}, min_parse_rate=0.5)
