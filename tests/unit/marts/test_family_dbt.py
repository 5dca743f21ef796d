"""A family owns its dbt files: they sit in its own ``dbt/`` folder, are linked into the project by
``defs/dbt_families.py``, and its ``sources.yml`` names exactly the raw tables its ``tables.py`` declares
and the answers of each baseline it declares (which the shared staging reads without naming them)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from relreason_dagster.benchmarks.registry import FAMILIES, baseline_family, baseline_names, family_tables
from relreason_dagster.defs.dbt_families import (
    BASELINE_MACRO,
    baseline_macro,
    baseline_source,
    baseline_source_problem,
    families_folder,
    families_key,
    family_dbt_folders,
    family_links,
    prune_family_sets,
    registered_baselines,
    source_tables,
    sync_links,
    use_family_models,
)
from relreason_dagster.errors import ConfigError
from relreason_dagster.storage.schema import RAW_TABLES


def _source_tables(folder: Path) -> dict[str, str]:
    """The ``raw`` source tables a family's ``sources.yml`` declares: name -> the table it reads."""
    return {name: table.get("identifier", name) for name, table in source_tables(folder).items()}


def test_a_familys_sources_are_the_raw_tables_its_tables_py_declares():
    folders = family_dbt_folders()
    assert {"kor"} <= set(folders)
    for name, (_, folder) in folders.items():
        declared = _source_tables(folder)
        owned, _ = family_tables(name)
        assert set(owned) <= set(declared), (
            f"{name}: add {sorted(set(owned) - set(declared))} to {folder}/sources.yml"
        )
        # Any other table it names is a second name for a generic table (a baseline's rows of parsed_answers).
        for table, reads in declared.items():
            assert table in owned or reads in RAW_TABLES, f"{name}: {table} is in no tables.py"


def test_family_files_are_linked_under_their_layer_and_marts_folder(tmp_path):
    dbt = tmp_path / "fam" / "dbt"
    for rel in (
        "sources.yml",
        "staging/stg_x.sql",
        "marts/x_a.sql",
        "marts/schema.yml",
        "macros/m.sql",
        "notes.md",
    ):
        (dbt / rel).parent.mkdir(parents=True, exist_ok=True)
        (dbt / rel).write_text("-- x\n")
    links = family_links({"fam": ("x", dbt)})
    assert {str(k): v.relative_to(dbt).as_posix() for k, v in links.items()} == {
        "models/x/sources.yml": "sources.yml",
        "models/staging/x/stg_x.sql": "staging/stg_x.sql",
        "models/marts/x/x_a.sql": "marts/x_a.sql",
        "models/marts/x/schema.yml": "marts/schema.yml",
        "macros/x/m.sql": "macros/m.sql",
    }
    root = tmp_path / "linked"
    assert sync_links(root, links) is True
    assert (root / "models/marts/x/x_a.sql").resolve() == (dbt / "marts/x_a.sql").resolve()
    assert sync_links(root, links) is False  # already in place
    del links[Path("models/marts/x/x_a.sql")]
    assert sync_links(root, links) is True and not (root / "models/marts/x/x_a.sql").is_symlink()
    assert families_key({"fam": ("x", dbt)}) != families_key({})


def test_no_shared_dbt_file_names_a_family():
    """The shared project stays generic: no ``.sql`` or ``.yml`` under ``dbt_project/`` names a family, its
    marts folder or its baselines (a baseline's answers are told apart by ``stg_parsed_answers.baseline``
    and its source is declared in its family's ``sources.yml``), not even in a column description."""
    from relreason_dagster import paths

    names = {
        n
        for f in FAMILIES.values()
        for n in (f.name, getattr(f, "marts_folder", None), *getattr(f, "baselines", ()))
    }
    names.discard(None)
    assert {"kor", "flenqa", "selfcontra", "relational", "dlm"} <= names
    skip = {"target", "families"}  # dbt's output; the links to the families' own files
    shared = {
        suffix: [
            p
            for p in paths.DBT_PROJECT_DIR.rglob(f"*{suffix}")
            if not skip.intersection(p.relative_to(paths.DBT_PROJECT_DIR).parts)
        ]
        for suffix in (".sql", ".yml")
    }
    assert len(shared[".sql"]) > 20 and len(shared[".yml"]) > 8
    naming = {
        str(p.relative_to(paths.DBT_PROJECT_DIR)): sorted(n for n in names if n in p.read_text().lower())
        for files in shared.values()
        for p in files
    }
    assert {p: found for p, found in naming.items() if found} == {}


