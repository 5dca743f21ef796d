"""Great Expectations suites (``data_quality/``) exposed as Dagster asset checks.

Two kinds: the shared checks every family gets (label balance, token lengths and targets, parse
statuses, parse rate), each reading its bounds from the family that declares them, and each
family's checks of its own (``benchmarks/<family>/checks.py``: ``CHECKS``), made here into asset
checks by one generic function.
"""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import dagster as dg
import pandas as pd

from data_quality import suites, targets
from relreason_dagster.benchmarks.base import FamilyCheck
from relreason_dagster.benchmarks.registry import FAMILIES, family_checks
from relreason_dagster.common.duckdb_rows import markdown_table
from relreason_dagster.common.gx_validation import SKIPPED_NO_ROWS, check_state
from relreason_dagster.defs.assets import parsed_answers, prompts, samples
from relreason_dagster.defs.partitions import DUCKDB_POOL
from relreason_dagster.defs.resources import DuckDBFile, RunSettings
from relreason_dagster.results.numbers import rounded_dicts
from relreason_dagster.storage.schema import ensure_schema


def check_result(
    res: suites.SuiteResult, severity: dg.AssetCheckSeverity, asset: dg.AssetKey, name: str
) -> dg.AssetCheckResult:
    """A suite's result as a Dagster check result: summary, failing rows and the full table in metadata.

    Dagster has no "skipped" verdict for a check that ran, so an empty one passes with its state
    (``skipped (no rows)``) in the description and metadata, where the UI and the CLI show it.
    """
    state = check_state(res.success, res.checked)
    description = res.summary()
    if state == SKIPPED_NO_ROWS:
        description = f"{res.name}: {SKIPPED_NO_ROWS}, nothing to check"
    return dg.AssetCheckResult(
        asset_key=asset,
        check_name=name,
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


Query = str | Callable[[], tuple[str, list]]


def _read(con, sql: Query) -> pd.DataFrame:
    text, params = (sql, []) if isinstance(sql, str) else sql()
    return con.execute(text, params).df()


@dataclass(frozen=True)
class Check:
    """One asset check: its name, the asset it checks, and how it computes its suite result.

    ``run`` gets a DuckDB connection and the run's settings.  The checks of one asset run in one
    step (:func:`checks_of`): a Dagster step costs ~50 ms of its own on a small machine, more than
    most of these checks, and a run whose inputs are all stored is mostly such steps.
    """

    name: str
    asset: dg.AssetKey
    description: str
    run: Callable[[Any, RunSettings], suites.SuiteResult]
    severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR


def suite_check(
    name: str,
    asset: dg.AssetsDefinition | dg.AssetKey,
    description: str,
    sql: Query,
    suite: Callable[[pd.DataFrame], suites.SuiteResult],
    severity: dg.AssetCheckSeverity = dg.AssetCheckSeverity.ERROR,
) -> Check:
    """A check named ``name`` that runs ``suite`` on the frame ``sql`` reads from DuckDB.

    ``sql`` is the query, or a function returning ``(query, params)`` when it depends on the
    registered families (read when the check runs, so a family registered later is covered).
    """
    key = asset if isinstance(asset, dg.AssetKey) else asset.key
    return Check(name, key, description, lambda con, _settings: suite(_read(con, sql)), severity)


def _labelled_samples() -> tuple[str, list]:
    """Samples of the families whose golds are labels (a family without label bounds is not checked)."""
    names = [name for name in FAMILIES if targets.has_labels(name)] or [""]
    return (
        "SELECT benchmark, task, split, gold_pos, n_cells, json_extract_string(variant, '$.cell') AS cell"
        f" FROM raw.samples WHERE benchmark IN ({', '.join('?' for _ in names)})",
        names,
    )


SHARED_CHECKS = [
    suite_check(
        "label_balance_check",
        samples,
        "Positive share of target cells per task (and balance cell) within the family's bounds.",
        _labelled_samples,
        suites.label_balance,
    ),
    suite_check(
        "token_length_check",
        prompts,
        "Input tokens of every prompt within its setting's range.",
        "SELECT prompt_id, benchmark, setting, input_tokens, tokenizer FROM raw.prompts",
        suites.token_lengths,
    ),
    suite_check(
        "token_target_check",
        prompts,
        "Length-controlled prompts (those with a target length) within 5% of it, exact tokens.",
        "SELECT prompt_id, benchmark, task, setting, input_tokens, target_tokens, target_tolerance,"
        " target_exempt FROM raw.prompts WHERE target_tokens IS NOT NULL",
        suites.token_targets,
    ),
    suite_check(
        "parse_status_check",
        parsed_answers,
        "Every parsed answer has a parse status its family declares (or error: the call failed).",
        "SELECT benchmark, parse_status, count(*) AS n FROM raw.parsed_answers GROUP BY ALL ORDER BY ALL",
        suites.parse_statuses,
    ),
    # What dbt computes (marts.parse_rate), checked against each family's least rate: counted once, in SQL.
    suite_check(
        "parse_rate_check",
        dg.AssetKey(["marts", "parse_rate"]),
        "Share of readable answers per benchmark and model, as marts.parse_rate has it.",
        "SELECT benchmark, model, n_ok, n_na, n_refused FROM marts.parse_rate",
        suites.parse_rate,
        dg.AssetCheckSeverity.WARN,
    ),
]

_CHECKED = {"samples": samples, "prompts": prompts, "parsed_answers": parsed_answers}


def family_check(family: str, check: FamilyCheck) -> Check:
    """One of ``family``'s own checks."""

    def run(con: Any, run_settings: RunSettings) -> suites.SuiteResult:
        df = con.execute(check.sql, [family]).df()
        covered = family in run_settings.family_names()
        profile = run_settings.profile_for(family) if covered else None
        return check.run(df, profile, run_settings.seed)

    severity = dg.AssetCheckSeverity.WARN if check.warn else dg.AssetCheckSeverity.ERROR
    return Check(check.name, _CHECKED[check.asset].key, check.description, run, severity)


FAMILY_CHECKS = [family_check(name, check) for name in FAMILIES for check in family_checks(name)]


def checks_of(asset: dg.AssetKey, checks: list[Check]) -> dg.AssetChecksDefinition:
    """The checks of ``asset`` as one step; the UI can still run any of them alone (``can_subset``).

    A check that raises does not stop the others: their verdicts are recorded, then the step fails
    with the first error (its own check stays "not evaluated", as when it had a step of its own).
    """

    @dg.multi_asset_check(
        name=f"{asset.to_python_identifier()}_quality_check",
        specs=[dg.AssetCheckSpec(c.name, asset=asset, description=c.description) for c in checks],
        can_subset=True,
        pool=DUCKDB_POOL,
    )
    def _checks(
        context: dg.AssetCheckExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings
    ) -> Iterator[dg.AssetCheckResult]:
        selected = context.selected_asset_check_keys
        error: Exception | None = None
        with duckdb.get_connection() as con:
            ensure_schema(con)
            for check in checks:
                if dg.AssetCheckKey(asset, check.name) not in selected:
                    continue
                try:
                    result = check.run(con, run_settings)
                except Exception as exc:  # noqa: BLE001 - raised below, after the others' verdicts
                    error = error or exc
                    continue
                yield check_result(result, check.severity, asset, check.name)
        if error is not None:
            raise error

    return _checks


def _by_asset(checks: list[Check]) -> dict[dg.AssetKey, list[Check]]:
    grouped: dict[dg.AssetKey, list[Check]] = {}
    for check in checks:
        grouped.setdefault(check.asset, []).append(check)
    return grouped


ALL_CHECKS = [checks_of(asset, group) for asset, group in _by_asset([*SHARED_CHECKS, *FAMILY_CHECKS]).items()]
