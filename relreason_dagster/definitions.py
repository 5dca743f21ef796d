"""The one Definitions object that `workspace.yaml` and the CLI load (built in ``defs/build.py``)."""

from __future__ import annotations

from relreason_dagster.defs.build import default_definitions

defs = default_definitions()
