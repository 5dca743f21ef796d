"""`relreason sql` flags and its read-only lock, `relreason export`, the tables people read.

A small results file is built by hand here (raw schema, one lake response, a few mart tables), so
these run in seconds; tests/unit/marts/test_sample_join.py covers the same commands on a real pipeline run.
"""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from relreason_dagster import paths
from relreason_dagster.cli import main
from relreason_dagster.cli.output import format_table
from relreason_dagster.results.headline import headline_tables
from relreason_dagster.results.numbers import round_sig
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.schema import ensure_schema

LONG = "First line of a long answer.\n" + "x" * 150 + "\nSo the answer is: yes."


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.delenv("RELREASON_LAKE", raising=False)
    monkeypatch.delenv("RELREASON_DUCKDB", raising=False)
    paths.duckdb_path().parent.mkdir(parents=True, exist_ok=True)
    lake = Lake.default()
    con = duckdb.connect(str(paths.duckdb_path()))
    ensure_schema(con, lake)
    lake.append(
        "responses",
        pa.table(
            {
                "prompt_id": ["p1"],
                "model": ["m1"],
                "benchmark": ["relational"],
                "content": [LONG],
                "from_cache": [False],
                "created_at": pa.array([datetime(2026, 1, 1)], pa.timestamp("us")),
            }
        ),
    )
    con.execute("CREATE SCHEMA marts")
    con.execute(
        "CREATE TABLE marts.relational_f1 AS SELECT 'm' || (i % 2) AS model, 'HasFather' AS task,"
        " 'iid' AS split, 'nl' AS setting, 1 AS n, 0 AS n_na, 0 AS n_cut, 0 AS n_error, 0.123456 * i AS f1,"
        " 0.0 AS ci_low, 1.0 AS ci_high, false AS na_cell, 0.0 AS incomplete_share,"
        " 0.123456 * i AS f1_complete_answers"
        " FROM range(81) t(i)"
    )
    con.execute(
        "CREATE TABLE marts.parse_rate AS SELECT 'relational' AS benchmark, 'm1' AS model,"
        " 'HasFather' AS task, 'nl' AS setting, [1, 2] AS xs"
    )
    con.execute("CREATE VIEW marts.answers_view AS SELECT * FROM raw.responses")
    con.close()
    return tmp_path


def test_sql_json_csv_and_uncut_table(home, capsys):
    query = "SELECT prompt_id, content FROM raw.responses"
    assert main(["sql", "--json", query]) == 0
    assert json.loads(capsys.readouterr().out) == [{"prompt_id": "p1", "content": LONG}]
    assert main(["sql", "--csv", query]) == 0
    assert list(csv.reader(io.StringIO(capsys.readouterr().out))) == [["prompt_id", "content"], ["p1", LONG]]
    assert main(["sql", "--max-width", "0", query]) == 0
    out = capsys.readouterr().out
    assert all(line in out for line in LONG.split("\n")) and "…" not in out
    assert main(["sql", query]) == 0
    assert "So the answer is" not in capsys.readouterr().out  # cut at 60 characters by default


