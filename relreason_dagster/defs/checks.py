"""Great Expectations suites (``data_quality/``) exposed as Dagster asset checks."""

from collections.abc import Callable

import dagster as dg
import pandas as pd
from dagster_duckdb import DuckDBResource

from data_quality import suites
from relreason_dagster.defs.assets import parsed_answers, prompts, samples
from relreason_dagster.defs.partitions import DUCKDB_POOL
from relreason_dagster.storage.duckdb_io import markdown_table
from relreason_dagster.storage.schema import ensure_schema


def _result(res: suites.SuiteResult, severity: dg.AssetCheckSeverity) -> dg.AssetCheckResult:
    return dg.AssetCheckResult(
        passed=res.success,
        severity=severity,
        description=res.summary(),
        metadata={
            "rows_checked": res.checked,
            "failures": len(res.failures),
            "failing_rows": dg.MetadataValue.md(markdown_table(res.failures, limit=20)),
            "table": dg.MetadataValue.md(markdown_table(res.table, limit=40)),
        },
    )


def _check(
    duckdb: DuckDBResource,
    sql: str,
    suite: Callable[[pd.DataFrame], suites.SuiteResult],
    severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR,
) -> dg.AssetCheckResult:
    """Run ``suite`` on the frame ``sql`` reads from the pipeline's DuckDB file."""
    with duckdb.get_connection() as con:
        ensure_schema(con)
        df = con.execute(sql).df()
    return _result(suite(df), severity)


@dg.asset_check(
    asset=samples,
    pool=DUCKDB_POOL,
    description="Positive share of target cells per task within configured bounds.",
)
def label_balance_check(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    return _check(
        duckdb,
        "SELECT benchmark, task, split, gold_pos, n_cells, json_extract_string(variant, '$.cell') AS cell"
        " FROM raw.samples",
        suites.label_balance,
    )


@dg.asset_check(
    asset=samples,
    pool=DUCKDB_POOL,
    description="FLenQA: no padding paragraph of the similar kind names an entity of its own instance.",
)
def padding_entities_check(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    return _check(
        duckdb,
        "SELECT sample_id, task, json_extract_string(variant, '$.padding') AS padding, input"
        " FROM raw.samples WHERE benchmark = 'flenqa'"
        " AND json_extract_string(variant, '$.padding') = 'similar'",
        suites.padding_entities,
    )


@dg.asset_check(
    asset=prompts, pool=DUCKDB_POOL, description="Input tokens of every prompt within its setting's range."
)
def token_length_check(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    return _check(
        duckdb,
        "SELECT prompt_id, benchmark, setting, input_tokens, tokenizer FROM raw.prompts",
        suites.token_lengths,
    )


@dg.asset_check(
    asset=prompts,
    pool=DUCKDB_POOL,
    description="Length-controlled prompts (FLenQA) within 5% of their target length, exact tokens.",
)
def token_target_check(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    return _check(
        duckdb,
        "SELECT prompt_id, benchmark, task, setting, input_tokens, target_tokens, target_tolerance,"
        " target_exempt FROM raw.prompts WHERE target_tokens IS NOT NULL",
        suites.token_targets,
    )


@dg.asset_check(
    asset=parsed_answers, pool=DUCKDB_POOL, description="Share of readable answers per benchmark and model."
)
def parse_rate_check(duckdb: DuckDBResource) -> dg.AssetCheckResult:
    return _check(
        duckdb,
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
