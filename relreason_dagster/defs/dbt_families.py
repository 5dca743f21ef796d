"""Each registered family's dbt models, linked into the dbt project so one project builds them all.

A family keeps its dbt files in its own folder (``<family package>/dbt/``: ``sources.yml`` for the
raw tables its ``tables.py`` declares, ``staging/``, ``intermediate/`` and ``marts/`` with their
yml), whether it is built in or comes from an installed package (entry point ``relreason.families``,
its folder then in site-packages).  dbt reads models only from the ``model-paths`` of
``dbt_project.yml``, which are fixed strings relative to the project, and walks them without
following a linked folder; so the project's second model path is a generated folder,
``dbt_project/families/<key>/``, holding one symbolic link per family file, placed where the file
would sit in the project: ``models/<layer>/<family's marts folder>/<file>`` (and a family's macros in
``macros/<folder>/``, the second macro path).  A mart keeps the dbt name
(fqn) it had in ``models/marts/<folder>/``, so the layers' configs (schema, materialization) and the
Dagster groups apply unchanged, and an edit through a link edits the family's own file.

``<key>`` is a hash of the registered families and their folders: a process that registers another
family (a test's toy family) links and parses its own project state, never the one a concurrent
process is building.  ``dbt_project.yml`` reads the folder from :data:`FAMILIES_ENV`, which each
``dbt`` relreason starts gets in its environment (``defs/dbt_prepare.py`` says who links and when).

A baseline (a non-LLM model a family declares in ``baseline.py``) writes its answers into the shared
``raw.parsed_answers``, but from its own asset, ``<name>_answers``.  Its family's ``sources.yml`` names
that table again as source ``raw.<name>_answers`` (``identifier: parsed_answers``, asset key
``<name>_answers``), so dbt and the Dagster asset graph see the baseline's asset upstream of the shared
staging.  The shared ``stg_parsed_answers`` must read every such source without naming one, so the
generated folder also holds one file that is not a link: the macro ``registered_baselines()``
(:data:`BASELINE_MACRO`), written from the registry (``baseline_names()``), which returns each
baseline's model and source name.  A macro rather than a dbt var or an environment variable: it lives
in the same generated folder as the links, so a set of families and its list of baselines are always
parsed together, and its list is a literal, so the loop over it in ``stg_parsed_answers`` runs at parse
time and each ``source()`` call in it is recorded as a dependency (a list dbt had to query would be
empty while dbt parses, ``execute`` being false, and the lineage would be lost).  A registered baseline
whose family's ``sources.yml`` lacks its source is a one-line error naming the lines to add.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from relreason_dagster.benchmarks.registry import FAMILIES, baseline_family, baseline_names
from relreason_dagster.common import atomic_files
from relreason_dagster.errors import ConfigError

# What dbt_project.yml's model-paths reads: the generated folder, relative to the project.
FAMILIES_ENV = "DBT_RELREASON_FAMILIES"
# The generated folder under the dbt project (git-ignored): one subfolder per set of registered families.
FAMILIES_DIR = "families"
LAYERS = ("staging", "intermediate", "marts")
# Sets of families whose links and manifest are kept (each new set, e.g. a test's family in a temporary
# folder, adds one; the one in use is the newest, as each use touches it).
KEEP_FAMILY_SETS = 8
# What dbt reads from a model path: SQL and Python models, their yml (schemas, sources).
MODEL_SUFFIXES = (".sql", ".py", ".yml")
# The generated macro listing the registered baselines (relative to a set's generated folder).
BASELINE_MACRO = Path("macros", "registered_baselines.sql")
# The raw table every baseline's answers go to, and so the identifier of each baseline's source.
BASELINE_TABLE = "parsed_answers"


def family_dbt_folder(family: object) -> Path | None:
    """The ``dbt`` folder beside the module that defines ``family``'s class, if it has one."""
    module = sys.modules.get(type(family).__module__)
    file = getattr(module, "__file__", None)
    if file is None:
        return None
    folder = Path(file).resolve().parent / "dbt"
    return folder if folder.is_dir() else None


