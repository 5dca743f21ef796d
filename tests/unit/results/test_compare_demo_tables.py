"""The demo-table comparison (tests/perf/compare_demo_tables.py) reads printed tables and tells a changed
number from an added column: what "the demo's printed numbers before and after are equal" is checked with."""

from __future__ import annotations

from tests.perf.compare_demo_tables import compare, read_tables

BEFORE = """relreason: finished
== marts.kor_accuracy ==
model  category  n  accuracy
-----  --------  -  --------
m      Cipher    4  0.25
m      Logic     2  NULL
(2 rows)

== marts.parse_rate ==
model  n  parse_rate
-----  -  ----------
m      6  0.5
"""

AFTER_ADDED_COLUMN = """== marts.kor_accuracy ==
model  category  n  n_cut  accuracy
-----  --------  -  -----  --------
m      Cipher    4  1      0.25
m      Logic     2  0      NULL

== marts.parse_rate ==
model  n  parse_rate
-----  -  ----------
m      6  0.5

== marts.accuracy (cut share) ==
benchmark  n
---------  -
kor        6
"""


def test_added_columns_and_tables_are_not_differences():
    before, after = read_tables(BEFORE), read_tables(AFTER_ADDED_COLUMN)
    assert before["marts.kor_accuracy"] == (
        ["model", "category", "n", "accuracy"],
        [["m", "Cipher", "4", "0.25"], ["m", "Logic", "2", "NULL"]],
    )
    lines, differing = compare(before, after)
    assert differing == 0
    assert "only after: ['marts.accuracy']" in lines[0]
    assert any("added ['n_cut']" in line for line in lines)


def test_a_changed_number_is_a_difference():
    after = read_tables(AFTER_ADDED_COLUMN.replace("0.25", "0.5"))
    lines, differing = compare(read_tables(BEFORE), after)
    assert differing == 1
    assert any(line.startswith("DIFFERENT  marts.kor_accuracy") for line in lines)
    assert any("'0.25'" in line and "before" in line for line in lines)
