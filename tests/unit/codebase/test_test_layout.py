"""The tests are grouped by area: no test file sits loose in ``tests/unit`` or ``tests/integration``.

The folders have no ``__init__.py`` (pytest imports each test file by its base name), so two files
with one base name in different areas would collide at collection; a second check says so first.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[2]
GROUPED = ("unit", "integration")


def test_every_unit_and_integration_test_sits_in_an_area_folder() -> None:
    loose = [str(p.relative_to(TESTS)) for top in GROUPED for p in (TESTS / top).glob("test_*.py")]
    assert loose == [], f"move these into an area folder of their layer: {loose}"
    for top in GROUPED:
        areas = [p for p in (TESTS / top).iterdir() if p.is_dir() and p.name != "__pycache__"]
        assert areas, f"tests/{top} has no area folders"
        for area in areas:
            assert list(area.glob("test_*.py")), f"tests/{top}/{area.name} holds no test file"


def test_no_two_test_files_share_a_base_name() -> None:
    names = Counter(p.name for p in TESTS.rglob("test_*.py") if "perf" not in p.parts)
    assert [name for name, n in names.items() if n > 1] == []
