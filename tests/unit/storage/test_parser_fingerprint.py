"""The parse-reuse key changes whenever the code a family parses with changes (storage/parsed_answers.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from relreason_dagster.storage.parsed_answers import parser_fingerprint

FAMILY_SOURCE = """
class ToyFamily:
    name = "toy"

    def parse(self, sample, setting, content):
        return content.strip().lower()
"""


def _load(path: Path, name: str, monkeypatch) -> object:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module.ToyFamily()


def test_editing_a_family_changes_the_fingerprint(tmp_path, monkeypatch):
    path = tmp_path / "toy_family_for_fingerprint.py"
    path.write_text(FAMILY_SOURCE)
    family = _load(path, "toy_family_for_fingerprint", monkeypatch)
    first = parser_fingerprint([family])
    assert parser_fingerprint([family]) == first  # stable while nothing changes
    path.write_text(FAMILY_SOURCE.replace(".lower()", ".upper()"))
    assert parser_fingerprint([family]) != first


def test_the_registered_families_are_part_of_the_default_fingerprint():
    from relreason_dagster.benchmarks.registry import FAMILIES

    assert parser_fingerprint() == parser_fingerprint(FAMILIES.values())
    assert parser_fingerprint() != parser_fingerprint([])  # the families' own folders count


def test_a_family_without_source_is_never_reused():
    family = type("MadeAtRunTime", (), {"name": "runtime"})()
    family.__class__.__module__ = "no_such_module_anywhere"
    assert parser_fingerprint([family]) != parser_fingerprint([])