def _refused(capsys, query: str) -> str:
    assert main(["sql", query]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_sql_cannot_write_files_or_other_databases(home, capsys):
    target = home / "x.csv"
    assert "read-only" in _refused(capsys, f"copy (select 1) to '{target}'")
    lake_file = Lake.default().table_path("responses") + "/evil.parquet"
    assert "read-only" in _refused(capsys, f"copy (select 1 as prompt_id) to '{lake_file}'")
    other = home / "other.duckdb"
    err = _refused(capsys, f"attach '{other}' as w (READ_ONLY false); create table w.t as select 1")
    assert "read-only" in err
    assert not target.exists() and not other.exists()
    assert not list(home.rglob("evil.parquet"))
    # Reading outside the lake is off too, and the switch is locked.
    assert "disabled by configuration" in _refused(capsys, "select * from read_csv('/etc/hostname')")
    assert "read-only" in _refused(capsys, "set enable_external_access = true")
    # What the lock must leave working: the responses view over the lake, and the marts.
    assert main(["sql", "--json", "select count(*) as n from raw.responses"]) == 0
    assert json.loads(capsys.readouterr().out) == [{"n": 1}]


def test_export_writes_one_file_per_mart(home, tmp_path, capsys):
    for fmt in ("parquet", "csv", "jsonl"):
        out = tmp_path / f"out_{fmt}"
        assert main(["export", "--format", fmt, "--out", str(out)]) == 0
        names = sorted(p.name for p in out.iterdir())
        assert names == [f"answers_view.{fmt}", f"parse_rate.{fmt}", f"relational_f1.{fmt}"]
    assert pq.read_table(tmp_path / "out_parquet" / "relational_f1.parquet").num_rows == 81
    rows = list(csv.DictReader(open(tmp_path / "out_csv" / "parse_rate.csv")))
    assert json.loads(rows[0]["xs"]) == [1, 2]  # a list column as JSON text
    answer = json.loads((tmp_path / "out_jsonl" / "answers_view.jsonl").read_text().splitlines()[0])
    assert answer["content"] == LONG
    capsys.readouterr()
    (tmp_path / "afile").write_text("")
    assert main(["export", "--out", str(tmp_path / "afile")]) == 2
    assert "is a file" in capsys.readouterr().err


def test_format_table_keeps_line_breaks_when_uncut():
    table = format_table(["a", "b"], [("one\ntwo", 1)], max_width=0).splitlines()
    assert table[2].split() == ["one", "1"] and table[3].strip() == "two"
    assert format_table(["a"], [("x" * 100,)]).splitlines()[2] == "x" * 59 + "…"


def test_numbers_are_shown_to_three_significant_digits():
    assert [round_sig(v) for v in (0.123456, 123.456, 0.000123456, 2.0, 0.0, 7)] == [
        0.123,
        123.0,
        0.000123,
        2.0,
        0.0,
        7,
    ]


def test_headline_tables_cover_the_run_only(home):
    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        tables = {t.title: t for t in headline_tables(con, models=["m1"], families=["relational"])}
        f1 = tables["marts.relational_f1"]
        assert {r[0] for r in f1.rows} == {"m1"} and len(f1.rows) == 40
        assert max(r[f1.columns.index("f1")] for r in f1.rows) == round_sig(0.123456 * 79)
        assert not any("kor" in t for t in tables)  # a family the run did not cover
        assert headline_tables(con, families=["kor"])[-1].title == "marts.parse_rate"  # shared table
    finally:
        con.close()


def test_mart_preview_counts_every_row(home):
    from relreason_dagster.defs.dbt import mart_preview

    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        count, preview = mart_preview(con, "marts.relational_f1")
    finally:
        con.close()
    assert count == 81
    assert "41 more rows (81 in all)" in preview
    assert "| m1 | HasFather | iid | nl | 1 | 0 | 0 | 0 | 0.123 | 0.0 | 1.0 |" in preview


def test_every_asset_sits_in_a_described_group():
    from relreason_dagster.definitions import defs
    from relreason_dagster.defs.groups import GROUPS

    graph = defs.resolve_asset_graph()
    groups: dict[str, list[str]] = {}
    for key in graph.get_all_asset_keys():
        groups.setdefault(graph.get(key).group_name, []).append(key.to_user_string())
    assert set(groups) <= set(GROUPS), set(groups) - set(GROUPS)
    # A group stays readable at a glance; KOR's 16 (its §5 analyses of issue 57) is the largest.
    assert max(len(keys) for keys in groups.values()) <= 16, {g: len(k) for g, k in groups.items()}
    assert "marts/flenqa_accuracy" in groups["flenqa"] and "marts/sample_results" in groups["metrics"]
