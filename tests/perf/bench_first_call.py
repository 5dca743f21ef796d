"""How long a run takes to start: time to the first model call, and a smoke `--rerun` with every
answer stored (issue 37, item 10).

Why: each run paid 20–30 s before its first step did anything on a busy 2-core machine, and a smoke
re-run whose work is a few seconds took ~72 s idle.  Targets (idle machine): the first request of a
one-prompt run reaches the server within 5 s of `relreason run` starting, and the smoke `--rerun`
with every answer stored takes at most 30 s.

``relreason run`` runs as a user starts it (a fresh interpreter, the multiprocess executor) against a
fake OpenAI server in this process, which records when each request arrives (``CLOCK_MONOTONIC``,
one clock for every process).  The parts of the start are timed each in a fresh interpreter: the
interpreter and the CLI module, the Definitions (dbt manifest included), the Dagster instance, the
Great Expectations context.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from tests.fakes.openai_server import FakeOpenAIServer
from tests.perf._common import REPO_ROOT

FIRST_CALL_TARGET_S = 5.0
ONE_PROMPT_TARGET_S = 10.0
# The same measures on the tree before issue 58 (its commit, load and date inside): the "before"
# column of the report.  Measured once, not re-run by `make bench`; bench_door.py measures its
# before and after side by side because a refused launch takes seconds, not minutes.
BEFORE = Path(__file__).resolve().parent / "first_call_before.json"
RERUN_TARGET_S = 30.0
# One prompt: one generated KOR logic question (our own rule text), no self-correction round.
ONE_PROMPT = {
    "one-prompt": {
        "extends": "smoke",
        "relational": None,
        "selfcontra": None,
        "flenqa": None,
        "kor": {
            "source": "generated",
            "categories": ["logic"],
            "generated_rules": {"logic": ["1"]},
            "mixed": {},
            "self_correction_rounds": 0,
            "max_tokens": 16,
        },
    }
}
_SPLIT = re.compile(
    r"relreason: (?P<total>[\d.]+) s in all: startup (?P<startup>[\d.]+) s, up-to-date check "
    r"(?P<check>[\d.]+) s, runs (?P<runs>[\d.]+) s, results (?P<results>[\d.]+) s"
)
_RUN = re.compile(r"relreason: (?P<label>\S+) done in (?P<seconds>\d+) s \(run ")

# Each part of a start, in a fresh interpreter: what it costs on its own (later parts include the
# imports of earlier ones, so each is timed after them).
PARTS_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
import relreason_dagster.cli  # noqa: F401
t1 = time.perf_counter()
from relreason_dagster.pipeline import prepare_environment
prepare_environment("smoke")
import dagster as dg
t2 = time.perf_counter()
with dg.DagsterInstance.get() as instance:
    instance.get_runs(limit=1)
t3 = time.perf_counter()
from relreason_dagster.defs.dbt_prepare import prepare_dbt_project
prepare_dbt_project()
t4 = time.perf_counter()
import relreason_dagster.definitions  # noqa: F401
t5 = time.perf_counter()
import great_expectations as gx
context = gx.get_context(mode="ephemeral")
t6 = time.perf_counter()
print(json.dumps({
    "cli_import_s": t1 - t0, "dagster_import_s": t2 - t1, "instance_s": t3 - t2,
    "dbt_manifest_check_s": t4 - t3, "definitions_s": t5 - t4, "gx_context_s": t6 - t5,
}))
"""


def _env(home: Path, models: Path, profiles: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DAGSTER_HOME", "RELREASON_DUCKDB", "RELREASON_LAKE", "RELREASON_EXECUTOR")
    }
    env.update(
        PYTHONPATH=str(REPO_ROOT),
        RELREASON_HOME=str(home),
        RELREASON_MODELS=str(models),
        RELREASON_PROFILES=str(profiles),
        FAKE_KEY="not-a-key",
    )
    return env


def _run(env: dict[str, str], *args: str) -> dict[str, Any]:
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "relreason_dagster.cli", "run", "--model", "fake", *args],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.monotonic() - start
    if done.returncode != 0:
        raise RuntimeError(done.stdout[-2000:] + done.stderr[-3000:])
    split = _SPLIT.search(done.stderr)
    return {
        "started": start,
        "wall_s": round(wall, 1),
        "split_s": {k: float(v) for k, v in split.groupdict().items()} if split else {},
        "runs_s": {m["label"]: int(m["seconds"]) for m in _RUN.finditer(done.stderr)},
    }


def start_parts(env: dict[str, str]) -> dict[str, float]:
    """The parts of a run's start, each timed in a fresh interpreter (see :data:`PARTS_SCRIPT`)."""
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", PARTS_SCRIPT], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    parts = {k: round(v, 2) for k, v in json.loads(done.stdout.strip().splitlines()[-1]).items()}
    parts["interpreter_and_all_s"] = round(time.monotonic() - start, 2)
    return parts


