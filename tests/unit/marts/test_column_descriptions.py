"""Every dbt model's column is described in its yml, in the order the model selects it (issue 37, item 8).

Each model is an asset in the UI, whose catalog lists its columns with the description its yml gives
(a mart's with its DuckDB type too: ``defs/dbt.py``, ``column_schema``); a column without one is a
bare name to a researcher.  A model's output
columns are not in the parsed manifest, and reading them off the SQL would miss ``select *`` and macros,
so they come from DuckDB itself: ``dbt compile`` against an empty DuckDB file whose ``raw`` schema is the
pipeline's own (``ensure_schema``), then each compiled model as a view, in dependency order.  Views over
empty tables cost nothing to create, and nothing is built or materialized.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
import pytest

from relreason_dagster import paths
from relreason_dagster.defs.dbt import column_schema, declared_columns, relreason_dbt_models
from relreason_dagster.defs.dbt_prepare import family_models_env
from relreason_dagster.defs.resources import dbt_executable
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.schema import ensure_schema


@contextlib.contextmanager
def _cwd(path: Path) -> Iterator[None]:
    """dbt runs models from the project folder: a model's relative file path (read_csv) resolves there."""
    before = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def _compiled_manifest(tmp: Path, database: Path) -> dict[str, Any]:
    project = paths.DBT_PROJECT_DIR
    subprocess.run(
        [
            dbt_executable(),
            "compile",
            "--quiet",
            "--project-dir",
            str(project),
            "--profiles-dir",
            str(project),
            "--target-path",
            str(tmp / "target"),
            "--log-path",
            str(tmp),
            # The file to compile against (an incremental model asks whether its table exists yet).
            "--vars",
            json.dumps({"relreason_duckdb": str(database)}),
        ],
        check=True,
        env={**family_models_env(project), "RELREASON_DUCKDB": str(database)},
        cwd=project,
    )
    return json.loads((tmp / "target" / "manifest.json").read_text())


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Iterator[tuple[duckdb.DuckDBPyConnection, dict[str, dict[str, Any]]]]:
    """A DuckDB connection holding every dbt model as a view over empty ``raw`` tables, and the
    compiled manifest's model nodes by name."""
    tmp = tmp_path_factory.mktemp("dbt-compile")
    database = tmp / "relreason.duckdb"  # the file's stem is the catalog name compiled SQL names
    with duckdb.connect(str(database)) as con:
        ensure_schema(con, Lake.open(tmp / "lake"))
    manifest = _compiled_manifest(tmp, database)
    nodes = {key: node for key, node in manifest["nodes"].items() if node["resource_type"] == "model"}
    con = duckdb.connect(str(database))
    created: set[str] = set()

    def create(key: str) -> None:
        if key in created:
            return
        node = nodes[key]
        for parent in node["depends_on"]["nodes"]:
            if parent in nodes:
                create(parent)
        con.execute(f'CREATE SCHEMA IF NOT EXISTS "{node["schema"]}"')
        if node.get("language") == "python":
            _create_python_model(con, node, nodes)
        else:
            con.execute(f'CREATE VIEW "{node["schema"]}"."{node["alias"]}" AS {node["compiled_code"]}')
        created.add(key)

    with _cwd(paths.DBT_PROJECT_DIR):
        for key in nodes:
            create(key)
    yield con, {node["name"]: node for node in nodes.values()}
    con.close()


def _create_python_model(
    con: duckdb.DuckDBPyConnection, node: dict[str, Any], nodes: dict[str, dict[str, Any]]
) -> None:
    """A Python model's table, made by running its ``model(dbt, session)`` over the empty parents (its
    first, non-incremental build), since its compiled code is Python, not a view's SQL."""
    by_name = {n["name"]: n for n in nodes.values()}

    class _Dbt:
        is_incremental = False
        this = None

        def config(self, **_: Any) -> None:
            return None

        def ref(self, name: str) -> duckdb.DuckDBPyRelation:
            parent = by_name[name]
            return con.sql(f'SELECT * FROM "{parent["schema"]}"."{parent["alias"]}"')

    namespace: dict[str, Any] = {}
    exec(compile(node["raw_code"], node["original_file_path"], "exec"), namespace)  # noqa: S102 - our model
    result = namespace["model"](_Dbt(), con)
    con.register("_python_model", result)
    try:
        con.execute(f'CREATE TABLE "{node["schema"]}"."{node["alias"]}" AS SELECT * FROM _python_model')
    finally:
        con.unregister("_python_model")


def _output_columns(con: duckdb.DuckDBPyConnection, node: dict[str, Any]) -> list[str]:
    rows = con.execute(
        "SELECT column_name FROM information_schema.columns"
        " WHERE table_schema = ? AND table_name = ? ORDER BY ordinal_position",
        [node["schema"], node["alias"]],
    ).fetchall()
    return [name for (name,) in rows]


def test_every_model_column_is_described_in_select_order(compiled):
    """Staging views, intermediate views and marts alike: each is an asset the UI shows."""
    con, nodes = compiled
    assert sum(1 for node in nodes.values() if node["fqn"][1] == "marts") > 40  # the families' marts too
    problems = []
    for name, node in sorted(nodes.items()):
        produced = _output_columns(con, node)
        declared = list(node["columns"])
        where = node.get("patch_path") or "no yml"
        if unknown := [c for c in declared if c not in produced]:
            problems.append(f"{name} ({where}): lists {unknown}, which the model does not select")
        if bare := [c for c in produced if not (node["columns"].get(c) or {}).get("description")]:
            problems.append(f"{name} ({where}): no description for {bare}")
        elif not unknown and declared != produced:
            problems.append(f"{name} ({where}): columns listed as {declared}, the model selects {produced}")
    assert not problems, "\n".join(problems)


def test_the_catalog_shows_each_relational_f1_column_with_type_and_description(compiled):
    """What the UI's column schema holds for a mart: its own columns, typed, each with its yml description."""
    con, nodes = compiled
    node = nodes["relational_f1"]
    described = declared_columns()["relational_f1"]  # what the dbt asset reads from the checkout's manifest
    schema = column_schema(con, node["schema"], node["alias"], described)
    assert [c.name for c in schema.columns] == _output_columns(con, node)
    assert len(schema.columns) > 4  # more than the columns that carry dbt tests
    for column in schema.columns:
        assert column.type and column.description == described[column.name]["description"]
    f1 = next(c for c in schema.columns if c.name == "f1")
    assert f1.type == "DOUBLE" and "F1" in f1.description


def test_the_asset_definition_lists_every_relational_f1_column_with_its_description(compiled):
    """Before any build, the UI shows the dbt asset's own column schema (dagster-dbt reads it from the
    yml): every column the model selects, described; the types arrive with the first materialization."""
    con, nodes = compiled
    spec = next(s for s in relreason_dbt_models.specs if s.key == dg.AssetKey(["marts", "relational_f1"]))
    columns = spec.metadata["dagster/column_schema"].columns
    assert [c.name for c in columns] == _output_columns(con, nodes["relational_f1"])
    assert all(c.description for c in columns)
