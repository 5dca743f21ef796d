"""A full disk is one line naming where to free space, and the call count is the calls made.

Before: a run on a full disk ended in SQLite "disk I/O error" tracebacks, never "no space left on
device", and its summary said 0 calls when 12 had been made and stored (the steps that made them
could not write their Dagster events).  The full disk is simulated: a write raises
``OSError(errno.ENOSPC)``, or SQLite's message with the free space reported as nearly none.
"""

from __future__ import annotations

import datetime
import errno
import sqlite3

import pytest

from relreason_dagster import pipeline
from relreason_dagster.cli import main
from relreason_dagster.cli.run_report import print_report
from relreason_dagster.results.launch_report import PipelineReport, count_from_lake, no_calls
from relreason_dagster.storage import disk_space, sent_requests
from relreason_dagster.storage.disk_space import no_space, no_space_line
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.scripted_provider import register_scripted_provider
from tests.pipeline_home import isolated_home, scripted_models_yaml

LINE_END = ": free space and run again (nothing stored is lost)"


def _enospc() -> OSError:
    return OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture
def home(tmp_path, monkeypatch):
    register_scripted_provider()  # so the launch's provider check knows scripted/ (nothing is called)
    isolated_home(monkeypatch, tmp_path, scripted_models_yaml("scripted-m"))
    return tmp_path / "home"


def test_what_counts_as_a_full_disk(home, monkeypatch):
    assert no_space(_enospc())
    try:  # SQLite's word for it, raised while handling the OS error
        try:
            raise _enospc()
        except OSError:
            raise sqlite3.OperationalError("disk I/O error") from None
    except sqlite3.OperationalError as exc:
        chained = exc
    assert no_space(chained)  # the OS error underneath says it
    assert no_space("model_responses: OSError: [Errno 28] No space left on device")
    assert no_space("marts: IOException: IO Error: Could not write file: No space left on device")
    assert no_space("prepare: OperationalError: database or disk is full")
    assert not no_space("model_responses: KeyError: 'content'")
    # "disk I/O error" alone is a full disk only where space is short.
    monkeypatch.setattr(disk_space, "_free_bytes", lambda path: 10 * 2**30)
    assert not no_space(sqlite3.OperationalError("disk I/O error"))
    monkeypatch.setattr(disk_space, "_free_bytes", lambda path: 4096 if path == home else 10 * 2**30)
    assert no_space(sqlite3.OperationalError("disk I/O error"))
    assert no_space_line() == f"no space left on device under {home}{LINE_END}"


def test_run_on_a_full_disk_is_one_line(home, monkeypatch, capfd):
    def full(*args, **kwargs):
        try:
            raise _enospc()
        except OSError as exc:
            raise sqlite3.OperationalError("disk I/O error") from exc

    monkeypatch.setattr(pipeline, "run_pipeline", full)
    monkeypatch.setattr(disk_space, "_free_bytes", lambda path: 0 if path == home else 10 * 2**30)
    capfd.readouterr()
    code = main(["run", "--model", "scripted-m", "--benchmark", "relational"])
    out, err = capfd.readouterr()
    assert code == 1
    assert "Traceback" not in out + err and "disk I/O error" not in out + err
    assert err.splitlines()[-1] == f"relreason: no space left on device under {home}{LINE_END}"


def test_step_failures_of_a_full_disk_print_one_line(home, capfd):

    report = PipelineReport(
        failures=[
            "model_responses: OSError: [Errno 28] No space left on device",
            "parsed_answers: IOException: IO Error: Could not write file: No space left on device",
            "relreason_dbt_models: KeyError: 'x'",
        ]
    )
    print_report(report, 1.0)
    _out, err = capfd.readouterr()
    assert err.count("no space left on device under ") == 1
    assert "step failed: relreason_dbt_models: KeyError: 'x'" in err
    assert "Errno 28" not in err and "IO Error" not in err


def test_calls_the_events_lost_are_counted_from_the_lake(home):
    """12 requests sent, no step event: the summary says 12, with their errors, from the count the
    gateway kept in the lake for the launch's run (storage/sent_requests.py), not from the rows."""
    since = datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - datetime.timedelta(seconds=1)
    now = since + datetime.timedelta(seconds=1)
    lake = Lake.default()
    row = ("p{}", "scripted-m", "relational", "h", "scripted/scripted-m", "ans", "stop", 1, 1, 0.1, 1)
    # Rows another launch stored meanwhile: not this launch's calls.
    ResponseStore(lake).append([(f"theirs{i}", *row[1:], None, False, now) for i in range(30)])
    counts = {"requests": 12, "errors": 2, "answers": 10, "error": "connection_error: refused"}
    sent_requests.write_sent(lake, "run-1", "scripted-m", sent_requests.new_writer(), counts)
    sent_requests.write_sent(lake, "another-launchs-run", "scripted-m", "w", {**counts, "requests": 99})
    ran = [{"job": "model_work", "partition": "scripted-m", "run_id": "run-1", "success": False}]
    report = PipelineReport(runs=ran)  # the events said nothing
    count_from_lake(report, ["scripted-m"], since)
    assert report.calls["scripted-m"]["model_calls"] == 12
    assert report.calls["scripted-m"]["errors"] == 2
    assert report.lake_counted == ["scripted-m"] and report.total_calls == 12
    assert report.answered_nothing == {}

    # Events that counted right are left alone; a model whose every call failed is named.
    report = PipelineReport(calls={"scripted-m": {**no_calls(), "model_calls": 12, "errors": 2}}, runs=ran)
    count_from_lake(report, ["scripted-m"], since)
    assert report.lake_counted == [] and report.total_calls == 12
    failed = {"requests": 3, "errors": 3, "answers": 0, "error": "authentication: 401"}
    sent_requests.write_sent(lake, "run-2", "other", sent_requests.new_writer(), failed)
    report = PipelineReport(runs=[{**ran[0], "run_id": "run-2"}])
    count_from_lake(report, ["other"], since)
    assert report.answered_nothing == {"other": "all 3 of its calls failed, e.g. authentication: 401"}


def test_a_run_that_waited_for_another_launch_reports_the_calls_it_made(home, capfd):
    """Another launch of the same model stored 36 answers while this one waited for the model's claim;
    this one then found them all stored.  It made no call and says so, with how long it waited (it
    used to count the other launch's 36 rows in the lake as its own calls)."""
    since = datetime.datetime.now(datetime.UTC).replace(tzinfo=None) - datetime.timedelta(seconds=10)
    theirs = since + datetime.timedelta(seconds=2)
    store = ResponseStore(Lake.default())
    row = ("p{}", "scripted-m", "relational", "h", "scripted/scripted-m", "ans", "stop", 1, 1, 0.1, 1)
    store.append([(f"p{i}", *row[1:], None, False, theirs) for i in range(36)])
    took_over = (theirs + datetime.timedelta(seconds=1)).replace(tzinfo=datetime.UTC).timestamp()
    report = PipelineReport(
        calls={"scripted-m": {**no_calls(), "prompts": 36, "already_stored": 36}},
        claimed_at={"scripted-m": took_over},
        waited_s={"scripted-m": 12.5},
    )
    count_from_lake(report, ["scripted-m"], since)
    assert report.lake_counted == [] and report.total_calls == 0
    print_report(report, 1.0)
    out, _err = capfd.readouterr()
    line = next(line for line in out.splitlines() if line.startswith("scripted-m:"))
    assert "0 model calls" in line and "36 from the cache" in line
    assert "after waiting 12.5 s for another run of this model" in line
