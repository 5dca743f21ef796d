"""The UI's code location loads from a shell whose PATH lacks the venv (issue 37, item 1).

README says "from a shell use `.venv/bin/relreason`": that starts `dagster dev` without the venv's
``bin`` on PATH, and dbt must still be found (from the running interpreter's folder).  The test loads
the code location named in ``workspace.yaml`` with the venv's ``dagster`` CLI under ``dagster dev``'s
environment flag and compares its asset keys with the Definitions loaded here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from relreason_dagster import paths

PLAIN_PATH = "/usr/bin:/bin"  # a login shell's PATH, without any venv


def _code_location() -> dict[str, str]:
    workspace = yaml.safe_load((paths.REPO_ROOT / "workspace.yaml").read_text())
    (entry,) = workspace["load_from"]
    return entry["python_module"]


def test_code_location_loads_every_asset_without_the_venv_on_path(tmp_path: Path) -> None:
    venv_bin = Path(sys.executable).parent
    assert not any(Path(p) == venv_bin for p in PLAIN_PATH.split(":"))
    location = _code_location()
    env = {
        **os.environ,
        "PATH": PLAIN_PATH,
        "DAGSTER_IS_DEV_CLI": "1",  # what `dagster dev` sets for the code server it starts
        "RELREASON_HOME": str(tmp_path / "home"),
    }
    env.pop("VIRTUAL_ENV", None)
    command = ["asset", "list", "-m", location["module_name"], "-a", location["attribute"]]
    result = subprocess.run(
        [str(venv_bin / "dagster"), *command],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    listed = {line.strip() for line in result.stdout.splitlines() if line.strip()}

    from relreason_dagster import definitions

    defs = getattr(definitions, location["attribute"])
    expected = {key.to_user_string() for key in defs.resolve_asset_graph().get_all_asset_keys()}
    assert len(expected) > 20  # the families' assets and every dbt model
    assert listed == expected