def bench_first_call(smoke: bool = True) -> dict[str, Any]:
    """Time to the first request of a one-prompt run, then (``smoke``) a smoke run and its `--rerun`."""
    result: dict[str, Any] = {"load_at_start": os.getloadavg()}
    prefix = "relreason-bench-first-call-"
    with tempfile.TemporaryDirectory(prefix=prefix) as tmp, FakeOpenAIServer() as server:
        root = Path(tmp)
        models = root / "models.yaml"
        models.write_text(
            yaml.safe_dump(
                {
                    "models": [
                        {
                            "name": "fake",
                            "litellm_model": "openai/fake",
                            "api_base": server.api_base,
                            "api_key_env": "FAKE_KEY",
                            "params": {"temperature": 0},
                            "concurrency": 8,
                        }
                    ]
                }
            )
        )
        profiles = root / "profiles.yaml"
        profiles.write_text(yaml.safe_dump(ONE_PROMPT))
        env = _env(root / "home", models, profiles)
        result["parts_s"] = start_parts(env)  # also creates the home and parses dbt if needed

        first = _run(env, "--profile", "one-prompt")
        if not server.log:
            raise RuntimeError("the one-prompt run sent no request")
        first["requests"] = len(server.log)
        first["first_call_s"] = round(server.log[0].t - first["started"], 2)
        result["one_prompt"] = first
        again = _run(env, "--profile", "one-prompt", "--rerun")  # the same, every answer stored
        again["requests"] = len(server.log) - first["requests"]
        result["one_prompt_rerun"] = again

        if smoke:
            before = len(server.log)
            # The Self-Contra judge defaults to the embedded model, which this registry lacks.
            fill = _run(env, "--profile", "smoke", "--judge", "fake")
            fill["requests"] = len(server.log) - before
            result["smoke_first"] = fill
            before = len(server.log)
            rerun = _run(env, "--profile", "smoke", "--judge", "fake", "--rerun")
            rerun["requests"] = len(server.log) - before
            result["smoke_rerun"] = rerun
    result["load_at_end"] = os.getloadavg()
    for part in ("one_prompt", "one_prompt_rerun", "smoke_first", "smoke_rerun"):
        result.get(part, {}).pop("started", None)
    return result


def _before() -> dict[str, Any] | None:
    try:
        return json.loads(BEFORE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def render(result: dict[str, Any]) -> str:
    parts = result["parts_s"]
    first = result["one_prompt"]
    was = _before()
    lines = [
        "## Start of a run",
        "",
        "`relreason run --model fake` against a fake OpenAI server (multiprocess executor, a fresh",
        f"interpreter as a user starts it). Load average at start {result['load_at_start'][0]:.1f}, "
        f"at end {result['load_at_end'][0]:.1f} (2 cores: above 2, every number here is stretched).",
        "",
        "| measure | seconds | target (idle) |",
        "|---|---|---|",
        f"| one-prompt run: `relreason run` start → first request at the server | {first['first_call_s']} "
        f"| ≤ {FIRST_CALL_TARGET_S:.0f} |",
        f"| one-prompt run, whole command | {first['wall_s']} | ≤ {ONE_PROMPT_TARGET_S:.0f} |",
        f"| one-prompt `--rerun`, every answer stored | {result['one_prompt_rerun']['wall_s']} "
        f"| ≤ {ONE_PROMPT_TARGET_S:.0f} |",
    ]
    if "smoke_rerun" in result:
        rerun = result["smoke_rerun"]
        lines += [
            f"| smoke run, first ({result['smoke_first']['requests']} requests) | "
            f"{result['smoke_first']['wall_s']} | |",
            f"| smoke `--rerun`, every answer stored ({rerun['requests']} requests) | {rerun['wall_s']} "
            f"| ≤ {RERUN_TARGET_S:.0f} |",
        ]
    if was is not None:
        load = f"load {was['load_at_start'][0]:.1f} → {was['load_at_end'][0]:.1f}"
        now = f"load {result['load_at_start'][0]:.1f} → {result['load_at_end'][0]:.1f}"
        lines += [
            "",
            f"Before and now side by side (before: commit {was.get('commit', '?')}, measured once; "
            "each at its own load, so compare with the loads in mind):",
            "",
            f"| measure | before ({load}) | now ({now}) | target (idle) |",
            "|---|---|---|---|",
            f"| start → first request | {was['one_prompt']['first_call_s']} | {first['first_call_s']} "
            f"| ≤ {FIRST_CALL_TARGET_S:.0f} |",
            f"| one-prompt run, whole command | {was['one_prompt']['wall_s']} | {first['wall_s']} "
            f"| ≤ {ONE_PROMPT_TARGET_S:.0f} |",
            f"| one-prompt `--rerun`, every answer stored | {was['one_prompt_rerun']['wall_s']} "
            f"| {result['one_prompt_rerun']['wall_s']} | ≤ {ONE_PROMPT_TARGET_S:.0f} |",
            *(
                f"| runs: {label} | {was['one_prompt']['runs_s'].get(label, '')} | {seconds} | |"
                for label, seconds in first.get("runs_s", {}).items()
            ),
        ]
    lines += [
        "",
        "Where a start goes, each part in a fresh interpreter (later parts exclude earlier imports):",
        "",
        "| part | seconds |" + (" before |" if was is not None else ""),
        "|---|---|" + ("---|" if was is not None else ""),
        *(
            f"| {name.removesuffix('_s').replace('_', ' ')} | {value} |"
            + (f" {was['parts_s'].get(name, '')} |" if was is not None else "")
            for name, value in parts.items()
        ),
        "",
        "The CLI's own split of each command (startup, up-to-date check, runs, results) and each run's",
        "seconds are in `report.json`.",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # `python -m tests.perf.bench_first_call [--no-smoke]`: this part alone
    outcome = bench_first_call(smoke="--no-smoke" not in sys.argv)
    print(json.dumps(outcome, indent=1))
    print(render(outcome))
