"""Data-quality bounds and checks are declared by each family, and the shared suites read them."""

from __future__ import annotations

import pandas as pd

from data_quality import suites, targets
from relreason_dagster.benchmarks.registry import family_checks, family_quality


def test_bounds_come_from_the_family_that_declares_them():
    assert targets.label_bounds("relational", "IsMGUncle") == (0.0, 0.2)
    assert targets.label_bounds("relational", "HasBrother") == family_quality("relational").label_balance["*"]
    assert targets.label_bounds("flenqa", "MonoRel") == (0.5, 0.5)
    assert not targets.has_labels("kor") and targets.has_labels("selfcontra")
    assert targets.token_range("selfcontra", "few_answer") == (200, 4096)
    assert targets.token_range("no-such-family", "x") == (1, 10**9)  # unclaimed: unbounded


def test_family_checks_live_in_the_family_folder():
    assert [c.name for c in family_checks("kor")] == [
        "kor_gold_self_check",
        "kor_item_counts_check",
        "kor_answer_formats_check",
    ]
    assert [c.name for c in family_checks("flenqa")] == ["padding_entities_check"]
    assert family_checks("relational") == ()


def test_parse_rate_reads_the_mart_and_the_family_minimum():
    mart = pd.DataFrame(
        {
            "benchmark": ["flenqa", "flenqa", "kor"],
            "model": ["m", "m", "m"],
            "n_ok": [1, 2, 9],
            "n_na": [0, 0, 1],
            "n_refused": [3, 4, 0],
        }
    )
    res = suites.parse_rate(mart)
    assert not res.success
    assert [(f["benchmark"], round(f["parse_rate"], 2)) for f in res.failures] == [("flenqa", 0.3)]


def test_undeclared_parse_status_fails():
    ok = pd.DataFrame({"benchmark": ["flenqa", "kor"], "parse_status": ["refused", "error"], "n": [2, 1]})
    assert suites.parse_statuses(ok).success
    bad = pd.DataFrame({"benchmark": ["kor"], "parse_status": ["refused"], "n": [1]})
    assert not suites.parse_statuses(bad).success
