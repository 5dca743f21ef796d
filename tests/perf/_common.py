"""Helpers shared by the benchmarks: an isolated environment, timing, machine info.

Why a helper module: every benchmark must run against its own temporary
RELREASON_HOME / DuckDB so that it never reads (or pollutes) a developer's
``.relreason`` folder and never gets cache hits from an earlier run, and the
environment must be restored afterwards because all benchmarks share one
process (the scripted provider and the llama.cpp model live in-process).
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import datetime
from importlib import metadata
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]

# Environment variables a benchmark may change; restored by isolated_env().
_ENV_KEYS = (
    "RELREASON_HOME",
    "RELREASON_MODELS",
    "RELREASON_DUCKDB",
    "RELREASON_PROFILE",
    "RELREASON_PROFILES",
    "DAGSTER_HOME",
    "RELREASON_BENCH_KEY",
    "RELREASON_EXECUTOR",
    "RELREASON_LAKE",
)


@contextlib.contextmanager
def isolated_env(prefix: str, models_yaml: str | None = None) -> Iterator[Path]:
    """A temporary folder as RELREASON_HOME (and models.yaml), removed and env restored on exit.

    DAGSTER_HOME and RELREASON_DUCKDB are unset so the pipeline derives both
    from the temporary RELREASON_HOME, exactly as a fresh checkout would.
    """
    saved = {key: os.environ.get(key) for key in _ENV_KEYS}
    root = Path(tempfile.mkdtemp(prefix=f"relreason-bench-{prefix}-"))
    try:
        os.environ["RELREASON_HOME"] = str(root / "home")
        os.environ.pop("DAGSTER_HOME", None)
        os.environ.pop("RELREASON_DUCKDB", None)
        os.environ.pop("RELREASON_LAKE", None)
        # Scripted providers and patched profiles live in this process: runs execute here.
        os.environ.setdefault("RELREASON_EXECUTOR", "in_process")
        if models_yaml is not None:
            models = root / "models.yaml"
            models.write_text(models_yaml)
            os.environ["RELREASON_MODELS"] = str(models)
        yield root
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(root, ignore_errors=True)


def fresh_duckdb(path: Path) -> tuple[Any, Any]:
    """A DuckDB connection on a new file with the ``raw`` schema and a new lake beside it (no cache
    rows to hit): ``(connection, response store)``; ``raw.responses`` reads that lake."""
    import duckdb

    from relreason_dagster.storage.lake import Lake
    from relreason_dagster.storage.responses import ResponseStore
    from relreason_dagster.storage.schema import ensure_schema

    lake = Lake.open(path.with_suffix(".lake"))
    con = duckdb.connect(str(path))
    ensure_schema(con, lake)
    return con, ResponseStore(lake)


class Timer:
    """``with Timer() as t: ...`` then ``t.seconds``; monotonic wall time."""

    def __enter__(self) -> Timer:
        self.start = time.perf_counter()
        self.seconds = 0.0
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine_info() -> dict[str, Any]:
    """What a reader needs to compare numbers across machines."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count() or 0
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "n/a"
    mem = "unknown"
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
                break
    return {
        "date": datetime.now().astimezone().isoformat(timespec="seconds"),
        "cpu": _cpu_model(),
        "cores (os.cpu_count)": os.cpu_count(),
        "cores usable (affinity)": usable,
        "memory": mem,
        "load average before run (1/5/15 min)": load,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "litellm": _version("litellm"),
        "dagster": _version("dagster"),
        "duckdb": _version("duckdb"),
        "dbt-core": _version("dbt-core"),
        "llama-cpp-python": _version("llama_cpp_python"),
    }


def busy_processes(threshold_pct: float = 20.0) -> list[str]:
    """Other processes using noticeable CPU right now (their load skews every number)."""
    found: list[str] = []
    me = os.getpid()
    proc = Path("/proc")
    ticks = os.sysconf("SC_CLK_TCK")
    first: dict[int, tuple[int, str]] = {}
    for pid_dir in proc.iterdir():
        if not pid_dir.name.isdigit() or int(pid_dir.name) == me:
            continue
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = (pid_dir / "stat").read_text()
            fields = stat.rsplit(")", 1)[1].split()
            cmd = (pid_dir / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
            first[int(pid_dir.name)] = (int(fields[11]) + int(fields[12]), cmd)
    time.sleep(0.5)
    for pid, (before, cmd) in first.items():
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = (proc / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()
            pct = (int(fields[11]) + int(fields[12]) - before) / ticks / 0.5 * 100
            if pct >= threshold_pct:
                found.append(f"pid {pid} at {pct:.0f}% CPU: {cmd[:100]}")
    return found


def time_paper_build(family: Any, profile: Any) -> dict[str, float]:
    """Generate a family's paper-profile samples and prompts; their counts and the seconds it took."""
    from relreason_dagster import profiles

    start = time.perf_counter()
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    prompts = family.build_prompts(samples, profile)
    return {
        "paper_samples": len(samples),
        "paper_prompts": len(prompts),
        "paper_build_s": time.perf_counter() - start,
    }
