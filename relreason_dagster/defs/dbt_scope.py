"""Which dbt models a run rebuilds: those downstream of what it wrote, not every family's marts.

Why: a run of one family (or one prompt) used to build and test the whole dbt project, 272 nodes of
which half were other families' marts that read nothing the run changed.  Now the ``marts`` run of a
launch selects only some of the dbt multi-asset's keys, and dagster-dbt turns that subset into dbt's
own ``--select`` (``@dbt_assets`` subsets itself when a run selects part of it).  The models it keeps:

* every model of a family the run covers (its ``staging/``, ``intermediate/`` and ``marts/`` folders,
  and a top-level mart named after its folder or one of its baselines, as in ``defs/groups.py``);
* every shared model (staging, intermediate, the marts every family shares) that reads a raw table
  or a model kept above, directly or through other kept models: the raw tables are what the run wrote;
* not another family's model, nor a shared one that reads only those (it reads nothing that changed).

A model left out still holds what a full build would write, since none of its inputs changed: that
holds only if the home's dbt relations were all built from the same dbt files before, so a subset is
used only after a full build of this home with the same manifest (:func:`full_build_current`, the
record :func:`record_full_build` writes after each successful full build).  A fresh home, a changed
dbt file (a model, a macro, a family added or removed) or a replaced DuckDB file therefore builds
everything, and so does ``relreason run --all-marts`` and ``relreason demo``.

``RELREASON_MARTS`` says the same for every launch of a process: ``auto`` (the default, as above),
``all`` (always build everything, as ``--all-marts``) or ``run`` (the run's models even in a home with
no full build: the other families' marts are then missing, not empty; for tests and quick looks
that read only their family's marts, where the full first build is most of the time).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import dagster as dg

from relreason_dagster import paths
from relreason_dagster.benchmarks.registry import FAMILIES
from relreason_dagster.common import atomic_files
from relreason_dagster.errors import ConfigError

# The home's record of its last successful full dbt build (what a subset build relies on).
FULL_BUILD_RECORD = "full_build.json"
UNIQUE_ID_KEY = "dagster_dbt/unique_id"  # dagster-dbt's metadata key naming a spec's dbt node
MARTS_ENV = "RELREASON_MARTS"
MARTS_MODES = ("auto", "all", "run")


def marts_mode() -> str:
    """``RELREASON_MARTS`` (default ``auto``); a value that is not a mode is one line naming them."""
    mode = os.environ.get(MARTS_ENV, "").strip() or "auto"
    if mode not in MARTS_MODES:
        raise ConfigError(f"{MARTS_ENV}={mode!r} is not a marts mode; use one of {', '.join(MARTS_MODES)}")
    return mode


def family_prefixes() -> dict[str, str]:
    """Each family's marts folder and baseline names (the prefixes of its top-level marts) -> its name."""
    prefixes: dict[str, str] = {}
    for family in FAMILIES.values():
        folder = getattr(family, "marts_folder", None)
        if folder:
            prefixes[folder] = family.name
            for baseline in getattr(family, "baselines", ()) or ():
                prefixes[baseline] = family.name
    return prefixes


def node_family(fqn: Sequence[str], prefixes: Mapping[str, str]) -> str | None:
    """The family a dbt node belongs to, from its fully qualified name, or None for a shared node.

    A node in a family's folder is that family's; so is one named ``<folder>_...`` or
    ``<baseline>_...`` (the ``<family>_budget`` marts, the DLM's marts at the top level).
    """
    for part in fqn[1:-1]:
        if part in prefixes:
            return prefixes[part]
    name = fqn[-1] if fqn else ""
    for prefix, family in prefixes.items():
        if name.startswith(f"{prefix}_"):
            return family
    return None


def kept_nodes(manifest: Mapping[str, Any], families: Iterable[str], prefixes: Mapping[str, str]) -> set[str]:
    """The unique ids of the models and seeds a run of ``families`` rebuilds (see the module's docstring)."""
    covered = set(families)
    nodes = {
        uid: node
        for uid, node in manifest.get("nodes", {}).items()
        if node.get("resource_type") in ("model", "seed", "snapshot")
    }
    kept: set[str] = set()

    @functools.cache
    def is_kept(uid: str) -> bool:
        node = nodes[uid]
        family = node_family(node.get("fqn", []), prefixes)
        if family is not None:
            return family in covered
        for parent in (node.get("depends_on") or {}).get("nodes", []):
            if parent.startswith("source.") or (parent in nodes and is_kept(parent)):
                return True
        return False

    for uid in nodes:
        if is_kept(uid):
            kept.add(uid)
    return kept


def manifest_digest(manifest: Mapping[str, Any]) -> str:
    """A digest of what the manifest's dbt files say (models' code and configs, tests, macros,
    sources), not of when it was parsed: equal digests mean a build would run the same SQL."""
    parts: dict[str, Any] = {"dbt": (manifest.get("metadata") or {}).get("dbt_version")}
    for uid, node in manifest.get("nodes", {}).items():
        parts[uid] = [
            (node.get("checksum") or {}).get("checksum"),
            node.get("config"),
            (node.get("depends_on") or {}).get("nodes"),
        ]
    for uid, source in manifest.get("sources", {}).items():
        parts[uid] = [source.get("relation_name"), source.get("config")]
    for uid, macro in manifest.get("macros", {}).items():
        parts[uid] = macro.get("macro_sql")
    blob = json.dumps(parts, sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def _database_identity(database: str | Path) -> list[int] | None:
    """The DuckDB file's device and inode: a file deleted and made again is another database (unless
    the file system hands the freed inode to the new file; the record's manifest digest and path
    still have to match, and ``--all-marts`` builds everything whatever the record says)."""
    try:
        stat = Path(database).stat()
    except OSError:
        return None
    return [stat.st_dev, stat.st_ino]


def _record_path() -> Path:
    """Where the record is (looked up without creating the home: planning a run only reads)."""
    return paths.relreason_home_path() / "dbt" / FULL_BUILD_RECORD


def record_full_build(manifest: Mapping[str, Any], database: str | Path) -> None:
    """Note that every dbt node of ``manifest`` was just built into ``database`` (after a successful
    full build): later runs of the home may then build a subset."""
    record = {
        "manifest": manifest_digest(manifest),
        "database": str(Path(database).resolve()),
        "identity": _database_identity(database),
    }
    path = _record_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_files.write_text(path, json.dumps(record))


def full_build_current(manifest: Mapping[str, Any], database: str | Path) -> bool:
    """Whether the home's last full build used this manifest's dbt files and this DuckDB file."""
    try:
        record = json.loads(_record_path().read_text())
    except (OSError, ValueError):
        return False
    return (
        isinstance(record, dict)
        and record.get("manifest") == manifest_digest(manifest)
        and record.get("database") == str(Path(database).resolve())
        and record.get("identity") == _database_identity(database)
        and record.get("identity") is not None
    )


def dbt_keys_for(
    assets: dg.AssetsDefinition, manifest: Mapping[str, Any], families: Iterable[str]
) -> set[dg.AssetKey]:
    """The keys of ``assets`` (the dbt multi-asset) that a run of ``families`` rebuilds."""
    kept = kept_nodes(manifest, families, family_prefixes())
    return {spec.key for spec in assets.specs if (spec.metadata or {}).get(UNIQUE_ID_KEY) in kept}
