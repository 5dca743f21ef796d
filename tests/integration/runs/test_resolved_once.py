"""One launch resolves its models once: `relreason run` of two models opens models.yaml once across all
its processes and checks each model's API key once.

Before: one run of two models opened models.yaml 11 times across its processes (counted with strace)
and checked the key in four places.  Now the launch builds one plan (``launch_plan.py``) and its runs
get the resolved specs and the registry by value.

Counted, not timed: every process of the run (the command, the run pool's forkserver and workers, any
step process) imports a ``sitecustomize`` from this test's folder that appends a line to a log for
each audit event that opens models.yaml and for each ``relreason.api_key_check`` event (which
``llm.registry.require_api_key`` raises).  The models are a fake OpenAI-compatible server (a scripted
stand-in for a provider, named as such), under two names, with the multiprocess executor so the two
models' runs go side by side in the run pool.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[3]

SITECUSTOMIZE = """
import os
import sys

_LOG = os.environ.get("RELREASON_TEST_AUDIT_LOG")
_WATCHED = os.path.realpath(os.environ.get("RELREASON_MODELS", ""))


def _note(line):
    fd = os.open(_LOG, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, (line + "\\n").encode())
    finally:
        os.close(fd)


def _hook(event, args):
    if event == "open" and args and isinstance(args[0], (str, os.PathLike)):
        if os.path.realpath(os.fspath(args[0])) == _WATCHED:
            _note(f"open {os.getpid()}")
    elif event == "relreason.api_key_check":
        _note(f"check {args[0]} {os.getpid()}")


if _LOG:
    _note(f"start {os.getpid()} {' '.join(sys.argv[:2])[:80]}")
    sys.addaudithook(_hook)
"""


def test_a_run_of_two_models_reads_models_yaml_once_and_checks_each_key_once(tmp_path):
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    log = tmp_path / "audit.log"
    with FakeOpenAIServer(responder=lambda messages: "True") as server:
        models = tmp_path / "models.yaml"
        models.write_text(
            "models:\n"
            + "".join(
                f"  - name: {name}\n    litellm_model: openai/fake-{name}\n    api_base: {server.api_base}\n"
                "    api_key_env: RELREASON_FAKE_KEY\n    concurrency: 4\n"
                for name in ("alpha", "beta")
            ),
            encoding="utf-8",
        )
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(hooks), str(REPO)]),
            "RELREASON_TEST_AUDIT_LOG": str(log),
            "RELREASON_MODELS": str(models),
            "RELREASON_HOME": str(tmp_path / "home"),
            "RELREASON_EXECUTOR": "multiprocess",
            "RELREASON_FAKE_KEY": "sk-fake",
        }
        env.pop("DAGSTER_HOME", None)
        env.pop("RELREASON_LAKE", None)
        done = subprocess.run(
            [sys.executable, "-m", "relreason_dagster.cli", "run", "--model", "alpha", "--model", "beta"]
            + ["--benchmark", "relational", "--profile", "smoke", "--limit", "1"],
            env=env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=900,
        )
        asked = {entry.model for entry in server.entries()}
    assert done.returncode == 0, done.stderr[-3000:]
    assert asked == {"fake-alpha", "fake-beta"}  # both models were really called
    lines = log.read_text().splitlines()
    opens = [line for line in lines if line.startswith("open ")]
    checks = Counter(line.split()[1] for line in lines if line.startswith("check "))
    started = [line for line in lines if line.startswith("start ")]
    assert len(started) > 2, lines  # the command and the run pool's processes: all were watched
    assert len(opens) == 1, lines
    assert checks == {"alpha": 1, "beta": 1}, lines
