"""One model's calls split over worker processes (``workers:``): nothing lost, nothing doubled, no orphans.

The fake server decides every fault from (prompt, attempt), so the exact
requests a run must make are known in advance, whichever process makes them.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

from relreason_dagster.llm.gateway import run_model, run_model_async
from relreason_dagster.llm.registry import ModelEntry
from tests.fakes.openai_server import FakeOpenAIServer, default_answer, prompt_key

REPO_ROOT = Path(__file__).resolve().parents[3]
N_PROMPTS = 240
MAX_ATTEMPTS = 4
CONCURRENCY = 16
# Generous: only a stalled machine could reach it, and then the test is slow rather than wrong.
TIMEOUT_S = 120.0


def _prompts() -> list[dict]:
    return [
        {
            "prompt_id": f"w{i:04d}",
            "messages": [{"role": "user", "content": f"{i} * 3?"}],
            "max_tokens": 16,
            "benchmark": "toy",
        }
        for i in range(N_PROMPTS)
    ]


def _spec(server: FakeOpenAIServer, name: str, concurrency: int, **fields) -> ModelEntry:
    """A model on the fake server whose calls run in two worker processes."""
    return ModelEntry(
        name=name,
        litellm_model="openai/fake-model",
        concurrency=concurrency,
        workers=2,
        api_base=server.api_base,
        api_key_env="RELREASON_FAKE_KEY",
        timeout_s=TIMEOUT_S,
        **fields,
    )


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_workers_share_the_calls_and_lose_nothing(duck, store, monkeypatch, transport):
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    with FakeOpenAIServer(
        rate_limit_fraction=0.15,
        server_error_fraction=0.05,
        drop_fraction=0.02,
        retry_after_s=0,
        seed=11,
        hold_until_in_flight=CONCURRENCY,
        meet_timeout_s=300,
    ) as server:
        spec = _spec(server, "fake-split", CONCURRENCY, max_attempts=MAX_ATTEMPTS, transport=transport)
        prompts = _prompts()
        key_of = {p["prompt_id"]: prompt_key(p["messages"]) for p in prompts}
        expected = {pid: server.outcome(key, MAX_ATTEMPTS) for pid, key in key_of.items()}
        expected_errors = {pid for pid, (ok, _) in expected.items() if not ok}
        others = set(multiprocessing.active_children())
        workers_seen: list[int] = []

        def progress(_done: int, _total: int, _stats) -> None:
            workers_seen.append(len(set(multiprocessing.active_children()) - others))

        stats = run_model(store, spec, prompts, progress=progress, backoff_base_s=0.01, backoff_cap_s=0.05)
        log = server.entries()

        # The calls ran in two other processes, and together they used the model's concurrency, no more.
        assert max(workers_seen) >= 2, workers_seen
        assert server.held.is_set(), "the workers never had 16 requests in flight together"
        assert server.max_in_flight == CONCURRENCY, server.max_in_flight

        rows = duck.execute(
            "SELECT prompt_id, content, error, attempts FROM raw.responses WHERE model = 'fake-split'"
        ).fetchall()
        assert len(rows) == N_PROMPTS and len({r[0] for r in rows}) == N_PROMPTS
        by_id = {r[0]: r for r in rows}
        assert {pid for pid, r in by_id.items() if r[2] is not None} == expected_errors
        for pid, (ok, n_requests) in expected.items():
            _, content, error, attempts = by_id[pid]
            assert attempts == n_requests, (pid, attempts, n_requests)
            if ok:
                prompt = next(p for p in prompts if p["prompt_id"] == pid)
                assert error is None and content == default_answer(prompt["messages"])
        per_key: dict[str, list] = defaultdict(list)
        for entry in log:
            per_key[entry.key].append(entry)
        for pid, (_ok, n_requests) in expected.items():
            assert len(per_key[key_of[pid]]) == n_requests, pid
        assert stats.called == N_PROMPTS and stats.errors == len(expected_errors)
        assert stats.attempts == len(log)
        assert stats.workers == 2 and "from 2 worker processes" in stats.summary()
        # The workers' small files, in the prompts' partition, were merged into one by the run.
        files = store.lake.files("responses", {"model": "fake-split"})
        assert len(files) == 1 and "benchmark=toy" in files[0], files

        server.reset_log()
        again = run_model(store, spec, prompts, backoff_base_s=0.01, backoff_cap_s=0.05)
        assert {e.key for e in server.entries()} == {key_of[pid] for pid in expected_errors}
        assert again.skipped == N_PROMPTS - len(expected_errors)


def test_a_cancelled_run_stops_its_workers(store, monkeypatch):
    """Cancelling the run (as Dagster does on terminate) ends its workers; nothing keeps calling."""
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    with FakeOpenAIServer() as server:
        server.allow(0)  # hold every request
        spec = _spec(server, "cancelled", 4)

        async def cancel_mid_run() -> None:
            task = asyncio.create_task(run_model_async(store, spec, _prompts()[:40]))
            deadline = time.monotonic() + TIMEOUT_S
            while len(server.entries()) < 4 and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            assert len(server.entries()) == 4
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        others = set(multiprocessing.active_children())
        try:
            asyncio.run(cancel_mid_run())
            assert set(multiprocessing.active_children()) <= others
        finally:
            server.allow(None)
    assert len(server.entries()) == 4


_ORPHAN_SCRIPT = """
import multiprocessing, os, sys, threading, time
from relreason_dagster.llm.gateway import run_model, run_model_async
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore

if __name__ == "__main__":
    api_base, lake_dir = sys.argv[1], sys.argv[2]
    os.environ["RELREASON_FAKE_KEY"] = "sk-fake"
    spec = ModelEntry(name="orphan", litellm_model="openai/fake-model", concurrency=4, workers=2,
                     api_base=api_base, api_key_env="RELREASON_FAKE_KEY", timeout_s=600)
    prompts = [{"prompt_id": f"o{i}", "messages": [{"role": "user", "content": f"o{i}"}], "max_tokens": 8}
               for i in range(40)]
    store = ResponseStore(Lake.open(lake_dir))
    threading.Thread(target=run_model, args=(store, spec, prompts), daemon=True).start()
    while len(multiprocessing.active_children()) < 2:
        time.sleep(0.05)
    print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
    time.sleep(3600)
"""


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting for its reaper counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_exit_when_the_run_process_is_killed(tmp_path):
    """A killed run (kill -9) leaves no worker behind to go on calling a paid API."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    with FakeOpenAIServer() as server:
        server.allow(0)  # hold every request: the workers are mid-call when their parent dies
        proc = subprocess.Popen(
            [sys.executable, "-c", _ORPHAN_SCRIPT, server.api_base, str(tmp_path / "lake")],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        try:
            assert proc.stdout is not None
            pids = [int(p) for p in proc.stdout.readline().split()]
            assert len(pids) == 2, pids
            deadline = time.monotonic() + TIMEOUT_S
            while len(server.entries()) < 4 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(server.entries()) == 4, "both workers should have their two requests in flight"
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=TIMEOUT_S)
            deadline = time.monotonic() + TIMEOUT_S
            while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not any(_running(pid) for pid in pids), f"workers outlived their run: {pids}"
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            server.allow(None)
    assert len(server.entries()) == 4