def family_dbt_folders() -> dict[str, tuple[str, Path]]:
    """Each registered family with dbt files: its name -> (its marts folder name, its dbt folder)."""
    folders = {}
    for name, family in sorted(FAMILIES.items()):
        folder = family_dbt_folder(family)
        if folder is not None:
            folders[name] = (getattr(family, "marts_folder", None) or name, folder)
    return folders


def family_links(folders: dict[str, tuple[str, Path]]) -> dict[Path, Path]:
    """Where each family file is linked (relative to the generated folder) -> the file itself.

    Of a family whose marts folder is ``kor``: ``<dbt>/marts/x.sql`` is linked at
    ``models/marts/kor/x.sql``, a file outside the three layers (``sources.yml``) at
    ``models/kor/sources.yml``, and a macro (``<dbt>/macros/m.sql``) at ``macros/kor/m.sql``.
    """
    links: dict[Path, Path] = {}
    for marts_folder, folder in folders.values():
        for file in sorted(folder.rglob("*")):
            if not file.is_file() or file.suffix not in MODEL_SUFFIXES or "__pycache__" in file.parts:
                continue
            rel = file.relative_to(folder)
            if rel.parts[0] == "macros":
                links[Path("macros", marts_folder, *rel.parts[1:])] = file
            elif rel.parts[0] in LAYERS:
                links[Path("models", rel.parts[0], marts_folder, *rel.parts[1:])] = file
            else:
                links[Path("models", marts_folder, *rel.parts)] = file
    return links


def family_paths(key: str, links: dict[Path, Path]) -> Callable[[str], str]:
    """A line of dbt's output with each linked file (``[.../dbt_project/]families/<key>/<link>``) named
    by the family file it links to: relative to the working directory when under it, else absolute."""
    pattern = re.compile(rf"(?:[^\s'\"(]*dbt_project/)?families/{re.escape(key)}/([^\s'\"),:]+)")

    def name(match: re.Match[str]) -> str:
        target = links.get(Path(match.group(1)))
        if target is None:
            return match.group(0)
        here = Path.cwd()
        return os.path.relpath(target, here) if target.is_relative_to(here) else str(target)

    return lambda line: pattern.sub(name, line)


def baseline_source(model: str) -> str:
    """The name of baseline ``model``'s answers: its scoring asset (``defs/baseline_assets.py``) and the
    ``raw`` source table its family's ``sources.yml`` declares for it, so the two read alike."""
    return f"{model}_answers"


def source_tables(folder: Path) -> dict[str, dict[str, Any]]:
    """The ``raw`` source tables a family's ``<folder>/sources.yml`` declares, by name (dbt merges the
    tables of one source declared in several files, so each family lists only its own)."""
    file = folder / "sources.yml"
    if not file.is_file():
        return {}
    sources = (yaml.safe_load(file.read_text()) or {}).get("sources") or []
    return {
        table["name"]: table
        for source in sources
        if source.get("name") == "raw"
        for table in source.get("tables") or []
    }


def baseline_source_problem(folder: Path | None, model: str) -> str | None:
    """What is wrong with baseline ``model``'s source in its family's dbt folder, or None when the
    family's ``sources.yml`` declares it as the shared staging reads it."""
    name = baseline_source(model)
    fix = (
        f"add to its dbt/sources.yml, under source raw: '- name: {name}', 'identifier: {BASELINE_TABLE}', "
        f"'meta: {{dagster: {{asset_key: [\"{name}\"]}}}}'"
    )
    if folder is None:
        return f"baseline {model!r} has no dbt folder beside its family's module: {fix}"
    table = source_tables(folder).get(name)
    if table is None:
        return f"baseline {model!r} has no source raw.{name} in {folder / 'sources.yml'}: {fix}"
    asset_key = ((table.get("meta") or {}).get("dagster") or {}).get("asset_key")
    if table.get("identifier") != BASELINE_TABLE or asset_key != [name]:
        return f"source raw.{name} in {folder / 'sources.yml'} must read the baseline's rows: {fix}"
    return None


def registered_baselines() -> list[dict[str, str]]:
    """Each registered baseline's model and source name; a baseline its family's ``sources.yml`` does not
    declare is a one-line :class:`ConfigError`."""
    baselines = []
    for model in baseline_names():
        family = FAMILIES.get(baseline_family(model))
        problem = baseline_source_problem(family_dbt_folder(family) if family else None, model)
        if problem is not None:
            raise ConfigError(problem)
        baselines.append({"model": model, "source": baseline_source(model)})
    return baselines


