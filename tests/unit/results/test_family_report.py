"""What each registered family declares for the report (``report.py``: ``SECTIONS``, ``HEADLINES``)
holds together: names are unique across families, a figure belongs to its own family (its asset is
tagged with it, so a run redraws the figures of the families it covered), and every section renders."""

from __future__ import annotations

from collections import Counter

from relreason_dagster.benchmarks.registry import family_headlines, family_names, family_sections
from relreason_dagster.results.figures import FIGURES, all_figures, report_sections
from relreason_dagster.results.headline import headline_specs
from relreason_dagster.results.report_tables import all_tables


def _dupes(names: list[str]) -> list[str]:
    return [name for name, n in Counter(names).items() if n > 1]


def test_every_built_in_family_declares_a_section_and_headlines():
    for name in family_names():
        assert family_sections(name), name
        assert family_headlines(name), name


def test_names_are_unique_across_families():
    sections = report_sections()
    assert not _dupes([s.key for s in sections] + ["overview", "samples-section"])
    figures = all_figures()
    assert not _dupes([f.name for f in figures]) and not _dupes([f.asset_name for f in figures])
    assert not _dupes([t.key for t in all_tables()] + [c.key for s in sections for c in s.comparisons])
    assert not _dupes([t.title for _, t in headline_specs()])


def test_a_family_s_figures_are_its_own():
    for name in family_names():
        for section in family_sections(name):
            for spec in section.figures:
                assert spec.study == name, spec.name
                assert all(m.startswith("marts.") for m in spec.marts), spec.name


def test_sections_keep_the_report_s_order():
    """The order the report has always shown (relational, FLenQA, KOR-Bench, Self-Contra)."""
    assert [s.label for s in report_sections()][:4] == ["Relational", "FLenQA", "KOR-Bench", "Self-Contra"]
    assert [f.name for f in FIGURES] == [f.name for f in all_figures()]


def test_headlines_come_per_family_then_the_shared_ones():
    specs = headline_specs()
    assert specs[-1][0] is None and specs[-1][1].title == "marts.parse_rate"
    families = [family for family, _ in specs if family is not None]
    runs = [f for i, f in enumerate(families) if i == 0 or families[i - 1] != f]
    assert not _dupes(runs)  # each family's tables together
    assert runs[:2] == ["relational", "flenqa"]  # in report order
