"""The headline tables `relreason run` and `relreason demo` print at the end: one per study.

Each table belongs to a benchmark family, so a run prints the tables of the families it covered,
restricted to the models it ran (the demo: everything).  Numbers are rounded to three significant
digits for reading; `relreason sql` / `export` give full precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from relreason_dagster.results.numbers import rounded_row

# (family, title, query); family None: every run shows it.
HEADLINE_TABLES: list[tuple[str | None, str, str]] = [
    (
        "relational",
        "marts.relational_f1",
        "SELECT model, task, split, setting, n, n_na, n_error, f1, ci_low, ci_high "
        "FROM marts.relational_f1 ORDER BY model, task, split, setting",
    ),
    (
        "relational",
        "marts.dlm_vs_llm (Table 1: nl prompting vs DLM)",
        "SELECT task, model, f1_n10, ci_low_n10, ci_high_n10, f1_n20, ci_low_n20, ci_high_n20, n_seeds, "
        "study_dlm_n10, study_dlm_n20 FROM marts.dlm_vs_llm",
    ),
    (
        "flenqa",
        "marts.flenqa_accuracy_by_length (FLenQA, Figure 1; length 0 = key paragraphs only)",
        "SELECT model, task, setting, length, n, mean_input_tokens, accuracy, ci_low, ci_high "
        "FROM marts.flenqa_accuracy_by_length ORDER BY model, task, setting, length",
    ),
    (
        "flenqa",
        "marts.flenqa_label_bias (FLenQA: share of False answers vs the true 50%, refusals)",
        "SELECT model, setting, length, n, n_true, n_false, n_refused, false_share, refusal_rate "
        "FROM marts.flenqa_label_bias ORDER BY model, setting, length",
    ),
    (
        "selfcontra",
        "marts.selfcontra_judged (Self-Contra: accuracy and SCR as labelled by the judge)",
        "SELECT model, dataset, setting, method, judge, n, accuracy, n_judged, judged_scr, scr_ci_low, "
        "scr_ci_high, n_type1, n_type2, n_type3 FROM marts.selfcontra_judged "
        "ORDER BY model, dataset, setting",
    ),
    (
        "relational",
        "marts.relational_symbolic_scr (relational CoT: stated facts checked against the knowledge base)",
        "SELECT model, task, split, n, n_checked, symbolic_scr, n_type1, n_type2, n_type3, n_rr, n_ww, "
        "n_unchecked, n_claims, n_false_claims FROM marts.relational_symbolic_scr "
        "ORDER BY model, task, split",
    ),
    (
        "kor",
        "marts.kor_accuracy (KOR-Bench: accuracy by category; official_accuracy = the official scorer)",
        "SELECT model, source, setting, category, n, n_correct, n_na, accuracy, ci_low, ci_high, "
        "official_accuracy FROM marts.kor_accuracy ORDER BY model, source, setting, category",
    ),
    (
        "kor",
        "marts.kor_self_correction (KOR-Bench: accuracy after each self-correction round, overall)",
        "SELECT model, source, round, n, n_correct, accuracy, n_corrected, correction_rate "
        "FROM marts.kor_self_correction WHERE category = 'overall' ORDER BY model, source, round",
    ),
    (
        "kor",
        "marts.kor_mixed (KOR-Bench: Multi-Q / Multi-R / Multi-RQ)",
        "SELECT model, source, setting, n, accuracy, n_questions, pass_rate FROM marts.kor_mixed "
        "ORDER BY model, source, setting",
    ),
    (None, "marts.parse_rate", "SELECT * FROM marts.parse_rate ORDER BY benchmark, model, task, setting"),
]


@dataclass
class Headline:
    """One printed table: its title, columns and (rounded) rows."""

    title: str
    columns: list[str]
    rows: list[list[Any]]


def headline_tables(
    con: Any, *, models: Sequence[str] | None = None, families: Sequence[str] | None = None
) -> list[Headline]:
    """The headline tables for ``families`` (None: all), rows of ``models`` only (None: all).

    A table whose mart is missing (a family never run in this home) is left out, not an error.
    """
    import duckdb

    found = []
    for family, title, sql in HEADLINE_TABLES:
        if families is not None and family is not None and family not in families:
            continue
        try:
            cur = con.execute(sql)
        except duckdb.CatalogException:
            continue
        columns = [d[0] for d in cur.description]
        rows = cur.fetchall()
        if models is not None and "model" in columns:
            at = columns.index("model")
            rows = [r for r in rows if r[at] in models]
        found.append(Headline(title, columns, [rounded_row(r) for r in rows]))
    return found
