"""Great Expectations suites (``data_quality/``) exposed as Dagster asset checks."""

from collections.abc import Callable

import dagster as dg
import pandas as pd

from data_quality import suites
from relreason_dagster.defs.assets import parsed_answers, prompts, samples
from relreason_dagster.defs.partitions import DUCKDB_POOL
from relreason_dagster.defs.resources import DuckDBFile
from relreason_dagster.results.numbers import rounded_dicts
from relreason_dagster.storage.duckdb_io import markdown_table
from relreason_dagster.storage.schema import ensure_schema

# A check that had nothing to look at proved nothing: it says so instead of "passed".
SKIPPED_NO_ROWS = "skipped (no rows)"


def check_state(passed: bool, rows_checked: int | None, warn: bool = False) -> str:
    """How a check's outcome reads: passed, skipped (no rows), warning (a WARN check failed) or FAILED.

    ``rows_checked`` None (a check that does not count rows) never reads as skipped.
    """
    if passed:
        return SKIPPED_NO_ROWS if rows_checked == 0 else "passed"
    return "warning" if warn else "FAILED"


def check_result(res: suites.SuiteResult, severity: dg.AssetCheckSeverity) -> dg.AssetCheckResult:
    """A suite's result as a Dagster check result: summary, failing rows and the full table in metadata.

    Dagster has no "skipped" verdict for a check that ran, so an empty one passes with its state
    (``skipped (no rows)``) in the description and metadata, where the UI and the CLI show it.
    """
    state = check_state(res.success, res.checked)
    description = res.summary()
    if state == SKIPPED_NO_ROWS:
        description = f"{res.name}: {SKIPPED_NO_ROWS}, nothing to check"
    return dg.AssetCheckResult(
        passed=res.success,
        severity=severity,
        description=description,
        metadata={
            "state": state,
            "rows_checked": res.checked,
            "failures": len(res.failures),
            "failing_rows": dg.MetadataValue.md(markdown_table(rounded_dicts(res.failures), limit=20)),
            "table": dg.MetadataValue.md(markdown_table(rounded_dicts(res.table), limit=40)),
        },
    )


def suite_check(
    name: str,
    asset: dg.AssetsDefinition,
    description: str,
    sql: str,
    suite: Callable[[pd.DataFrame], suites.SuiteResult],
    severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR,
) -> dg.AssetChecksDefinition:
    """An asset check named ``name`` that runs ``suite`` on the frame ``sql`` reads from DuckDB."""

    @dg.asset_check(name=name, asset=asset, pool=DUCKDB_POOL, description=description)
    def _check(duckdb: DuckDBFile) -> dg.AssetCheckResult:
        with duckdb.get_connection() as con:
            ensure_schema(con)
            df = con.execute(sql).df()
        return check_result(suite(df), severity)

    return _check


label_balance_check = suite_check(
    "label_balance_check",
    samples,
    "Positive share of target cells per task (and balance cell) within configured bounds.",
    "SELECT benchmark, task, split, gold_pos, n_cells, json_extract_string(variant, '$.cell') AS cell"
    " FROM raw.samples WHERE benchmark <> 'kor'",  # KOR questions have answers, not labels
    suites.label_balance,
)
padding_entities_check = suite_check(
    "padding_entities_check",
    samples,
    "FLenQA: no padding paragraph of the similar kind names an entity of its own instance.",
    "SELECT sample_id, task, json_extract_string(variant, '$.padding') AS padding, input"
    " FROM raw.samples WHERE benchmark = 'flenqa' AND json_extract_string(variant, '$.padding') = 'similar'",
    suites.padding_entities,
)
token_length_check = suite_check(
    "token_length_check",
    prompts,
    "Input tokens of every prompt within its setting's range.",
    "SELECT prompt_id, benchmark, setting, input_tokens, tokenizer FROM raw.prompts",
    suites.token_lengths,
)
token_target_check = suite_check(
    "token_target_check",
    prompts,
    "Length-controlled prompts (FLenQA) within 5% of their target length, exact tokens.",
    "SELECT prompt_id, benchmark, task, setting, input_tokens, target_tokens, target_tolerance, target_exempt"
    " FROM raw.prompts WHERE target_tokens IS NOT NULL",
    suites.token_targets,
)
parse_rate_check = suite_check(
    "parse_rate_check",
    parsed_answers,
    "Share of readable answers per benchmark and model.",
    "SELECT benchmark, model, parse_status FROM raw.parsed_answers",
    suites.parse_rate,
    dg.AssetCheckSeverity.WARN,
)

ALL_CHECKS = [
    label_balance_check,
    padding_entities_check,
    token_length_check,
    token_target_check,
    parse_rate_check,
]
