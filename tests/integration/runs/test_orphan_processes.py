"""kill -9 of `relreason run` leaves no process of it behind.

Before: the run pool's processes, Dagster's step forkserver and a step process went on for 18 minutes
after the CLI was killed (~1.9 GB), ignoring SIGTERM.  Now every launch has a watchdog process
(``defs/lifeline.py``) that kills what the launch started once the launcher is gone.

The CLI runs against a fake OpenAI server (named as such: a stand-in for a provider) that holds every
answer, so the run is certainly mid-way through its model calls, with its step processes alive, when
the test kills it.  The descendants are read from ``/proc`` just before the kill; each must be gone
within a bounded wait (generous: only a stalled machine needs it).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads /proc (Linux)"),
]

REPO = Path(__file__).resolve().parents[3]
DEADLINE_S = 300.0
GONE_WITHIN_S = 30.0


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as fh:
                    ppid = int(fh.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(name))
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "(gone)"


def test_kill_9_of_the_cli_leaves_no_process_behind(tmp_path):
    with FakeOpenAIServer() as server:
        server.allow(0)  # hold every answer: the run stays in its model step until it is killed
        models = tmp_path / "models.yaml"
        models.write_text(
            "models:\n"
            + "".join(
                f"  - name: {name}\n    litellm_model: openai/fake-{name}\n"
                f"    api_base: {server.api_base}\n    api_key_env: RELREASON_FAKE_KEY\n    concurrency: 4\n"
                for name in ("held", "held2")
            )
        )
        env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "RELREASON_DUCKDB")}
        env.update(
            RELREASON_HOME=str(tmp_path / "home"),
            RELREASON_MODELS=str(models),
            RELREASON_FAKE_KEY="sk-fake",
            PYTHONPATH=str(REPO),
            # What a user's run uses (the tests' default is in_process): run and step processes.
            RELREASON_EXECUTOR="multiprocess",
        )
        # Two models side by side (the run pool and its processes), each step in a process of its
        # own (--max-steps: Dagster's step forkserver and step processes): every kind of process.
        cli = subprocess.Popen(
            [sys.executable, "-m", "relreason_dagster.cli", "run", "--model", "held", "--model", "held2"]
            + ["--benchmark", "relational", "--profile", "smoke", "--max-steps", "2"],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        before: set[int] = set()
        try:
            deadline = time.monotonic() + DEADLINE_S
            while min(sum(e.model == f"fake-{m}" for e in server.entries()) for m in ("held", "held2")) < 2:
                assert cli.poll() is None, cli.stderr.read().decode()
                assert time.monotonic() < deadline, "the run never reached its model calls"
                time.sleep(0.1)
            time.sleep(1.0)  # the watchdog notes the tree twice a second
            before = _descendants(cli.pid)
            # The run pool's forkserver and process, Dagster's step forkserver and process, the watchdog.
            assert len(before) >= 5, {pid: _cmdline(pid) for pid in before}
            cli.send_signal(signal.SIGKILL)
            cli.wait(timeout=60)
            deadline = time.monotonic() + GONE_WITHIN_S
            while (left := {pid for pid in before if _alive(pid)}) and time.monotonic() < deadline:
                time.sleep(0.2)
            described = {pid: _cmdline(pid) for pid in left}
        finally:
            server.allow(None)
            if cli.poll() is None:
                cli.kill()
                cli.wait()
            for pid in before:  # what the test started and the fix failed to end: not left to run on
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)
        assert not left, f"still alive {GONE_WITHIN_S:.0f} s after kill -9 of the CLI: {described}"
