"""How long the door takes: a refused launch and `--help`, each a whole command in a fresh interpreter
(issue 58, item 2; target ≤ 1.5 s idle).

Why beside a second tree: on a shared 2-core machine the load moves from one minute to the next, so
a "before" measured an hour earlier says little.  Each command runs alternately in this checkout and
in a checkout of ``BEFORE_COMMIT`` (the tree before the door stopped importing the engines), the same
number of times, with the load average read before each; the table gives both medians side by side.
``tests/unit/cli/test_door_imports.py`` holds the load-independent form (what a refused launch
imports); nothing here is asserted.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.perf._common import REPO_ROOT

DOOR_TARGET_S = 1.5
BEFORE_COMMIT = "a6d366f"  # main before issue 58's door (a refused launch imported LiteLLM, SymPy)
REPEAT = 3
NOWHERE = "http://127.0.0.1:9/v1"  # never asked: every command here is refused before a call
COMMANDS: dict[str, list[str]] = {
    "--model nosuch/x": ["run", "--model", "nosuch/x"],
    "-M max_cost=5 on an unpriced model": [
        "run",
        "--model",
        "openai/surely-unpriced-model",
        "-M",
        f"api_base={NOWHERE}",
        "-M",
        "max_cost=5",
    ],
    "--samples 1000000000": ["run", "--samples", "1000000000"],
    "relreason --help": ["--help"],
    "relreason run --help": ["run", "--help"],
}


def _checkout(commit: str, into: Path) -> Path | None:
    """``commit``'s tree extracted into ``into`` (no git worktree is registered); None if unknown."""
    archive = subprocess.run(["git", "archive", commit], cwd=REPO_ROOT, capture_output=True)
    if archive.returncode != 0:
        return None
    into.mkdir(parents=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def _once(tree: Path, argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    load = os.getloadavg()[0]
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "relreason_dagster.cli", *argv],
        cwd=cwd,
        env={**env, "PYTHONPATH": str(tree)},
        capture_output=True,
        text=True,
    )
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {
        "s": round(wall, 2),
        # user + system CPU of the command: on a busy machine the wall time stretches, this hardly does
        "cpu_s": round(after.ru_utime - cpu.ru_utime + after.ru_stime - cpu.ru_stime, 2),
        "load": round(load, 2),
        "code": done.returncode,
        "lines": len(done.stderr.strip().splitlines()),
    }


def bench_door(before: str | None = BEFORE_COMMIT, repeat: int = REPEAT) -> dict[str, Any]:
    """Each command ``repeat`` times here and (``before``) in that commit's tree, alternately."""
    result: dict[str, Any] = {
        "load_at_start": os.getloadavg(),
        "before_commit": before,
        "repeat": repeat,
        "commands": {},
    }
    with tempfile.TemporaryDirectory(prefix="relreason-bench-door-") as tmp:
        root = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RELREASON_", "DAGSTER_HOME"))}
        env.update(RELREASON_HOME=str(root / "home"), RELREASON_MODELS=str(root / "models.yaml"))
        (root / "models.yaml").write_text("models:\n  - name: local\n    litellm_model: local/smollm2-135m\n")
        trees = {"now": REPO_ROOT}
        old = _checkout(before, root / "before") if before else None
        if old is not None:
            trees["before"] = old
        for label, argv in COMMANDS.items():
            runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
            for _ in range(repeat):
                for name, tree in trees.items():
                    runs[name].append(_once(tree, argv, env, root))
            result["commands"][label] = {
                name: {
                    "median_s": round(statistics.median(r["s"] for r in found), 2),
                    "median_cpu_s": round(statistics.median(r["cpu_s"] for r in found), 2),
                    "load": round(statistics.median(r["load"] for r in found), 1),
                    "codes": sorted({r["code"] for r in found}),
                    "stderr_lines": max(r["lines"] for r in found),
                    "runs": found,
                }
                for name, found in runs.items()
            }
    result["load_at_end"] = os.getloadavg()
    return result


def render(result: dict[str, Any]) -> str:
    commands = result["commands"]
    has_before = any("before" in c for c in commands.values())
    head = "| command | now: median s (load) | CPU s |" + (
        f" before ({result['before_commit']}): median s (load) | CPU s |" if has_before else ""
    )
    lines = [
        "## The door",
        "",
        "A refused launch and `--help`, each a whole `python -m relreason_dagster.cli` in a fresh",
        "interpreter,",
        f"{result.get('repeat', REPEAT)} times each"
        + (", alternating with the tree before the change" if has_before else "")
        + f"; load average at start {result['load_at_start'][0]:.1f}, at end {result['load_at_end'][0]:.1f}",
        "(2 cores: above 2 every wall time is stretched; the command's CPU seconds much less so, and",
        f"idle its wall time is about its CPU time).  Target ≤ {DOOR_TARGET_S} s idle.",
        "",
        head,
        "|---|---|---|" + ("---|---|" if has_before else ""),
    ]
    for label, found in commands.items():
        now = found["now"]
        row = f"| `{label}` | {now['median_s']} ({now['load']}) | {now['median_cpu_s']} |"
        if has_before:
            was = found.get("before")
            row += f" {was['median_s']} ({was['load']}) | {was['median_cpu_s']} |" if was else " | |"
        lines.append(row)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # `python -m tests.perf.bench_door [--no-before] [--repeat N]`: this part alone
    times = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else REPEAT
    outcome = bench_door(before=None if "--no-before" in sys.argv else BEFORE_COMMIT, repeat=times)
    print(json.dumps(outcome, indent=1))
    print(render(outcome))