def baseline_macro(baselines: list[dict[str, str]]) -> str:
    """The text of the generated macro ``registered_baselines()`` (a literal list, read at parse time)."""
    return (
        "{#- Generated by relreason_dagster/defs/dbt_families.py from the registered families' baselines:\n"
        "    each one's model name and its raw source (declared in its family's sources.yml). -#}\n"
        "{% macro registered_baselines() %}\n"
        f"  {{{{ return({json.dumps(baselines)}) }}}}\n"
        "{% endmacro %}\n"
    )


def write_if_changed(path: Path, text: str) -> bool:
    """Write ``text`` to ``path`` unless it already holds it (an unchanged file keeps the manifest
    current); True if it was written."""
    if path.is_file() and not path.is_symlink() and path.read_text() == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_symlink() or (path.exists() and not os.access(path, os.W_OK)):
        path.unlink()  # a link (or a read-only copy) is replaced, not written through
    atomic_files.write_text(path, text)  # whole or not at all: dbt parses it
    return True


def families_key(folders: dict[str, tuple[str, Path]]) -> str:
    """A short hash naming one set of registered families and their folders."""
    text = "\n".join(f"{name}={marts}={folder}" for name, (marts, folder) in sorted(folders.items()))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def sync_links(root: Path, links: dict[Path, Path]) -> bool:
    """Make ``root`` hold exactly ``links`` (symbolic links to the family files); True if it changed.

    The caller holds the parse lock, so no other process edits ``root`` meanwhile.
    """
    changed = False
    wanted = {root / rel: target for rel, target in links.items()}
    if root.is_dir():
        for path in sorted(root.rglob("*"), reverse=True):  # files before their folders
            if path.is_symlink() and (path not in wanted or Path(os.readlink(path)) != wanted[path]):
                path.unlink()
                changed = True
            elif path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
                path.rmdir()
    for path, target in wanted.items():
        if not path.is_symlink():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.symlink_to(target)
            changed = True
    root.mkdir(parents=True, exist_ok=True)
    return changed


def prune_family_sets(project_dir: Path, keep: int) -> None:
    """Delete the links and manifest of all but the ``keep`` most recently used sets of families."""
    root = project_dir / FAMILIES_DIR
    if not root.is_dir():
        return
    sets = sorted((p for p in root.iterdir() if p.is_dir()), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in sets[keep:]:
        for folder in (old, project_dir / "target" / old.name):
            shutil.rmtree(folder, ignore_errors=True)


def families_folder(folders: dict[str, tuple[str, Path]] | None = None) -> str:
    """The generated folder of the registered families (or of ``folders``), relative to the project:
    what :data:`FAMILIES_ENV` names.  Computed only: nothing is linked or written."""
    return f"{FAMILIES_DIR}/{families_key(family_dbt_folders() if folders is None else folders)}"


def use_family_models(project_dir: Path) -> tuple[str, bool, list[Path]]:
    """Link the registered families' dbt files into their generated folder.

    Returns the generated folder (relative to ``project_dir``: the value of :data:`FAMILIES_ENV` for
    a ``dbt`` that should see them), whether its links changed (the manifest is then parsed again),
    and the families' dbt folders (whose files decide whether the manifest is stale).  This process's
    environment is left alone: each ``dbt`` started gets the folder in its own.
    """
    folders = family_dbt_folders()
    relative = families_folder(folders)
    changed = sync_links(project_dir / relative, family_links(folders))
    macro = baseline_macro(registered_baselines())
    changed |= write_if_changed(project_dir / relative / BASELINE_MACRO, macro)
    os.utime(project_dir / relative)
    prune_family_sets(project_dir, KEEP_FAMILY_SETS)
    return relative, changed, [folder for _, folder in folders.values()]


@contextlib.contextmanager
def parse_lock(project_dir: Path) -> Iterator[None]:
    """An exclusive lock on ``target/.parse.lock``: one process links and parses at a time."""
    target = project_dir / "target"
    target.mkdir(parents=True, exist_ok=True)
    with open(target / ".parse.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
