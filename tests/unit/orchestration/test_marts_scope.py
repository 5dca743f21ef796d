"""Which dbt models a run's marts step rebuilds (``defs/dbt_scope.py``), on a hand-made manifest and on
the project's own: a family's models and the shared ones fed by raw tables, never another family's, and
everything when the home has no full build of the same dbt files."""

from __future__ import annotations

import pytest

from relreason_dagster.defs import dbt_scope
from relreason_dagster.defs.dbt import load_manifest, relreason_dbt_models
from relreason_dagster.defs.launcher import plan_runs
from relreason_dagster.errors import ConfigError

PREFIXES = {"kor": "kor", "flenqa": "flenqa", "relational": "relational", "dlm": "relational"}


def _model(name: str, folders: list[str], parents: list[str]) -> dict:
    return {
        "resource_type": "model",
        "fqn": ["relreason", *folders, name],
        "depends_on": {"nodes": parents},
        "checksum": {"checksum": name},
        "config": {"materialized": "table"},
    }


MANIFEST = {
    "nodes": {
        "model.p.stg_answers": _model("stg_answers", ["staging"], ["source.p.raw.answers"]),
        "model.p.stg_kor_rounds": _model("stg_kor_rounds", ["staging", "kor"], ["source.p.raw.kor_rounds"]),
        "model.p.accuracy": _model("accuracy", ["marts"], ["model.p.stg_answers"]),
        "model.p.kor_accuracy": _model("kor_accuracy", ["marts", "kor"], ["model.p.accuracy"]),
        "model.p.kor_budget": _model("kor_budget", ["marts"], ["model.p.stg_answers"]),
        "model.p.flenqa_cot": _model("flenqa_cot", ["marts", "flenqa"], ["model.p.stg_answers"]),
        "model.p.dlm_vs_llm": _model("dlm_vs_llm", ["marts"], ["model.p.accuracy"]),
        # shared, but reads only another family's mart: nothing it reads changes in a KOR run
        "model.p.comparison": _model("comparison", ["marts", "comparison"], ["model.p.flenqa_cot"]),
        "test.p.not_null_accuracy": {"resource_type": "test", "fqn": ["relreason", "marts", "t"]},
    },
    "sources": {"source.p.raw.answers": {"relation_name": "raw.answers"}},
    "macros": {"macro.p.m": {"macro_sql": "select 1"}},
}


def test_a_node_belongs_to_the_family_of_its_folder_or_its_name_prefix():
    assert dbt_scope.node_family(["relreason", "marts", "kor", "kor_trick"], PREFIXES) == "kor"
    assert dbt_scope.node_family(["relreason", "staging", "kor", "stg_kor_rounds"], PREFIXES) == "kor"
    assert dbt_scope.node_family(["relreason", "marts", "kor_budget"], PREFIXES) == "kor"
    assert dbt_scope.node_family(["relreason", "marts", "dlm_vs_llm"], PREFIXES) == "relational"
    assert dbt_scope.node_family(["relreason", "marts", "accuracy"], PREFIXES) is None
    assert dbt_scope.node_family(["relreason", "intermediate", "int_answers"], PREFIXES) is None


def test_a_kor_run_keeps_kor_and_the_shared_models_fed_by_raw_tables_only():
    kept = dbt_scope.kept_nodes(MANIFEST, ["kor"], PREFIXES)
    assert kept == {
        "model.p.stg_answers",
        "model.p.stg_kor_rounds",
        "model.p.accuracy",
        "model.p.kor_accuracy",
        "model.p.kor_budget",
    }
    both = dbt_scope.kept_nodes(MANIFEST, ["kor", "flenqa"], PREFIXES)
    assert {"model.p.flenqa_cot", "model.p.comparison"} <= both
    assert "model.p.dlm_vs_llm" not in both


def test_the_digest_follows_the_dbt_files_not_the_parse():
    again = {**MANIFEST, "metadata": {"generated_at": "another time"}}
    assert dbt_scope.manifest_digest(again) == dbt_scope.manifest_digest(MANIFEST)
    edited = {**MANIFEST, "macros": {"macro.p.m": {"macro_sql": "select 2"}}}
    assert dbt_scope.manifest_digest(edited) != dbt_scope.manifest_digest(MANIFEST)


def test_a_subset_needs_a_full_build_of_the_same_files_into_the_same_database(tmp_path, monkeypatch):
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    db = tmp_path / "home" / "relreason.duckdb"
    db.parent.mkdir()
    db.write_bytes(b"")
    assert not dbt_scope.full_build_current(MANIFEST, db)  # a fresh home builds everything
    dbt_scope.record_full_build(MANIFEST, db)
    assert dbt_scope.full_build_current(MANIFEST, db)
    edited = {**MANIFEST, "macros": {"macro.p.m": {"macro_sql": "select 2"}}}
    assert not dbt_scope.full_build_current(edited, db)  # a changed dbt file
    db.rename(tmp_path / "old.duckdb")  # kept, so its inode cannot be reused by the next file
    db.write_bytes(b"")  # a database made anew at the same path: another inode
    assert not dbt_scope.full_build_current(MANIFEST, db)


@pytest.fixture
def fresh_database(tmp_path, monkeypatch):
    """An empty DuckDB file in a home of its own, with no full build recorded yet."""
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.delenv(dbt_scope.MARTS_ENV, raising=False)  # the default mode, auto
    db = tmp_path / "home" / "relreason.duckdb"
    db.parent.mkdir()
    db.write_bytes(b"")
    return db


def _marts_keys(families: list[str], all_marts: bool = False) -> set[str]:
    runs = plan_runs(["marts"], {}, families, all_marts=all_marts)
    return {key.to_user_string() for run in runs for key in run.asset_keys}


def test_the_launch_plans_a_kor_marts_run_without_other_families_marts(fresh_database):
    every_dbt = {key.to_user_string() for key in relreason_dbt_models.keys}
    assert every_dbt <= _marts_keys(["kor"])  # no full build recorded yet: the whole project
    dbt_scope.record_full_build(load_manifest(), fresh_database)
    kor = _marts_keys(["kor"])
    assert {"marts/kor_accuracy", "marts/kor_budget", "marts/accuracy", "staging/stg_samples"} <= kor
    others = ("marts/flenqa_", "marts/relational_", "marts/selfcontra_", "marts/dlm_")
    assert not [key for key in kor if key.startswith(others)]
    assert every_dbt <= _marts_keys(["kor"], all_marts=True)  # --all-marts


def test_relreason_marts_all_builds_everything_and_run_only_the_runs_models(fresh_database, monkeypatch):
    every_dbt = {key.to_user_string() for key in relreason_dbt_models.keys}
    monkeypatch.setenv(dbt_scope.MARTS_ENV, "run")  # no full build recorded, yet only KOR's and shared
    kor = _marts_keys(["kor"])
    assert "marts/kor_accuracy" in kor and "marts/flenqa_accuracy" not in kor
    dbt_scope.record_full_build(load_manifest(), fresh_database)
    monkeypatch.setenv(dbt_scope.MARTS_ENV, "all")
    assert every_dbt <= _marts_keys(["kor"])
    monkeypatch.setenv(dbt_scope.MARTS_ENV, "some")
    with pytest.raises(
        ConfigError, match="RELREASON_MARTS='some' is not a marts mode; use one of auto, all, run"
    ):
        _marts_keys(["kor"])
