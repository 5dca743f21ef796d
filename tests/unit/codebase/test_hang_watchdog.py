"""A hang fails fast and says where: a test that sleeps past its timeout fails and prints every
thread's stack, and one stuck where the timeout's signal cannot reach Python is ended by the watchdog
(tests/hang_watchdog.py) with the stacks on stderr, while the other tests of the run still pass.

Each case runs in a pytest of its own (two xdist workers, as `make test` runs) on a small test file
written here; what is checked is the run's outcome and output, never how long it took.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
HANGING = "test_hanging.py"

HANGING_TESTS = """
import signal
import threading
import time

import pytest


def waits_for_ever(event):
    event.wait()


@pytest.mark.timeout(2)
def test_sleeps_past_its_timeout():
    event = threading.Event()
    threading.Thread(target=waits_for_ever, args=(event,), daemon=True, name="the-waiter").start()
    time.sleep(600)


@pytest.mark.timeout(2)
def test_stuck_where_no_signal_reaches_python():
    signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])  # as a main thread stuck in C
    time.sleep(600)


def test_a_good_neighbour():
    assert 1 + 1 == 2
"""


def _run(tmp_path: Path, *selection: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / HANGING).write_text(HANGING_TESTS, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO), "RELREASON_TEST_HARD_GRACE_S": "3"}
    command = [sys.executable, "-m", "pytest", "-q", "-n", "2", "-p", "no:cacheprovider"]
    command += ["-p", "tests.hang_watchdog", "--rootdir", str(tmp_path), "-o", "timeout_method=signal"]
    return subprocess.run(
        [*command, *selection], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )


def test_a_test_past_its_timeout_fails_with_every_thread_s_stack(tmp_path):
    done = _run(tmp_path, f"{HANGING}::test_sleeps_past_its_timeout", f"{HANGING}::test_a_good_neighbour")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "Timeout (>2.0s)" in out
    assert "Stack of the-waiter" in out and "waits_for_ever" in out  # the other thread, where it waits


def test_a_test_no_signal_reaches_is_ended_by_the_watchdog_with_the_stacks(tmp_path):
    stuck = "test_stuck_where_no_signal_reaches_python"
    done = _run(tmp_path, f"{HANGING}::{stuck}", f"{HANGING}::test_a_good_neighbour")
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert f"crashed while running '{HANGING}::{stuck}'" in out, out
    assert "1 failed, 1 passed" in out, out
    assert "Timeout (0:00:05)!" in out and f"line 23 in {stuck}" in out, out  # faulthandler's dump
