"""Importing the dbt assets writes nothing; preparing the dbt project is one explicit call (issue 59, item 3).

Linking the families' dbt files and ``dbt parse`` write into the checkout (``dbt_project/families/``,
``dbt_project/target/``), so they belong to :func:`prepare_dbt_project`, which the CLI, the code
location's load and the test session call; ``import relreason_dagster.defs.dbt`` only reads the
manifest's path.  The contract, checked in a fresh copy of the checkout: without a prepared project the
import fails in one line naming the fix and creates no file (not even the home); once prepared, the
import succeeds and still creates or touches nothing.

The copy holds what a ``git clone`` of this worktree would, edits not yet committed included (tracked
files and new ones git would add; ``.git`` and ignored files left out): a clone of HEAD would test the
last commit instead of the code under test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from relreason_dagster.defs.dbt_prepare import manifest_path, prepare_dbt_project, prepared_manifest
from relreason_dagster.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parents[3]
IMPORT = "import relreason_dagster.defs.dbt"


def _fresh_copy(dest: Path) -> Path:
    """The checkout's files as a fresh clone of it has them (no .git, nothing git ignores)."""
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("needs the checkout's git metadata to know which files a clone holds")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = REPO_ROOT / name
        if not source.exists() and not source.is_symlink():
            continue  # deleted in the worktree, not yet committed: a clone of this state lacks it
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    assert (dest / "relreason_dagster" / "defs" / "dbt.py").is_file()
    return dest


def _tree(root: Path) -> dict[str, int]:
    """Every path under ``root`` with its modification time (a new file changes its folder's too)."""
    return {str(p.relative_to(root)): p.lstat().st_mtime_ns for p in sorted(root.rglob("*"))}


def _python(clone: Path, home: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RELREASON_", "DBT_", "DAGSTER_HOME"))}
    env.update(PYTHONPATH=str(clone), PYTHONDONTWRITEBYTECODE="1", RELREASON_HOME=str(home))
    return subprocess.run(
        [sys.executable, "-c", code], cwd=clone, env=env, capture_output=True, text=True, timeout=240
    )


def test_importing_the_dbt_assets_in_a_fresh_clone_creates_no_file(tmp_path: Path) -> None:
    clone = _fresh_copy(tmp_path / "clone")
    home = tmp_path / "home"
    before = _tree(clone)

    done = _python(clone, home, IMPORT)

    assert _tree(clone) == before
    assert not home.exists()
    # No manifest yet: one line naming the fix, not a dbt parse behind the import's back.
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("relreason_dagster.errors.ConfigError: the dbt project is not prepared"), last
    assert "`relreason dbt -- parse`" in last and "prepare_dbt_project()" in last


@pytest.mark.slow  # a full dbt parse of a fresh copy: 20-60 s on 2 cores
def test_once_prepared_the_import_reads_the_manifest_and_writes_nothing(tmp_path: Path) -> None:
    clone = _fresh_copy(tmp_path / "clone")
    home = tmp_path / "home"
    prepare = (
        "from relreason_dagster.defs.dbt_prepare import prepare_dbt_project; print(prepare_dbt_project())"
    )
    prepared = _python(clone, home, prepare)
    assert prepared.returncode == 0, prepared.stderr[-3000:]
    manifest = Path(prepared.stdout.strip().splitlines()[-1])
    assert manifest.is_file() and manifest.is_relative_to(clone / "dbt_project" / "target")
    before = _tree(clone)

    done = _python(clone, home, f"{IMPORT}\nprint(relreason_dagster.defs.dbt.MANIFEST)")

    assert done.returncode == 0, done.stderr[-3000:]
    assert Path(done.stdout.strip().splitlines()[-1]) == manifest
    assert _tree(clone) == before
    assert not home.exists()


def test_the_import_reads_the_manifest_the_prepare_step_makes() -> None:
    """The session prepared the project (tests/conftest.py), as the CLI does before loading defs."""
    from relreason_dagster.defs import dbt

    assert prepare_dbt_project() == manifest_path() == prepared_manifest() == dbt.MANIFEST
    assert dbt.dbt_project.manifest_path == dbt.MANIFEST


def test_an_unprepared_project_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    project = tmp_path / "dbt_project"
    with pytest.raises(ConfigError, match=r"run `relreason dbt -- parse`") as raised:
        prepared_manifest(project)
    assert "\n" not in str(raised.value)
    assert not project.exists()  # where the manifest would be is computed, not created


def test_a_failed_parse_names_the_family_file_not_its_link(tmp_path: Path, monkeypatch) -> None:
    """A family's broken model stops the prepare step in one line naming the family's own file."""
    from relreason_dagster import paths
    from relreason_dagster.defs import dbt_families, dbt_prepare

    project = tmp_path / "dbt_project"  # the shared project's settings, none of its models: a short parse
    project.mkdir()
    for name in ("dbt_project.yml", "profiles.yml"):
        shutil.copy(paths.DBT_PROJECT_DIR / name, project / name)
    folder = tmp_path / "fam" / "dbt"
    (folder / "marts").mkdir(parents=True)
    broken = folder / "marts" / "fam_broken.sql"
    broken.write_text("select * from {{ ref('no_such_model') }}\n")
    only_fam = {"fam": ("fam", folder)}
    monkeypatch.setattr(dbt_families, "family_dbt_folders", lambda: only_fam)
    monkeypatch.setattr(dbt_prepare, "family_dbt_folders", lambda: only_fam)

    with pytest.raises(ConfigError) as raised:
        prepare_dbt_project(project)

    said = str(raised.value)
    assert "\n" not in said and "no_such_model" in said
    assert str(broken) in said and "families/" not in said
    assert said.endswith("`relreason dbt -- parse` checks it")
