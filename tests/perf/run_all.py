"""Run the performance benchmarks and write ``tests/perf/report.md`` (``make bench``).

Usage::

    .venv/bin/python tests/perf/run_all.py                      # everything (~5 min + DLM training)
    .venv/bin/python tests/perf/run_all.py --only concurrency   # one or more, comma-separated
    .venv/bin/python tests/perf/run_all.py --only pipeline --per-split 20   # a quick, smaller pipeline
    py-spy record -o /tmp/bench.svg -- .venv/bin/python tests/perf/run_all.py --only pipeline --per-split 40

Why one process runs all benchmarks in sequence: the scripted provider and
the llama.cpp model live in-process, and running one after another (never
side by side) keeps each from stealing the other's CPU on a small machine.
Ratios in the report are only meaningful within one report.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # run as a script: make `tests.` and the package importable
    sys.path.insert(0, str(REPO_ROOT))

import relreason_dagster  # noqa: E402,F401  (offline/telemetry defaults, set once in relreason_dagster/env.py)

_bin = str(Path(sys.executable).parent)
if _bin not in os.environ.get("PATH", "").split(os.pathsep):  # dbt must come from this venv
    os.environ["PATH"] = _bin + os.pathsep + os.environ.get("PATH", "")

from tests.perf import (  # noqa: E402
    bench_concurrency,
    bench_dlm,
    bench_door,
    bench_first_call,
    bench_flenqa,
    bench_flenqa_long,
    bench_gateway_cpu,
    bench_kor,
    bench_local_model,
    bench_parallel_models,
    bench_pipeline,
    bench_retries,
    bench_second_demo,
    bench_selfcontra,
)
from tests.perf._common import busy_processes, machine_info  # noqa: E402

REPORT = Path(__file__).resolve().parent / "report.md"
RESULTS_JSON = Path(__file__).resolve().parent / "report.json"

BENCHES: dict[str, tuple[Callable[..., dict[str, Any]], Callable[[dict[str, Any]], str]]] = {
    "pipeline": (bench_pipeline.bench_pipeline, bench_pipeline.render),
    "concurrency": (bench_concurrency.bench_concurrency, bench_concurrency.render),
    "gateway_cpu": (bench_gateway_cpu.bench_gateway_cpu, bench_gateway_cpu.render),
    "retries": (bench_retries.bench_retries, bench_retries.render),
    "local_model": (bench_local_model.bench_local_model, bench_local_model.render),
    "second_demo": (bench_second_demo.bench_second_demo, bench_second_demo.render),
    "first_call": (bench_first_call.bench_first_call, bench_first_call.render),
    "door": (bench_door.bench_door, bench_door.render),
    "dlm": (bench_dlm.bench_dlm, bench_dlm.render),
    "flenqa": (bench_flenqa.bench_flenqa, bench_flenqa.render),
    "flenqa_long": (bench_flenqa_long.bench_flenqa_long, bench_flenqa_long.render),
    "selfcontra": (bench_selfcontra.bench_selfcontra, bench_selfcontra.render),
    "kor": (bench_kor.bench_kor, bench_kor.render),
    "parallel_models": (bench_parallel_models.bench_parallel_models, bench_parallel_models.render),
}


def _machine_section(info: dict[str, Any], busy: list[str]) -> str:
    lines = ["## Machine", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in info.items()]
    lines.append("")
    if busy:
        lines.append("**Other busy processes at start (numbers are skewed):**")
        lines += [f"- {b}" for b in busy]
    else:
        lines.append("No other process used >= 20% CPU at start.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--only", default="", help=f"comma-separated subset of: {', '.join(BENCHES)} (default: all)"
    )
    parser.add_argument(
        "--per-split",
        type=int,
        default=bench_pipeline.DEFAULT_PER_SPLIT,
        help="pipeline bench: samples per task and split (prompts = 54 x this; default %(default)s)",
    )
    parser.add_argument("--report", type=Path, default=REPORT, help="where to write the Markdown report")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(BENCHES)}")

    info = machine_info()
    busy = busy_processes()
    sections = [
        "# relreason performance report",
        "",
        f"Benchmarks: {', '.join(names)}.  All numbers come from this one run; compare ratios within it.",
        "",
        _machine_section(info, busy),
    ]
    results: dict[str, Any] = {"machine": info, "busy_at_start": busy}
    status = 0
    for name in names:
        run, render = BENCHES[name]
        kwargs = {"per_split": args.per_split} if name == "pipeline" else {}
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        busy_before = busy_processes()
        start = time.perf_counter()
        cpu_start = time.process_time()
        try:
            result = run(**kwargs)
        except Exception:  # noqa: BLE001 - one failing bench must not lose the others' numbers
            status = 1
            tb = traceback.format_exc()
            print(tb, file=sys.stderr)
            sections.append(f"## {name}: FAILED\n\n```\n{tb[-3000:]}\n```\n")
            results[name] = {"error": tb}
            continue
        elapsed = time.perf_counter() - start
        cpu = time.process_time() - cpu_start
        busy_after = busy_processes()
        result.update(bench_wall_s=round(elapsed, 1), bench_cpu_s=round(cpu, 1))
        result.update(busy_before=busy_before, busy_after=busy_after)
        results[name] = result
        footer = f"\n_{name}: {elapsed:.1f} s wall, {cpu:.1f} s CPU in this process._\n"
        others = sorted(set(busy_before) | set(busy_after))
        if others:
            footer += "\n**Other processes were busy around this benchmark (its numbers are skewed):**\n\n"
            footer += "\n".join(f"- {o}" for o in others) + "\n"
        sections.append(render(result) + footer)
        print(f"[bench] {name} done in {elapsed:.1f} s", file=sys.stderr, flush=True)

    report = "\n".join(sections)
    args.report.write_text(report)
    args.report.with_suffix(".json").write_text(json.dumps(results, indent=2, default=str))
    print(report)
    return status


if __name__ == "__main__":
    sys.exit(main())
