"""Every column of a mart is listed in the catalog with its type (issue 37, item 8).

dagster-dbt lists only the columns a ``schema.yml`` declares (4 of 11 for ``relational_f1``), without
types; after each build the marts' materializations carry the table's own columns and types, with
the ``schema.yml`` description where one is written.
"""

from __future__ import annotations

import duckdb

from relreason_dagster.defs.dbt import column_schema, declared_columns


def test_every_column_with_its_type_and_declared_description():
    con = duckdb.connect(":memory:")
    con.execute("CREATE SCHEMA marts")
    con.execute("CREATE TABLE marts.relational_f1 (model VARCHAR, f1 DOUBLE, n BIGINT, n_na INTEGER)")
    schema = column_schema(
        con, "marts", "relational_f1", {"f1": {"description": "F1 over the cell's samples"}}
    )
    assert [(c.name, c.type, c.description) for c in schema.columns] == [
        ("model", "VARCHAR", None),
        ("f1", "DOUBLE", "F1 over the cell's samples"),
        ("n", "BIGINT", None),
        ("n_na", "INTEGER", None),
    ]


def test_declared_columns_come_from_the_manifest():
    declared = declared_columns()
    assert "relational_f1" in declared and declared["relational_f1"]  # its schema.yml declares columns