def test_every_registered_baseline_has_its_source_in_its_familys_sources_yml():
    assert "dlm" in baseline_names()
    folders = family_dbt_folders()
    for model in baseline_names():
        family = baseline_family(model)
        assert family in folders, f"{model}: family {family} has no dbt folder for its baseline's source"
        assert baseline_source_problem(folders[family][1], model) is None
        assert _source_tables(folders[family][1])[baseline_source(model)] == "parsed_answers"
    assert registered_baselines() == [{"model": m, "source": baseline_source(m)} for m in baseline_names()]


def test_a_baseline_without_its_source_is_a_one_line_error(tmp_path):
    """The test above fails when a family's sources.yml lacks its baseline's source (a test of the test)."""
    dbt = tmp_path / "dbt"
    dbt.mkdir()
    assert "has no dbt folder" in baseline_source_problem(None, "b")
    assert "has no source raw.b_answers" in baseline_source_problem(dbt, "b")
    table = "      - name: b_answers\n        identifier: parsed_answers\n"
    head = "version: 2\nsources:\n  - name: raw\n    schema: raw\n    tables:\n      - name: b_runs\n"
    (dbt / "sources.yml").write_text(head)
    problem = baseline_source_problem(dbt, "b")
    assert "has no source raw.b_answers" in problem and "identifier: parsed_answers" in problem
    assert "\n" not in problem
    (dbt / "sources.yml").write_text(head + table)  # no asset key: the lineage would be lost
    assert "must read the baseline's rows" in baseline_source_problem(dbt, "b")
    (dbt / "sources.yml").write_text(head + table + '        meta: {dagster: {asset_key: ["b_answers"]}}\n')
    assert baseline_source_problem(dbt, "b") is None


def test_a_registered_baseline_without_its_source_stops_the_link_step(tmp_path, monkeypatch):
    import relreason_dagster.defs.dbt_families as dbt_families

    monkeypatch.setattr(dbt_families, "baseline_source_problem", lambda folder, model: f"{model}: add it")
    with pytest.raises(ConfigError, match="dlm: add it"):
        use_family_models(tmp_path)


def test_the_generated_macro_lists_the_baselines_as_a_literal(tmp_path):
    """A literal list, so dbt's parse (``execute`` false) runs the staging loop and records each source."""
    environment = dict(os.environ)
    text = baseline_macro([{"model": "b", "source": "b_answers"}])
    assert "{% macro registered_baselines() %}" in text
    assert '{{ return([{"model": "b", "source": "b_answers"}]) }}' in text
    assert "return([])" in baseline_macro([])
    relative, _, _ = use_family_models(tmp_path)
    assert (tmp_path / relative / BASELINE_MACRO).read_text() == baseline_macro(registered_baselines())
    assert not (tmp_path / relative / BASELINE_MACRO).is_symlink()
    # Linking leaves this process's environment alone: each dbt started gets the folder in its own.
    assert dict(os.environ) == environment and relative == families_folder()


def test_only_the_most_recently_used_family_sets_are_kept(tmp_path):
    import os

    for age, key in enumerate(["new", "mid", "old"]):
        (tmp_path / "families" / key).mkdir(parents=True)
        (tmp_path / "target" / key).mkdir(parents=True)
        os.utime(tmp_path / "families" / key, (1e9 - age, 1e9 - age))
    prune_family_sets(tmp_path, keep=2)
    assert sorted(p.name for p in (tmp_path / "families").iterdir()) == ["mid", "new"]
    assert sorted(p.name for p in (tmp_path / "target").iterdir()) == ["mid", "new"]
