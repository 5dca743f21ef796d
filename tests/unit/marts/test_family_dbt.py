"""A family owns its dbt files: they sit in its own ``dbt/`` folder, are linked into the project by
``defs/dbt_families.py``, and its ``sources.yml`` names exactly the raw tables its ``tables.py`` declares."""

from __future__ import annotations

from pathlib import Path

import yaml

from relreason_dagster.benchmarks.registry import family_tables
from relreason_dagster.defs.dbt_families import (
    families_key,
    family_dbt_folders,
    family_links,
    prune_family_sets,
    sync_links,
)
from relreason_dagster.storage.schema import RAW_TABLES


def _source_tables(folder: Path) -> dict[str, str]:
    """The ``raw`` source tables a family's ``sources.yml`` declares: name -> the table it reads."""
    file = folder / "sources.yml"
    if not file.is_file():
        return {}
    sources = yaml.safe_load(file.read_text()).get("sources") or []
    return {
        table["name"]: table.get("identifier", table["name"])
        for source in sources
        if source["name"] == "raw"
        for table in source.get("tables") or []
    }


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


def test_no_shared_sql_names_a_family():
    """The shared models stay generic: no ``.sql`` under ``dbt_project/`` names a family, its marts folder
    or its baselines (a baseline's answers are told apart by ``stg_parsed_answers.baseline``)."""
    from relreason_dagster import paths
    from relreason_dagster.benchmarks.registry import FAMILIES

    names = {
        n
        for f in FAMILIES.values()
        for n in (f.name, getattr(f, "marts_folder", None), *getattr(f, "baselines", ()))
    }
    names.discard(None)
    assert {"kor", "flenqa", "selfcontra", "relational", "dlm"} <= names
    skip = {"target", "families"}  # dbt's output; the links to the families' own files
    shared = [
        p
        for p in paths.DBT_PROJECT_DIR.rglob("*.sql")
        if not skip.intersection(p.relative_to(paths.DBT_PROJECT_DIR).parts)
    ]
    assert len(shared) > 20
    naming = {
        str(p.relative_to(paths.DBT_PROJECT_DIR)): sorted(n for n in names if n in p.read_text().lower())
        for p in shared
    }
    assert {p: found for p, found in naming.items() if found} == {}


def test_only_the_most_recently_used_family_sets_are_kept(tmp_path):
    import os

    for age, key in enumerate(["new", "mid", "old"]):
        (tmp_path / "families" / key).mkdir(parents=True)
        (tmp_path / "target" / key).mkdir(parents=True)
        os.utime(tmp_path / "families" / key, (1e9 - age, 1e9 - age))
    prune_family_sets(tmp_path, keep=2)
    assert sorted(p.name for p in (tmp_path / "families").iterdir()) == ["mid", "new"]
    assert sorted(p.name for p in (tmp_path / "target").iterdir()) == ["mid", "new"]
