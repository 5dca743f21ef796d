"""A check that examined zero rows says `skipped (no rows)`, not `passed` (it proved nothing)."""

from __future__ import annotations

import dagster as dg
import pandas as pd

from data_quality import suites
from relreason_dagster.cli.run_report import print_report
from relreason_dagster.common.gx_validation import SKIPPED_NO_ROWS, check_state
from relreason_dagster.defs.checks import check_result
from relreason_dagster.results.launch_report import PipelineReport

PARSE_RATE = dg.AssetKey(["marts", "parse_rate"])


def test_check_state_reads_zero_rows_as_skipped():
    assert check_state(True, 0) == SKIPPED_NO_ROWS == "skipped (no rows)"
    assert check_state(True, 12) == "passed"
    assert check_state(True, None) == "passed"  # a check that does not count rows
    assert check_state(False, 0) == "FAILED"  # a failure with nothing checked is still a failure
    assert check_state(False, 5, warn=True) == "warning"


def test_a_real_suite_on_no_rows_is_reported_skipped():
    res = suites.parse_rate(pd.DataFrame(columns=["benchmark", "model", "n_ok", "n_na", "n_refused"]))
    assert (res.success, res.checked) == (True, 0)
    result = check_result(res, dg.AssetCheckSeverity.WARN, PARSE_RATE, "parse_rate_check")
    assert result.metadata["state"].value == SKIPPED_NO_ROWS
    assert SKIPPED_NO_ROWS in (result.description or "")
    rows = pd.DataFrame(
        {"benchmark": ["relational"], "model": ["m"], "n_ok": [3], "n_na": [0], "n_refused": [0]}
    )
    checked = check_result(
        suites.parse_rate(rows), dg.AssetCheckSeverity.WARN, PARSE_RATE, "parse_rate_check"
    )
    assert checked.metadata["state"].value == "passed"
    assert checked.metadata["rows_checked"].value > 0


def test_run_output_says_skipped_for_an_empty_check(capsys):
    report = PipelineReport(
        checks=[
            ("padding_entities_check", True, "padding_entities: skipped (no rows), nothing to check"),
            ("token_length_check", True, "token_lengths: passed (40 rows checked)"),
        ],
        check_rows={"padding_entities_check": 0, "token_length_check": 40},
        gx_checks=["padding_entities_check", "token_length_check"],
    )
    print_report(report, 1.0)
    out = capsys.readouterr().out
    assert "check padding_entities_check: skipped (no rows)" in out
    assert "check token_length_check: passed" in out


def test_a_check_that_raises_leaves_the_other_verdicts_of_its_step(tmp_path, monkeypatch):
    """The checks of one asset share a step; one raising fails that step, yet the others are recorded."""
    from relreason_dagster.defs.checks import Check, checks_of
    from relreason_dagster.defs.resources import DuckDBFile, RunSettings

    monkeypatch.setenv("RELREASON_REFERENCE_DIR", str(tmp_path / "no-reference"))

    @dg.asset(name="checked_thing")
    def checked_thing() -> None:
        return None

    ok = suites.SuiteResult("fine", True, 1, [], [])

    def boom(con, run_settings):
        raise RuntimeError("boom: this check could not run")

    checks = checks_of(
        checked_thing.key,
        [
            Check("broken_check", checked_thing.key, "raises", boom),
            Check("fine_check", checked_thing.key, "passes", lambda con, run_settings: ok),
        ],
    )
    result = dg.materialize(
        [checked_thing, checks],
        resources={
            "duckdb": DuckDBFile(database=str(tmp_path / "r.duckdb")),
            "run_settings": RunSettings(profile="smoke", models_file=""),
        },
        instance=dg.DagsterInstance.ephemeral(),
        raise_on_error=False,
    )
    evaluations = {
        e.event_specific_data.check_name: e.event_specific_data.passed
        for e in result.all_events
        if e.event_type_value == "ASSET_CHECK_EVALUATION"
    }
    assert evaluations == {"fine_check": True}
    failures = [e for e in result.all_events if e.event_type_value == "STEP_FAILURE"]
    assert len(failures) == 1 and "boom" in failures[0].event_specific_data.error.cause.message
