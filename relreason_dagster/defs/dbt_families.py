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
process is building.  ``dbt_project.yml`` reads the folder from :data:`FAMILIES_ENV`, which
:func:`use_family_models` sets in this process's environment so every ``dbt`` it starts sees it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

from relreason_dagster.benchmarks.registry import FAMILIES

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


def use_family_models(project_dir: Path) -> tuple[str, bool, list[Path]]:
    """Link the registered families' dbt files and point dbt at them.

    Returns the generated folder (relative to ``project_dir``, also set as :data:`FAMILIES_ENV` in
    this process's environment), whether its links changed (the manifest is then parsed again), and
    the families' dbt folders (whose files decide whether the manifest is stale).
    """
    folders = family_dbt_folders()
    relative = f"{FAMILIES_DIR}/{families_key(folders)}"
    changed = sync_links(project_dir / relative, family_links(folders))
    os.utime(project_dir / relative)
    prune_family_sets(project_dir, KEEP_FAMILY_SETS)
    os.environ[FAMILIES_ENV] = relative
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


def family_models_env(project_dir: Path) -> dict[str, str]:
    """This process's environment with :data:`FAMILIES_ENV` set, for a ``dbt`` started by hand (a
    test's build): the registered families linked first (a changed set of links drops the manifest
    of that set, so the next import of ``defs/dbt.py`` parses again)."""
    with parse_lock(project_dir):
        relative, changed, _ = use_family_models(project_dir)
        if changed:
            (project_dir / "target" / Path(relative).name / "manifest.json").unlink(missing_ok=True)
    return {**os.environ, FAMILIES_ENV: relative}
