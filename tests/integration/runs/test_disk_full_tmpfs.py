"""A run whose disk fills up mid-way, on a real (small, tmpfs) filesystem: one line, the calls counted,
and nothing stored lost.

Before: SQLite "disk I/O error" tracebacks, never "no space left on device", and a summary of 0 calls
when 12 had been made.  Here `relreason run` (the multiprocess executor, as a user runs it) works
in a home on a tmpfs the test mounts; a fake OpenAI server (named as such: a stand-in for a provider)
answers 12 prompts and holds the rest while the test fills the filesystem, then answers them.  The
run must exit 1 with the one line, count the 12 stored calls, and after the filler is deleted a rerun
asks only the prompts that were not stored.

Needs root (it mounts a tmpfs) and minutes on a busy machine: marked slow, so `make test` leaves it
out (run it with ``pytest -m slow``); it skips where mounting is not allowed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = [pytest.mark.integration, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[3]
ANSWERED_FIRST = 12
DEADLINE_S = 900.0


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "small-disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", str(mount)], capture_output=True, text=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(path: Path) -> None:
    with open(path, "wb") as fh:
        try:
            while True:
                fh.write(b"\0" * 2**20)
                fh.flush()
        except OSError:
            pass


def test_a_full_disk_mid_run_is_one_line_and_loses_nothing(small_disk):
    with FakeOpenAIServer() as server:
        server.allow(ANSWERED_FIRST)
        models = small_disk / "models.yaml"
        models.write_text(
            "models:\n  - name: m\n    litellm_model: openai/fake-m\n"
            f"    api_base: {server.api_base}\n    api_key_env: RELREASON_FAKE_KEY\n    concurrency: 4\n"
        )
        env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "RELREASON_DUCKDB")}
        env.update(
            RELREASON_HOME=str(small_disk / "home"),
            RELREASON_MODELS=str(models),
            RELREASON_FAKE_KEY="sk-fake",
            PYTHONPATH=str(REPO),
            RELREASON_EXECUTOR="multiprocess",
        )
        command = [sys.executable, "-m", "relreason_dagster.cli", "run", "--model", "m"]
        command += ["--benchmark", "relational", "--profile", "smoke"]
        cli = subprocess.Popen(
            command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            deadline = time.monotonic() + DEADLINE_S
            lake = small_disk / "home" / "lake" / "responses"
            # The 12 answers are stored (the gateway writes them 20 ms after they arrive) and more wait.
            while sum(1 for e in server.entries() if e.model == "fake-m") <= ANSWERED_FIRST or not any(
                lake.rglob("*.parquet")
            ):
                assert cli.poll() is None, cli.communicate()[1][-3000:]
                assert time.monotonic() < deadline, "the run never reached its model calls"
                time.sleep(0.2)
            time.sleep(2.0)
            _fill(small_disk / "filler")
            server.allow(None)
            out, err = cli.communicate(timeout=DEADLINE_S)
        finally:
            server.allow(None)
            if cli.poll() is None:
                cli.kill()
                cli.communicate()
        line = (
            f"relreason: no space left on device under {small_disk / 'home'}: free space and run again "
            "(nothing stored is lost)"
        )
        assert cli.returncode == 1, out + err
        assert err.count(line) == 1, err[-3000:]
        assert "Traceback" not in err, err[-3000:]
        calls = [ln for ln in out.splitlines() if ln.startswith("model calls made: ")]
        assert calls and int(calls[0].split()[3].rstrip(";")) >= ANSWERED_FIRST, out

        os.unlink(small_disk / "filler")
        asked_before = {e.key for e in server.entries() if e.model == "fake-m" and e.status == 200}
        server.reset_log()
        rerun = subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=DEADLINE_S)
        assert rerun.returncode == 0, rerun.stdout + rerun.stderr[-3000:]
        again = [e.key for e in server.entries() if e.model == "fake-m"]
    # Nothing stored was lost: what the first run stored is not asked again.
    stored_first = 36 - len(again)
    assert stored_first >= ANSWERED_FIRST, (stored_first, len(asked_before))
    assert "m: 36 prompts — " in rerun.stdout
