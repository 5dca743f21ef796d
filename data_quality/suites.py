"""Great Expectations 1.x suites, as code, and one function to validate a dataframe with them.

Each check builds a small per-group dataframe (positive share per task, tokens
per prompt, parse rate per model) with its bounds as columns, then validates it
with an ephemeral GX context.  The result is a plain dict the Dagster asset
checks and `relreason status` show either way, passing or failing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import pandas as pd

from data_quality import targets

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


def label_balance(samples: pd.DataFrame) -> SuiteResult:
    """Positive share of target cells per (benchmark, task) within the configured bounds."""
    import great_expectations.expectations as gxe

    grouped = (
        samples.groupby(["benchmark", "task"], as_index=False)[["gold_pos", "n_cells"]].sum()
        if not samples.empty
        else pd.DataFrame(columns=["benchmark", "task", "gold_pos", "n_cells"])
    )
    grouped["pos_share"] = grouped["gold_pos"] / grouped["n_cells"].where(grouped["n_cells"] > 0)
    bounds = [targets.label_bounds(b, t) for b, t in zip(grouped["benchmark"], grouped["task"], strict=True)]
    grouped["min_share"] = [lo for lo, _ in bounds]
    grouped["max_share"] = [hi for _, hi in bounds]
    grouped["within"] = (grouped["pos_share"] >= grouped["min_share"]) & (
        grouped["pos_share"] <= grouped["max_share"]
    )
    expectations = [
        gxe.ExpectColumnValuesToNotBeNull(column="pos_share"),
        gxe.ExpectColumnValuesToBeInSet(column="within", value_set=[True]),
    ]
    return validate("label_balance", grouped.reset_index(drop=True), expectations, ["benchmark", "task"])


def token_lengths(prompts: pd.DataFrame) -> SuiteResult:
    """Every prompt's input tokens within the configured range of its (benchmark, setting)."""
    import great_expectations.expectations as gxe

    df = (
        prompts[["prompt_id", "benchmark", "setting", "input_tokens", "tokenizer"]]
        .copy()
        .reset_index(drop=True)
    )
    ranges = [targets.token_range(b, s) for b, s in zip(df["benchmark"], df["setting"], strict=True)]
    df["min_tokens"] = [lo for lo, _ in ranges]
    df["max_tokens"] = [hi for _, hi in ranges]
    df["within"] = (df["input_tokens"] >= df["min_tokens"]) & (df["input_tokens"] <= df["max_tokens"])
    expectations = [
        gxe.ExpectColumnValuesToNotBeNull(column="input_tokens"),
        gxe.ExpectColumnValuesToBeInSet(column="within", value_set=[True]),
    ]
    return validate("token_lengths", df, expectations, ["prompt_id", "benchmark", "setting", "input_tokens"])


def parse_rate(parsed: pd.DataFrame, min_rate: float = targets.MIN_PARSE_RATE) -> SuiteResult:
    """Share of readable answers per (benchmark, model) at least ``min_rate``."""
    import great_expectations.expectations as gxe

    df = parsed[parsed["parse_status"].isin(["ok", "na"])]
    grouped = (
        df.assign(ok=df["parse_status"].eq("ok"))
        .groupby(["benchmark", "model"], as_index=False)
        .agg(n=("ok", "size"), n_ok=("ok", "sum"))
    )
    grouped["parse_rate"] = grouped["n_ok"] / grouped["n"]
    expectations = [gxe.ExpectColumnValuesToBeBetween(column="parse_rate", min_value=min_rate, max_value=1.0)]
    return validate(
        "parse_rate", grouped.reset_index(drop=True), expectations, ["benchmark", "model", "parse_rate"]
    )
