"""Two runs of the same model at once pay once; two runs of different models still run side by side.

Before: two ``relreason run --model M`` started together both found the same prompts unanswered and
both asked them (55 calls for 36 prompts).  Now a run holds its model's claim (``storage/claims.py``)
from looking at what is stored until its answers are written: the second run waits, prints one line
saying so, then finds the answers and asks nothing.

Each run is a process of its own (the claim is an OS file lock, so a thread would not show it), on
one fresh lake, against a fake OpenAI server (named as such: a stand-in for a provider) that holds
every answer until the test allows them.  "The second run waited" and "the two models overlapped" are
facts the server and the processes report, never timings.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, prompt_key

pytestmark = pytest.mark.integration

REPO_ROOT = Path(__file__).resolve().parents[3]
N_PROMPTS = 24
# Generous: only a stalled machine could reach it, and then the test is slow rather than wrong.
DEADLINE_S = 180.0
_NOTICE = "waiting for it to finish"

_RUN_SCRIPT = """
import sys
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.run_stats import ProgressPrinter
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore

if __name__ == "__main__":
    api_base, lake_dir, name, litellm_model, workers = sys.argv[1:6]
    spec = ModelEntry(name=name, litellm_model=litellm_model, concurrency=4, workers=int(workers),
                     api_base=api_base, api_key_env="RELREASON_FAKE_KEY", timeout_s=600)
    prompts = [{"prompt_id": f"s{i}", "messages": [{"role": "user", "content": f"same {i}"}],
                "max_tokens": 8, "benchmark": "toy"} for i in range(int(sys.argv[6]))]
    stats = run_model(ResponseStore(Lake.open(lake_dir)), spec, prompts, progress=ProgressPrinter())
    print(f"RESULT called={stats.called} skipped={stats.skipped} errors={stats.errors}", flush=True)
    print(stats.summary(), flush=True)
"""


def _start(
    server: FakeOpenAIServer, lake: Path, name: str, litellm_model: str, workers: int = 1
) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "RELREASON_FAKE_KEY": "sk-fake"}
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            _RUN_SCRIPT,
            server.api_base,
            str(lake),
            name,
            litellm_model,
            str(workers),
            str(N_PROMPTS),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=lake.parent,
    )


def _wait_for(condition, what: str, procs) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        for proc in procs:
            if proc.poll() is not None:
                out, err = proc.communicate()
                pytest.fail(f"a run ended before {what}: {out}\n{err}")
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.05)


def _finish(proc: subprocess.Popen) -> tuple[str, str]:
    out, err = proc.communicate(timeout=DEADLINE_S)
    assert proc.returncode == 0, err
    return out, err


def _keys() -> set[str]:
    return {prompt_key([{"role": "user", "content": f"same {i}"}]) for i in range(N_PROMPTS)}


def test_the_same_model_twice_at_once_pays_once(tmp_path):
    lake = tmp_path / "lake"
    with FakeOpenAIServer() as server:
        server.allow(0)  # hold every answer: the first run is mid-way while the second starts
        procs = []
        try:
            # The first run splits its calls over two worker processes: the claim is the run's, not theirs.
            first = _start(server, lake, "same", "openai/fake-same", workers=2)
            procs.append(first)
            _wait_for(lambda: len(server.entries()) >= 4, "the first run's requests arrived", procs)
            second = _start(server, lake, "same", "openai/fake-same")
            procs.append(second)
            lines: list[str] = []
            reader = threading.Thread(target=lambda: lines.extend(iter(second.stderr.readline, "")))
            reader.start()
            _wait_for(
                lambda: any(_NOTICE in line for line in lines), "the second run said it waits", [second]
            )
            server.allow(None)
            out1, _ = _finish(first)
            out2, _ = _finish(second)
            reader.join(timeout=DEADLINE_S)
        finally:
            server.allow(None)
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        log = server.entries()

    # Every prompt asked exactly once, whichever run asked it.
    assert Counter(e.key for e in log) == Counter(_keys()), Counter(e.key for e in log)
    assert f"RESULT called={N_PROMPTS} skipped=0 errors=0" in out1
    assert f"RESULT called=0 skipped={N_PROMPTS} errors=0" in out2
    assert "waiting for another run of this model" in out2 and "waiting for another" not in out1
    notices = [line for line in lines if _NOTICE in line]
    assert len(notices) == 1, lines  # said once, not at every try
    assert notices[0].startswith("same: another run (pid "), notices


def test_two_different_models_at_once_run_side_by_side(tmp_path):
    lake = tmp_path / "lake"
    with FakeOpenAIServer() as server:
        server.allow(0)  # no answer until both models have requests in flight
        procs = [
            _start(server, lake, "model-a", "openai/fake-a"),
            _start(server, lake, "model-b", "openai/fake-b"),
        ]
        try:
            _wait_for(
                lambda: {e.model for e in server.entries()} >= {"fake-a", "fake-b"},
                "both models had requests in flight at once",
                procs,
            )
            server.allow(None)
            outs = [_finish(proc) for proc in procs]
        finally:
            server.allow(None)
            for proc in procs:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
        log = server.entries()
    for out, err in outs:
        assert f"RESULT called={N_PROMPTS} skipped=0 errors=0" in out
        assert _NOTICE not in err
    per_model = Counter(e.model for e in log)
    assert per_model == {"fake-a": N_PROMPTS, "fake-b": N_PROMPTS}
