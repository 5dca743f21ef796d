"""`relreason dbt -- ARGS` runs dbt itself in the project the pipeline builds (issue 59, item 3).

A bare ``dbt`` in ``dbt_project/`` sees only the shared models; this command prepares the project as a
launch does and gives dbt the families' folder and the home's DuckDB file, so ``dbt ls`` lists every
registered family's models.  dbt names a family's file by its link under ``families/<key>/``; the
command's output names the family's own file instead.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from relreason_dagster import paths
from relreason_dagster.cli import main
from relreason_dagster.defs.dbt_families import LAYERS, family_dbt_folders, family_paths

REPO_ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("argv", [["dbt"], ["dbt", "--"]])
def test_dbt_without_arguments_is_one_line(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "`relreason dbt -- ls`" in err


def test_dbt_messages_name_the_family_file_not_its_link(tmp_path: Path, monkeypatch) -> None:
    own = tmp_path / "family" / "dbt" / "marts" / "x_vs_study.sql"
    outside = Path("/elsewhere/site-packages/fam/dbt/staging/schema.yml")
    links = {
        Path("models/marts/fam/x_vs_study.sql"): own,
        Path("models/staging/fam/schema.yml"): outside,
    }
    monkeypatch.chdir(tmp_path)
    rewrite = family_paths("abc123", links)

    line = "Compilation Error in model x_vs_study (families/abc123/models/marts/fam/x_vs_study.sql)\n"
    assert rewrite(line) == "Compilation Error in model x_vs_study (family/dbt/marts/x_vs_study.sql)\n"
    absolute = f"in {paths.DBT_PROJECT_DIR}/families/abc123/models/staging/fam/schema.yml: bad yaml"
    assert rewrite(absolute) == f"in {outside}: bad yaml"  # outside the working folder: absolute
    # Another set's folder, or a file that is no link of this set, is left as dbt wrote it.
    for kept in ("families/other9/models/marts/fam/x_vs_study.sql", "families/abc123/models/marts/fam/y.sql"):
        assert rewrite(kept) == kept


def _family_models() -> dict[str, set[str]]:
    """Each registered family's dbt models: the names of the SQL files in its folder's layers."""
    return {
        name: {p.stem for layer in LAYERS for p in (folder / layer).rglob("*.sql")}
        for name, (_, folder) in family_dbt_folders().items()
    }


def test_relreason_dbt_ls_lists_every_familys_models(tmp_path: Path) -> None:
    expected = _family_models()
    assert len(expected) >= 3 and all(expected.values())  # the check below would pass on no family
    shared = {p.stem for p in (paths.DBT_PROJECT_DIR / "models").rglob("*.sql")}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RELREASON_", "DBT_", "DAGSTER_HOME"))}
    env.update(PYTHONPATH=str(REPO_ROOT), RELREASON_HOME=str(tmp_path / "home"))
    argv = ["dbt", "--", "ls", "--resource-type", "model", "--output", "name", "--quiet"]

    done = subprocess.run(
        [sys.executable, "-m", "relreason_dagster.cli", *argv],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )

    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    listed = set(done.stdout.split())
    missing = {name: models - listed for name, models in expected.items() if models - listed}
    assert not missing, missing
    assert shared <= listed
    # dbt's own files of the hand run are in the home, not in the checkout.
    assert (tmp_path / "home" / "dbt" / "by-hand" / "manifest.json").is_file()
