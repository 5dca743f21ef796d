"""KOR-Bench's data-quality checks of its items, and its bounds for the shared checks.

* ``kor_gold_self_check``: every generated item's gold passes the project's own scorer against
  itself (official golds are data, not our output: listed, never failing);
* ``kor_item_counts_check``: rules x questions per category are what the profile asks for;
* ``kor_answer_formats_check``: the answer-format distribution (NR/ME/TR/MC/SD), reported (warn only).

KOR questions have answers, not labels: there is no label balance to check.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from relreason_dagster.benchmarks.base import FamilyCheck, Profile, QualityBounds, Sample
from relreason_dagster.benchmarks.kor.family import MIXED_TASK, item_of, pool
from relreason_dagster.benchmarks.kor.formats import FORMATS
from relreason_dagster.benchmarks.kor.scoring import score_robust
from relreason_dagster.benchmarks.kor.stepwise import STEPWISE_TASK
from relreason_dagster.common.gx_validation import SuiteResult, validate

QUALITY = QualityBounds(label_balance=None)

# The benchmark's questions: not mixed records, not §6.1's cipher sub-steps (checked by their own data).
SINGLE_QUESTIONS_SQL = (
    f"SELECT * FROM raw.samples WHERE benchmark = ? AND task NOT IN ('{MIXED_TASK}', '{STEPWISE_TASK}')"
)


def _samples(frame: Any) -> list[Sample]:
    records = frame.astype(object).where(frame.notna(), None).to_dict(orient="records")
    return [Sample.from_row(r) for r in records]


def gold_self(frame: Any, profile: Profile | None = None, seed: int = 0) -> SuiteResult:
    """Every *generated* item's gold passes the robust scorer against itself."""
    import great_expectations.expectations as gxe
    import pandas as pd

    rows = []
    for sample in _samples(frame):
        verdict, reason = score_robust(sample.gold, item_of(sample))
        rows.append(
            {
                "sample_id": sample.sample_id,
                "category": sample.task,
                "source": sample.split,
                "rule_id": sample.variant.get("rule_id"),
                "reason": reason,
                "self_ok": verdict,
            }
        )
    items = pd.DataFrame(rows, columns=["sample_id", "category", "source", "rule_id", "reason", "self_ok"])
    df = items[items["source"] == "generated"].reset_index(drop=True)
    expectations = [gxe.ExpectColumnValuesToBeInSet(column="self_ok", value_set=[True])]
    result = validate("kor_gold_self", df, expectations, ["sample_id", "category", "rule_id", "reason"])
    official = items[items["source"] == "official"]
    result.table = (
        items.groupby(["category", "source"], as_index=False)
        .agg(items=("self_ok", "size"), self_ok=("self_ok", "sum"))
        .to_dict(orient="records")
        if not items.empty
        else []
    )
    result.name = (
        f"kor_gold_self ({int((~official['self_ok'].astype(bool)).sum())} official golds not self-accepted)"
    )
    return result


def item_counts(frame: Any, profile: Profile | None, seed: int) -> SuiteResult:
    """Stored questions per (category, rule) equal what the profile asks for."""
    import great_expectations.expectations as gxe
    import pandas as pd

    found = Counter((s.task, s.variant.get("rule_id")) for s in _samples(frame))
    rows = []
    if profile is not None:  # a run without KOR has nothing to expect
        items, _ = pool(profile, seed)
        expected = Counter((p.item.category, p.item.rule_id) for p in items)
        for category, rule_id in sorted(set(expected) | set(found)):
            rows.append(
                {
                    "category": category,
                    "rule_id": rule_id,
                    "expected": expected.get((category, rule_id), 0),
                    "stored": found.get((category, rule_id), 0),
                }
            )
    df = pd.DataFrame(rows, columns=["category", "rule_id", "expected", "stored"])
    df["match"] = df["expected"] == df["stored"]
    expectations = [gxe.ExpectColumnValuesToBeInSet(column="match", value_set=[True])]
    return validate("kor_item_counts", df, expectations, ["category", "rule_id", "expected", "stored"])


def answer_formats(frame: Any, profile: Profile | None = None, seed: int = 0) -> SuiteResult:
    """Every item has one of the five answer formats; the shares per category and source are reported."""
    import great_expectations.expectations as gxe
    import pandas as pd

    counts = Counter((s.task, s.split, s.variant.get("answer_format")) for s in _samples(frame))
    df = pd.DataFrame(
        [
            {"category": c, "source": src, "answer_format": f, "n": n}
            for (c, src, f), n in sorted(counts.items())
        ],
        columns=["category", "source", "answer_format", "n"],
    )
    totals = df.groupby(["category", "source"])["n"].transform("sum") if not df.empty else df["n"]
    df["share"] = (df["n"] / totals).round(4) if not df.empty else df["n"]
    expectations = [gxe.ExpectColumnValuesToBeInSet(column="answer_format", value_set=list(FORMATS))]
    return validate("answer_formats", df, expectations, ["category", "source", "answer_format", "n"])


CHECKS = (
    FamilyCheck(
        name="kor_gold_self_check",
        asset="samples",
        description="KOR-Bench: every generated item's gold passes the project's own scorer against itself.",
        sql=SINGLE_QUESTIONS_SQL,
        run=gold_self,
    ),
    FamilyCheck(
        name="kor_item_counts_check",
        asset="samples",
        description="KOR-Bench: rules x questions per category as the profile configures them.",
        sql=SINGLE_QUESTIONS_SQL,
        run=item_counts,
    ),
    FamilyCheck(
        name="kor_answer_formats_check",
        asset="samples",
        description="KOR-Bench: answer-format distribution (NR/ME/TR/MC/SD) per category and source "
        "(reported).",
        sql=SINGLE_QUESTIONS_SQL,
        run=answer_formats,
        warn=True,
    ),
)
