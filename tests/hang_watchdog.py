"""The hang watchdog: a test that hangs where no signal reaches Python still ends, and says where.

pytest-timeout (``timeout`` in pyproject.toml, ``@pytest.mark.timeout(N)`` for the few long tests) fails
a test that runs past its time with SIGALRM and puts every thread's stack in the failure report.  A
signal is only handled when the main thread runs Python again, so a main thread stuck in C (joining a
thread that waits on a lock that is never released, a futex) would wait forever; a fresh-clone CI run
once sat that way for minutes with both workers idle and printed nothing.  This plugin arms
faulthandler's C-level timer for each test at its timeout plus :data:`HARD_GRACE_S`: it writes every
thread's stack to stderr and ends the process.  Under xdist the worker's exit fails that test
("worker crashed") and the others go on, so a hang costs minutes, not CI's budget.

A plugin module (``tests/conftest.py`` names it) so a test can load it alone in a pytest of its own.
"""

from __future__ import annotations

import faulthandler
import os
import sys
from typing import Any

import pytest

# Seconds after a test's own timeout at which the watchdog stops waiting for the signal to work.
# (A test of the watchdog shortens it; the suite never sets it.)
HARD_GRACE_S = float(os.environ.get("RELREASON_TEST_HARD_GRACE_S", "60"))


def test_timeout(item: pytest.Item) -> float:
    """The test's timeout in seconds as pytest-timeout reads it (its mark, else the ini; 0: none)."""
    marker = item.get_closest_marker("timeout")
    if marker is not None:
        value = marker.args[0] if marker.args else marker.kwargs.get("timeout", 0)
        return float(value or 0)
    try:
        return float(item.config.getini("timeout") or 0)
    except ValueError:  # pytest-timeout not installed: no timeout to follow
        return 0.0


test_timeout.__test__ = False  # type: ignore[attr-defined] - not a test, despite its name


_STREAM: list[Any] = []  # where the stacks go: the process's stderr as it was before capturing began


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Keep a copy of stderr's descriptor (as pytest's faulthandler plugin does): during a test fd 2
    is captured, and under xdist only what reaches the worker's original stderr is shown."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, ValueError, OSError):
        fd = 2
    _STREAM[:] = [open(os.dup(fd), "w", encoding="utf-8")]  # noqa: SIM115 - kept for the session


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """Arm the C-level timer around the test's setup, call and teardown."""
    timeout = test_timeout(item)
    stream = _STREAM[0] if _STREAM else None
    armed = timeout > 0 and stream is not None
    if armed:
        faulthandler.dump_traceback_later(timeout + HARD_GRACE_S, exit=True, file=stream)
    try:
        yield
    finally:
        if armed:
            faulthandler.cancel_dump_traceback_later()
