"""Models side by side: one model vs two models through `relreason run`, default multiprocess executor.

Why: adding a model should cost its own calls, not another full run.  Two
``openai/...`` models against the local fake OpenAI server (0.2 s per answer,
concurrency 4 per model, ~200 relational prompts each) are run once alone and
once together in fresh homes; the ratio of wall times is the number the
orchestration issue asks for (≤ 1.3).  The model_work runs' own windows are
reported too, since prepare and dbt are a fixed cost of every run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer
from tests.perf._common import REPO_ROOT

DELAY_S = 0.2
CONCURRENCY = 4
# The smoke profile's relational section, with 9 tasks x (6 IID x 3 settings + 4 OOD x nl) = 198 prompts.
PROFILE_OVERRIDES = {"n_iid": 6, "n_ood": 4}
NO_OTHER_FAMILY = {"flenqa": None, "selfcontra": None, "kor": None}


def _profiles() -> dict[str, Any]:
    """A user profile file's content: smoke's relational section with two knobs changed, nothing else."""
    return {"bench-parallel": {"extends": "smoke", "relational": PROFILE_OVERRIDES, **NO_OTHER_FAMILY}}


def _models_yaml(api_base: str) -> str:
    return "models:\n" + "".join(
        f"  - name: {n}\n    litellm_model: openai/fake-{n}\n    api_base: {api_base}\n"
        f"    api_key_env: RELREASON_BENCH_KEY\n    concurrency: {CONCURRENCY}\n"
        for n in ("alpha", "beta")
    )


def _run(root: Path, models: list[str], env: dict[str, str]) -> dict[str, Any]:
    env = {**env, "RELREASON_HOME": str(root / "home")}
    cmd = [sys.executable, "-m", "relreason_dagster.cli", "run", "--profile", "bench-parallel"]
    for m in models:
        cmd += ["--model", m]
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(done.stdout[-2000:] + done.stderr[-3000:])
    windows = [line for line in done.stderr.splitlines() if line.startswith("relreason: model_work[")]
    return {"models": models, "wall_s": round(wall, 1), "model_work": windows}


def bench_parallel_models() -> dict[str, Any]:
    out: dict[str, Any] = {"delay_s": DELAY_S, "concurrency": CONCURRENCY}
    with (
        tempfile.TemporaryDirectory(prefix="relreason-bench-parallel-") as tmp,
        FakeOpenAIServer(delay_s=DELAY_S) as server,
    ):
        root = Path(tmp)
        (root / "models.yaml").write_text(_models_yaml(server.api_base))
        (root / "profiles.yaml").write_text(json.dumps(_profiles()))
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DAGSTER_HOME", "RELREASON_DUCKDB", "RELREASON_LAKE")
        }
        env.update(
            RELREASON_MODELS=str(root / "models.yaml"),
            RELREASON_PROFILES=str(root / "profiles.yaml"),
            RELREASON_BENCH_KEY="sk-bench",
            RELREASON_EXECUTOR="multiprocess",
            PYTHONPATH=str(REPO_ROOT),
        )
        out["one"] = _run(root / "one", ["alpha"], env)
        out["two"] = _run(root / "two", ["alpha", "beta"], env)
    out["ratio"] = round(out["two"]["wall_s"] / out["one"]["wall_s"], 2)
    return out


def render(result: dict[str, Any]) -> str:
    one, two = result["one"], result["two"]
    lines = [
        "## Models side by side (`relreason run`, multiprocess executor)",
        "",
        f"Fake OpenAI server answering after {result['delay_s']} s, concurrency {result['concurrency']} per "
        "model, 198 relational prompts per model, fresh home each.",
        "",
        "| run | wall s |",
        "|---|---:|",
        f"| one model (`--model alpha`) | {one['wall_s']} |",
        f"| two models (`--model alpha --model beta`) | {two['wall_s']} |",
        "",
        f"**Two models / one model = {result['ratio']}×** (sequential would be about 2× the model part).",
        "",
        "Model runs as the CLI reported them:",
        "",
        *[f"- one: `{w}`" for w in one["model_work"]],
        *[f"- two: `{w}`" for w in two["model_work"]],
    ]
    return "\n".join(lines) + "\n"
