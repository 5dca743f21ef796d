"""The dbt project as Dagster assets: staging views and metric marts, built with `dbt build`.

``@dbt_assets`` needs a manifest at import time; this module only reads its path
(``defs/dbt_prepare.py``: linking the families' dbt files and ``dbt parse`` are
one explicit step, ``prepare_dbt_project``, that the CLI, the code location's
load and the test session call first), so importing it writes nothing.  The parse
is the one thing dbt writes in the checkout (``dbt_project/target/<key>``: the
manifest, its partial-parse cache and the parse's log, one set however many runs
are made).  Each build writes its artifacts and log under ``$RELREASON_HOME/dbt/``,
and only the newest :data:`KEEP_DBT_BUILDS` of them are kept.
"""

import contextlib
import functools
import json
import os
import shutil
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
from dagster_dbt import (
    DagsterDbtTranslator,
    DagsterDbtTranslatorSettings,
    DbtCliResource,
    DbtProject,
    dbt_assets,
)

from relreason_dagster import paths
from relreason_dagster.common.duckdb_rows import fetch_dicts, markdown_table
from relreason_dagster.defs.dbt_families import FAMILIES_ENV
from relreason_dagster.defs.dbt_prepare import families_folder_of, prepared_manifest
from relreason_dagster.defs.dbt_scope import record_full_build
from relreason_dagster.defs.groups import dbt_group
from relreason_dagster.defs.partitions import DUCKDB_POOL
from relreason_dagster.defs.resources import DuckDBFile
from relreason_dagster.results.numbers import round_sig

MART_PREVIEW_LIMIT = 40
# The dbt var naming the DuckDB file (dbt_project/profiles.yml).
DUCKDB_VAR = "relreason_duckdb"
# Build folders (dbt's target and log of one `dbt build`) kept under $RELREASON_HOME/dbt.
KEEP_DBT_BUILDS = 3
PREVIEW_CELL_CHARS = 80  # a preview shows the shape of a table; `relreason samples` shows whole texts

MANIFEST = prepared_manifest()
dbt_project = DbtProject(
    project_dir=paths.DBT_PROJECT_DIR,
    profiles_dir=paths.DBT_PROJECT_DIR,
    target_path=MANIFEST.parent.relative_to(paths.DBT_PROJECT_DIR),
)


class RelreasonDbtTranslator(DagsterDbtTranslator):
    """Staging views in group ``staging``, marts in the group of their study (``defs/groups.py``)."""

    def get_group_name(self, dbt_resource_props: dict[str, Any]) -> str | None:
        return dbt_group(list(dbt_resource_props.get("fqn", [])))


def build_folder(context: dg.AssetExecutionContext) -> Path:
    """A new folder under ``$RELREASON_HOME/dbt`` for one build's target and log (dagster-dbt
    would make one per run in the checkout, kept forever)."""
    root = paths.relreason_home() / "dbt"
    prune_build_folders(root, KEEP_DBT_BUILDS - 1)
    return root / f"build-{time.strftime('%Y%m%d-%H%M%S')}-{context.run.run_id[:8]}-{uuid.uuid4().hex[:6]}"


def prune_build_folders(root: Path, keep: int) -> None:
    """Delete all but the newest ``keep`` build folders in ``root``."""
    if not root.is_dir():
        return
    folders = sorted((p for p in root.iterdir() if p.is_dir() and p.name.startswith("build-")), reverse=True)
    for old in folders[keep:]:
        with contextlib.suppress(OSError):
            shutil.rmtree(old)


# dbt's parse state of the last build of this home (its vars name this home's DuckDB file, so the
# project's own target/partial_parse.msgpack, parsed without them, never matches).
PARTIAL_PARSE = "partial_parse.msgpack"


def reuse_partial_parse(target: Path) -> None:
    """Start a build from the home's last parse state: dbt then re-parses only what changed (~2 s
    less per build on 2 cores), and parses everything when the project, its vars or dbt changed."""
    kept = paths.relreason_home() / "dbt" / PARTIAL_PARSE
    if kept.is_file():
        target.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(OSError):
            shutil.copyfile(kept, target / PARTIAL_PARSE)


def keep_partial_parse(target: Path) -> None:
    """Keep a finished build's parse state for the next one (replaced whole, so a concurrent
    build reads the old file or the new one, never half of one)."""
    made = target / PARTIAL_PARSE
    if made.is_file():
        kept = paths.relreason_home() / "dbt" / PARTIAL_PARSE
        temp = kept.with_name(f".{PARTIAL_PARSE}.{uuid.uuid4().hex[:8]}")
        with contextlib.suppress(OSError):
            shutil.copyfile(made, temp)
            os.replace(temp, kept)


def _preview_cell(value: Any) -> Any:
    """A cell fit for a one-line Markdown table: numbers to 3 significant digits, long text cut."""
    value = round_sig(value)
    if isinstance(value, str):
        value = " ".join(value.split()).replace("|", "\\|")
        if len(value) > PREVIEW_CELL_CHARS:
            value = value[: PREVIEW_CELL_CHARS - 1] + "…"
    return value


