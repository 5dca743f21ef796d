"""Which tests run longer than a fifth of their timeout: listed at the end of every run, never failed on.

Why: the suite must pass on a busy machine, where a test can run several times slower than idle.  The
ground rule is that a test's idle duration stays within a fifth of its timeout (pytest-timeout's
``timeout`` in pyproject.toml, or ``@pytest.mark.timeout(N)`` with a comment saying why), so a machine up
to five times slower still passes.  A timed assertion would make the suite flaky; a list at the end of
each run (the ``--durations`` list's neighbour) shows where a new slow test needs its own timeout.  Read it
on an idle run: on a busy one every test looks slow.

A plugin module (``tests/conftest.py`` names it), using the hang watchdog's reading of a test's timeout.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.hang_watchdog import test_timeout

SHARE = 5  # a test's duration may be up to 1/SHARE of its timeout
_OVER: list[tuple[str, float, float]] = []  # (test id, seconds, timeout) of each test over its share


@pytest.hookimpl(trylast=True)
def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Note a test whose call took more than its share (on the controller too under xdist: the report's
    extra attribute travels with it, as pytest serializes a report's ``__dict__``)."""
    if report.when != "call" or report.outcome == "skipped":
        return
    timeout = getattr(report, "relreason_timeout", None)
    if not timeout:
        return
    if report.duration * SHARE > timeout:
        _OVER.append((report.nodeid, report.duration, timeout))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]):
    """Carry the test's timeout on its report (the controller under xdist has no item to read it from)."""
    outcome = yield
    report = outcome.get_result()
    report.relreason_timeout = test_timeout(item)  # type: ignore[attr-defined]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The list, slowest share first, with the timeout each would need."""
    if not _OVER:
        return
    terminalreporter.section(f"tests over 1/{SHARE} of their timeout (give them @pytest.mark.timeout)")
    for nodeid, seconds, timeout in sorted(_OVER, key=lambda item: item[1] / item[2], reverse=True):
        terminalreporter.write_line(
            f"{seconds:7.1f} s of {timeout:.0f} s  {nodeid}  (would need timeout >= {seconds * SHARE:.0f})"
        )
