"""The one Definitions object that `workspace.yaml` and the CLI load (built in ``defs/build.py``).

Loading this module is the code location's load (`dagster dev`, its code server, the run workers it
starts), so it prepares the dbt project first (``defs/dbt_prepare.py``): importing ``defs/`` writes
nothing and only reads the manifest this call made current.
"""

from __future__ import annotations

from relreason_dagster.defs.dbt_prepare import prepare_dbt_project

prepare_dbt_project()

from relreason_dagster.defs.build import default_definitions  # noqa: E402 - after the dbt project is prepared

defs = default_definitions()
