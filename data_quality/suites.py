"""Great Expectations 1.x suites, as code, and one function to validate a dataframe with them.

Each check builds a small per-group dataframe (positive share per task, tokens
per prompt, parse rate per model) with its bounds as columns, then validates it
with an ephemeral GX context (``common/gx_validation.py``).  The result is a plain dict the Dagster asset
checks and `relreason status` show either way, passing or failing.
"""

from __future__ import annotations

import pandas as pd

from data_quality import targets
from relreason_dagster.common.gx_validation import SuiteResult, validate


def label_balance(samples: pd.DataFrame) -> SuiteResult:
    """Positive share of target cells per (benchmark, task, cell) within the configured bounds.

    ``cell`` is a sample's balance cell (FLenQA: length/padding/position, which must be exactly
    50/50); families without one are checked per task.
    """
    import great_expectations.expectations as gxe

    df = samples.copy()
    df["cell"] = df["cell"].fillna("") if "cell" in df else ""
    grouped = (
        df.groupby(["benchmark", "task", "cell"], as_index=False)[["gold_pos", "n_cells"]].sum()
        if not df.empty
        else pd.DataFrame(columns=["benchmark", "task", "cell", "gold_pos", "n_cells"])
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
    return validate(
        "label_balance", grouped.reset_index(drop=True), expectations, ["benchmark", "task", "cell"]
    )


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


def token_targets(prompts: pd.DataFrame) -> SuiteResult:
    """Prompts with a length target (FLenQA): exact tokens within ``target_tolerance`` of ``target_tokens``.

    Prompts whose key text alone is over the target (``target_exempt``) cannot be shortened;
    they are counted in the table (``exempt``) and do not fail the check.
    """
    import great_expectations.expectations as gxe

    df = prompts[prompts["target_tokens"].notna()].copy().reset_index(drop=True)
    df["deviation"] = df["input_tokens"] - df["target_tokens"]
    df["exempt"] = df["target_exempt"].fillna(False).astype(bool)
    df["within"] = (df["deviation"].abs() <= df["target_tolerance"]) | df["exempt"]
    expectations = [
        gxe.ExpectColumnValuesToNotBeNull(column="input_tokens"),
        gxe.ExpectColumnValuesToBeInSet(column="within", value_set=[True]),
    ]
    result = validate(
        "token_targets",
        df[
            [
                "prompt_id",
                "benchmark",
                "task",
                "setting",
                "input_tokens",
                "target_tokens",
                "deviation",
                "target_tolerance",
                "exempt",
                "within",
            ]
        ],
        expectations,
        ["prompt_id", "benchmark", "setting", "input_tokens", "target_tokens"],
    )
    exempt = int(df["exempt"].sum())
    result.name = f"token_targets ({exempt} exempt: key text alone over target)"
    # The full per-prompt table is long; keep a per (benchmark, task, setting, target) summary.
    if not df.empty:
        summary = df.groupby(["benchmark", "task", "setting", "target_tokens"], as_index=False).agg(
            prompts=("prompt_id", "size"),
            max_abs_deviation=("deviation", lambda d: int(d.abs().max())),
            exempt=("exempt", "sum"),
            within=("within", "sum"),
        )
        result.table = summary.to_dict(orient="records")
    return result


def parse_rate(parsed: pd.DataFrame) -> SuiteResult:
    """Share of readable answers per (benchmark, model) at least the family's ``min_parse_rate``.

    ``parsed`` is what dbt's ``marts.parse_rate`` computes (``n_ok``, ``n_na``, ``n_refused`` per
    benchmark, model, task and setting): the check sums it per model rather than counting again.
    """
    import great_expectations.expectations as gxe

    columns = ["benchmark", "model", "n_ok", "n_na", "n_refused"]
    df = parsed[columns] if not parsed.empty else pd.DataFrame(columns=columns)
    grouped = df.groupby(["benchmark", "model"], as_index=False)[["n_ok", "n_na", "n_refused"]].sum()
    grouped["n"] = grouped["n_ok"] + grouped["n_na"] + grouped["n_refused"]
    grouped = grouped[grouped["n"] > 0].reset_index(drop=True)
    grouped["parse_rate"] = grouped["n_ok"] / grouped["n"]
    grouped["min_rate"] = [targets.min_parse_rate(b) for b in grouped["benchmark"]]
    grouped["within"] = grouped["parse_rate"] >= grouped["min_rate"]
    expectations = [gxe.ExpectColumnValuesToBeInSet(column="within", value_set=[True])]
    return validate(
        "parse_rate",
        grouped[["benchmark", "model", "n", "n_ok", "parse_rate", "min_rate", "within"]],
        expectations,
        ["benchmark", "model", "parse_rate"],
    )


def parse_statuses(parsed: pd.DataFrame) -> SuiteResult:
    """Every stored answer has a parse status its family declares (or the pipeline's ``error``)."""
    import great_expectations.expectations as gxe

    columns = ["benchmark", "parse_status", "n"]
    df = parsed[columns].copy().reset_index(drop=True) if not parsed.empty else pd.DataFrame(columns=columns)
    declared = [targets.parse_statuses(b) for b in df["benchmark"]]
    df["declared"] = [d is None or s in d for d, s in zip(declared, df["parse_status"], strict=True)]
    expectations = [gxe.ExpectColumnValuesToBeInSet(column="declared", value_set=[True])]
    return validate("parse_statuses", df, expectations, ["benchmark", "parse_status", "n"])
