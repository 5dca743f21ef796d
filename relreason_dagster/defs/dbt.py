"""The dbt project as Dagster assets: staging views and metric marts, built with `dbt build`.

``@dbt_assets`` needs a manifest at import time; ``ensure_manifest`` runs
``dbt parse`` when it is missing or older than the project's files (outside
``dagster dev``, where ``prepare_if_dev`` does nothing).
"""

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
from dagster_dbt import DagsterDbtTranslator, DbtCliResource, DbtProject, dbt_assets

from relreason_dagster import settings
from relreason_dagster.defs.partitions import DUCKDB_POOL
from relreason_dagster.defs.resources import DuckDBFile
from relreason_dagster.storage.duckdb_io import fetch_dicts, markdown_table

MART_PREVIEW_LIMIT = 40
MART_NAMES = {
    "relational_f1",
    "dlm_vs_llm",
    "accuracy",
    "label_bias",
    "parse_rate",
    "answer_scores",
    "selfcontra_scr",
    "selfcontra_judged",
    "selfcontra_detection_f1",
    "relational_symbolic_scr",
    "kor_accuracy",
    "kor_self_correction",
    "kor_mixed",
    "kor_counterfactual",
}


def _dbt_executable() -> str:
    """dbt from this interpreter's environment (DbtCliResource needs it on PATH too)."""
    here = Path(sys.executable).parent / "dbt"
    return str(here) if here.exists() else (shutil.which("dbt") or "dbt")


def ensure_manifest(project_dir: Path = settings.DBT_PROJECT_DIR) -> Path:
    manifest = project_dir / "target" / "manifest.json"
    sources = [p for p in project_dir.rglob("*") if p.suffix in {".sql", ".yml"} and "target" not in p.parts]
    newest = max((p.stat().st_mtime for p in sources), default=0)
    if not manifest.exists() or manifest.stat().st_mtime < newest:
        env = {
            **os.environ,
            "RELREASON_DUCKDB": os.environ.get("RELREASON_DUCKDB", str(settings.duckdb_path())),
        }
        subprocess.run(
            [
                _dbt_executable(),
                "parse",
                "--quiet",
                "--project-dir",
                str(project_dir),
                "--profiles-dir",
                str(project_dir),
            ],
            check=True,
            env=env,
            cwd=project_dir,
        )
    return manifest


bin_dir = str(Path(sys.executable).parent)
if bin_dir not in os.environ.get("PATH", "").split(os.pathsep):
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")

dbt_project = DbtProject(project_dir=settings.DBT_PROJECT_DIR, profiles_dir=settings.DBT_PROJECT_DIR)
dbt_project.prepare_if_dev()
ensure_manifest()


class RelreasonDbtTranslator(DagsterDbtTranslator):
    """Staging views in group ``staging``, marts in group ``metrics``."""

    def get_group_name(self, dbt_resource_props: dict[str, Any]) -> str | None:
        fqn = dbt_resource_props.get("fqn", [])
        return "metrics" if "marts" in fqn else "staging"


@dbt_assets(
    manifest=dbt_project.manifest_path,
    project=dbt_project,
    dagster_dbt_translator=RelreasonDbtTranslator(),
    pool=DUCKDB_POOL,
)
def relreason_dbt_models(
    context: dg.AssetExecutionContext, dbt: DbtCliResource, duckdb: DuckDBFile
) -> Iterator:
    """`dbt build` (models + schema tests) on the pipeline's DuckDB file; marts carry a Markdown preview."""
    os.environ["RELREASON_DUCKDB"] = duckdb.database
    events = list(dbt.cli(["build"], context=context).stream())
    # dbt has exited, so the file is free to read: attach previews of the marts.
    with duckdb.get_connection() as con:
        for event in events:
            name = (
                context.asset_key_for_output(event.output_name).path[-1]
                if isinstance(event, dg.Output)
                else ""
            )
            if name in MART_NAMES:
                rows = fetch_dicts(con, f"SELECT * FROM marts.{name} LIMIT {MART_PREVIEW_LIMIT + 1}")
                count = con.execute(f"SELECT count(*) FROM marts.{name}").fetchone()[0]
                event = event.with_metadata(
                    {
                        **event.metadata,
                        "rows": count,
                        "preview": dg.MetadataValue.md(markdown_table(rows, MART_PREVIEW_LIMIT)),
                    }
                )
            yield event
