"""Validating a dataframe with Great Expectations 1.x, and how a check's outcome reads.

In ``common/``, under ``data_quality/suites.py``: a family's own checks (``benchmarks/<family>/checks.py``)
build their expectations and call :func:`validate` here, while ``suites.py`` holds the shared suites,
whose bounds it looks up in the registered families (``data_quality/targets.py``), so a family importing
it would import every family back.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import pandas as pd

# A check that had nothing to look at proved nothing: it says so instead of "passed".
SKIPPED_NO_ROWS = "skipped (no rows)"


def check_state(passed: bool, rows_checked: int | None, warn: bool = False) -> str:
    """How a check's outcome reads: passed, skipped (no rows), warning (a WARN check failed) or FAILED.

    ``rows_checked`` None (a check that does not count rows) never reads as skipped.
    """
    if passed:
        return SKIPPED_NO_ROWS if rows_checked == 0 else "passed"
    return "warning" if warn else "FAILED"


_CONTEXT: Any = None


def _context() -> Any:
    """One ephemeral GX context per process, progress bars and analytics off."""
    global _CONTEXT
    if _CONTEXT is None:
        import great_expectations as gx

        logging.getLogger("great_expectations").setLevel(logging.WARNING)
        _CONTEXT = gx.get_context(mode="ephemeral")
        try:
            from great_expectations.data_context.types.base import ProgressBarsConfig

            _CONTEXT.variables.progress_bars = ProgressBarsConfig(globally=False)
        except Exception:  # noqa: BLE001 - only cosmetics
            pass
    return _CONTEXT


@dataclass
class SuiteResult:
    name: str
    success: bool
    checked: int
    failures: list[dict[str, Any]]
    table: list[dict[str, Any]]

    def summary(self) -> str:
        state = "passed" if self.success else f"FAILED on {len(self.failures)} row(s)"
        return f"{self.name}: {state} ({self.checked} rows checked)"


def validate(name: str, df: pd.DataFrame, expectations: list[Any], id_cols: list[str]) -> SuiteResult:
    """Validate ``df`` against ``expectations`` (GX expectation objects) in suite ``name``."""
    import great_expectations as gx

    ctx = _context()
    for existing in (name,):
        try:
            ctx.validation_definitions.delete(existing)
        except Exception:  # noqa: BLE001 - absent on first use
            pass
        try:
            ctx.suites.delete(existing)
        except Exception:  # noqa: BLE001
            pass
        try:
            ctx.data_sources.delete(existing)
        except Exception:  # noqa: BLE001
            pass
    source = ctx.data_sources.add_pandas(name=name)
    batch_def = source.add_dataframe_asset(name=name).add_batch_definition_whole_dataframe(name)
    suite = ctx.suites.add(gx.ExpectationSuite(name=name))
    for exp in expectations:
        suite.add_expectation(exp)
    vd = ctx.validation_definitions.add(gx.ValidationDefinition(name=name, data=batch_def, suite=suite))
    if df.empty:
        return SuiteResult(name, True, 0, [], [])
    result = vd.run(batch_parameters={"dataframe": df}, result_format="COMPLETE")
    bad_index: set[int] = set()
    for r in result.results:
        if not r.success:
            bad_index.update(r.result.get("unexpected_index_list") or [])
    failures = [df.loc[i, id_cols].to_dict() | {"row": i} for i in sorted(bad_index) if i in df.index]
    table = df.to_dict(orient="records")
    return SuiteResult(name, bool(result.success), len(df), failures, table)