@functools.cache
def load_manifest() -> dict[str, Any]:
    """The parsed dbt manifest this process's assets were defined from (read once per process)."""
    return json.loads(Path(dbt_project.manifest_path).read_text())


@functools.cache
def declared_columns() -> dict[str, dict[str, Any]]:
    """Each dbt model's ``columns`` as its ``schema.yml`` declares them (from the manifest)."""
    manifest = load_manifest()
    return {
        node["name"]: dict(node.get("columns") or {})
        for node in manifest.get("nodes", {}).values()
        if node.get("resource_type") == "model"
    }


def column_schema(con: Any, schema: str, table: str, described: dict[str, Any]) -> dg.TableSchema:
    """Every column of the built table with its DuckDB type and the description its ``schema.yml``
    gives (``described``: the manifest node's ``columns``).

    dagster-dbt's own column schema lists only the columns ``schema.yml`` declares (4 of 11 for
    ``relational_f1``), without types; this one is read from the table itself after dbt has exited.
    """
    rows = con.execute(
        "SELECT column_name, data_type FROM information_schema.columns"
        " WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
        [schema, table],
    ).fetchall()
    return dg.TableSchema(
        columns=[
            dg.TableColumn(name, str(kind), (described.get(name) or {}).get("description") or None)
            for name, kind in rows
        ]
    )


def mart_preview(con: Any, relation: str, limit: int = MART_PREVIEW_LIMIT) -> tuple[int, str]:
    """``relation``'s row count and a Markdown preview of its first ``limit`` rows.

    The count comes from ``count(*)``, not from the rows fetched, so "N more rows" is the real number.
    """
    count = con.execute(f"SELECT count(*) FROM {relation}").fetchone()[0]
    rows = fetch_dicts(con, f"SELECT * FROM {relation} LIMIT {int(limit)}")
    table = markdown_table([{k: _preview_cell(v) for k, v in r.items()} for r in rows], limit)
    if count > len(rows):
        table += f"\n\n_{count - len(rows)} more rows ({count} in all): `relreason sql` shows them_"
    return count, table


@dbt_assets(
    manifest=dbt_project.manifest_path,
    project=dbt_project,
    # One asset may write two raw tables (parsed_answers also writes parsed_draws, the extra draws of
    # --samples K): their two sources name the same asset key.
    dagster_dbt_translator=RelreasonDbtTranslator(
        settings=DagsterDbtTranslatorSettings(enable_duplicate_source_asset_keys=True)
    ),
    pool=DUCKDB_POOL,
)
def relreason_dbt_models(
    context: dg.AssetExecutionContext, dbt: DbtCliResource, duckdb: DuckDBFile
) -> Iterator:
    """`dbt build` (models + schema tests) on the pipeline's DuckDB file; marts carry a Markdown preview.

    A run that selects part of this asset (``defs/dbt_scope.py``: a run of some families) builds only
    those models and their tests, as dagster-dbt passes the selection to dbt; a build of every model
    is recorded, so the home's next runs may build a part.
    """
    # dbt (and dagster-dbt's in-process handle on its adapter) reads the families' folder from the
    # environment (dbt_project.yml's model-paths); the folder is the one this module's manifest was
    # parsed with, so it is set here, where a step builds, and never by an import.
    os.environ[FAMILIES_ENV] = families_folder_of(MANIFEST)
    # The file travels as a dbt var (profiles.yml reads it), not through this process's environment.
    build = ["build", "--vars", json.dumps({DUCKDB_VAR: duckdb.database})]
    target = build_folder(context)
    reuse_partial_parse(target)
    # Events go to Dagster as dbt reports them (each costs a few ms of event-log writes, ~700 of
    # them, done while dbt works), except the marts' outputs: their previews read the DuckDB file,
    # which dbt holds until it exits.
    marts: list[tuple[str, dg.Output]] = []
    for event in dbt.cli(build, context=context, target_path=target).stream():
        path = context.asset_key_for_output(event.output_name).path if isinstance(event, dg.Output) else []
        if len(path) == 2 and path[0] == "marts":  # every mart, in whatever family folder
            marts.append((path[1], event))
        else:
            yield event
    keep_partial_parse(target)
    if set(context.selected_asset_keys) >= set(relreason_dbt_models.keys):
        record_full_build(load_manifest(), duckdb.database)
    # dbt has exited, so the file is free to read: attach previews of the marts.
    with duckdb.get_connection() as con:
        for name, event in marts:
            try:
                count, preview = mart_preview(con, f'marts."{name}"')
            except Exception as exc:  # noqa: BLE001 - a preview must never fail the build
                count, preview = None, f"_(no preview: {str(exc).strip().splitlines()[0]})_"
            columns = {}
            with contextlib.suppress(Exception):  # the catalog's column list, with types
                schema = column_schema(con, "marts", name, declared_columns().get(name, {}))
                if schema.columns:
                    columns = {"dagster/column_schema": schema}
            yield event.with_metadata(
                {
                    **event.metadata,
                    **({"rows": count} if count is not None else {}),
                    **columns,
                    "preview": dg.MetadataValue.md(preview),
                }
            )
