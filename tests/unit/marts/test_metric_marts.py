"""The metric marts on hand-made rows: per-sample F1, relational F1, SCR and the study's DLM column.

Python stores what parsing found (tp/fp/fn and correctness of an answer, the flags of an annotated
response); every rate a user reads is computed once, in SQL.  These tests build the real dbt project
(seeds, staging, intermediate, marts) on a DuckDB file holding rows made by the Python parse helpers,
and compare the marts with numbers worked out by hand.  ``set_f1``, kept for offline DLM evaluation
that has no database, is checked against the mart on random sets, so the two cannot drift apart.
"""

from __future__ import annotations

import csv
import json
import random
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import duckdb
import pytest

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import Parsed
from relreason_dagster.benchmarks.relational.tasks import TASKS
from relreason_dagster.benchmarks.scoring import score_cells, set_f1, unreadable
from relreason_dagster.benchmarks.selfcontra.annotation_store import store_import
from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_csv
from relreason_dagster.storage.schema import ensure_schema
from relreason_dagster.storage.study_reference import read_published, store_family
from tests.dbt_home import dbt_build, dicts, insert

# The study's numbers, the relational family's published.csv: dlm_vs_llm reads Table 1's DLM from them.
PUBLISHED_CSV = paths.REPO_ROOT / "relreason_dagster" / "benchmarks" / "relational" / "published.csv"
N_CELLS = 9

# (prompt, predicted cells or None for an unreadable answer, gold cells, hand-computed F1) on
# HasFather / iid / nl.  tp, fp, fn of the second: 1, 1, 1 -> 2 / (2 + 1 + 1).
HAND = [
    ("p1", {1, 2}, {1, 2}, 1.0),
    ("p2", {1, 3}, {1, 2}, 0.5),
    ("p3", set(), set(), 1.0),  # nothing to find and nothing claimed
    ("p4", None, {1, 2}, 0.0),  # unreadable (na)
]
# A provider error on the same group: no answer, so no score; relational_f1 counts it in n_error.
ERROR_PROMPT = "p5"
# Annotated responses (accuracy flag, Self-Contra flag): 3 correct, 2 Self-Contra out of 5.
ANNOTATED = [("1", "0"), ("1", "0"), ("0", "1"), ("1", "1"), ("0", "0")]


def _sample(sample_id: str, task: str, split: str, gold: set[Hashable]) -> dict[str, Any]:
    return {
        "benchmark": "relational",
        "task": task,
        "sample_id": sample_id,
        "split": split,
        "gold": json.dumps(sorted(gold)),
        "gold_pos": len(gold),
        "n_cells": N_CELLS,
    }


def _answer(
    prompt_id: str, model: str, sample: dict[str, Any], setting: str, parsed: Parsed
) -> dict[str, Any]:
    """A raw.parsed_answers row from what the Python parser returned (its parse facts only)."""
    return {
        "prompt_id": prompt_id,
        "model": model,
        "sample_id": sample["sample_id"],
        "benchmark": "relational",
        "task": sample["task"],
        "split": sample["split"],
        "setting": setting,
        "parse_status": parsed.parse_status,
        "parsed": json.dumps(parsed.parsed),
        "tp": parsed.tp,
        "fp": parsed.fp,
        "fn": parsed.fn,
        "pred_pos": parsed.pred_pos,
        "n_cells": parsed.n_cells,
        "correct": parsed.correct,
        "detail": json.dumps(parsed.detail),
    }


def _parse(pred: set[Hashable] | None, gold: set[Hashable], detail: dict[str, Any] | None = None) -> Parsed:
    if pred is None:
        return unreadable(gold, N_CELLS, detail)
    return score_cells(pred, gold, N_CELLS, sorted(pred), detail)


def _random_cases(n: int) -> list[tuple[set[int], set[int]]]:
    rng = random.Random(18)
    return [
        ({c for c in range(N_CELLS) if rng.random() < 0.3}, {c for c in range(N_CELLS) if rng.random() < 0.3})
        for _ in range(n)
    ]


def _fill(con: duckdb.DuckDBPyConnection, annotation_csv: Path) -> dict[str, Any]:
    samples: list[dict[str, Any]] = []
    prompts: list[dict[str, Any]] = []
    answers: list[dict[str, Any]] = []

    def llm(prompt_id: str, sample: dict[str, Any], parsed: Parsed | None) -> None:
        samples.append(sample)
        prompts.append(
            {
                "prompt_id": prompt_id,
                "sample_id": sample["sample_id"],
                "benchmark": "relational",
                "task": sample["task"],
                "split": sample["split"],
                "setting": "nl",
                "messages": "[]",
                "kind": "test",
            }
        )
        if parsed is None:  # a provider error: an error row with no answer
            parsed = Parsed(parse_status="error", n_cells=N_CELLS, detail={"error": "HTTP 500"})
        answers.append(_answer(prompt_id, "m", sample, "nl", parsed))

    for prompt_id, pred, gold, _ in HAND:
        llm(prompt_id, _sample(f"s-{prompt_id}", "HasFather", "iid", gold), _parse(pred, gold))
    llm(ERROR_PROMPT, _sample(f"s-{ERROR_PROMPT}", "HasFather", "iid", {1}), None)
    cases = _random_cases(30)
    for i, (pred, gold) in enumerate(cases):
        llm(f"r{i}", _sample(f"s-r{i}", "HasSister", "ood", gold), _parse(pred, gold))
    # The DLM on IsUncle: two seeds on the same IID sample (F1 1.0 and 0.5) and one OOD answer.
    iid, ood = _sample("s-u1", "IsUncle", "iid", {1, 2}), _sample("s-u2", "IsUncle", "ood", {4})
    samples += [iid, ood]
    dlm = [
        ("d0", iid, _parse({1, 2}, {1, 2}, {"seed": 0})),
        ("d1", iid, _parse({1, 3}, {1, 2}, {"seed": 1})),
        ("d2", ood, _parse({4}, {4}, {"seed": 0})),
    ]
    answers += [_answer(prompt_id, "dlm", sample, "dlm", parsed) for prompt_id, sample, parsed in dlm]
    # An LLM's nl answer on the same IID sample, so the task has an LLM row next to the DLM.
    prompts.append({**prompts[0], "prompt_id": "u-nl", "sample_id": iid["sample_id"], "task": "IsUncle"})
    answers.append(_answer("u-nl", "m", iid, "nl", _parse(set(), {1, 2})))

    insert(con, "samples", samples)
    insert(con, "prompts", prompts)
    insert(con, "parsed_answers", answers)
    result = read_annotation_csv(annotation_csv)
    store_import(con, result)
    return {"cases": cases, "annotations": result}


def _write_annotations(path: Path) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["question", "response", "accuracy", "self_contra"])
        for i, (correct, self_contra) in enumerate(ANNOTATED):
            writer.writerow([f"Question: {i}?", f"Reasoning: r{i}. Answer: a{i}", correct, self_contra])
    return path


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("metric_marts")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    db = root / "metrics.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        facts = _fill(con, _write_annotations(root / "winobias_zero_answer_handmade.csv"))
        store_family(con, "relational", read_published("relational", PUBLISHED_CSV))
    finally:
        con.close()
    dbt_build(db, root, select="+answer_scores +dlm_vs_llm +relational_f1 +selfcontra_scr")
    read = duckdb.connect(str(db), read_only=True)
    yield {"con": read, **facts}
    read.close()
    mp.undo()


def test_answer_scores_per_sample_f1_by_hand(built):
    scores = {
        r["prompt_id"]: r for r in dicts(built["con"], "SELECT * FROM marts.answer_scores WHERE model = 'm'")
    }
    for prompt_id, _, _, f1 in HAND:
        assert scores[prompt_id]["f1"] == pytest.approx(f1), prompt_id
    assert scores["p4"]["parse_status"] == "na" and scores["p4"]["fn"] == 2
    assert ERROR_PROMPT not in scores  # a provider error is no answer


def test_relational_f1_by_hand(built):
    (row,) = dicts(
        built["con"],
        "SELECT * FROM marts.relational_f1 WHERE model = 'm' AND task = 'HasFather' AND split = 'iid'",
    )
    assert (row["n"], row["n_na"], row["n_error"]) == (4, 1, 1)
    assert row["f1"] == pytest.approx((1.0 + 0.5 + 1.0 + 0.0) / 4)
    # Pooled counts: tp 2+1, fp 1, fn 1+2 -> 6 / (6 + 1 + 3).
    assert row["f1_micro"] == pytest.approx(0.6)
    assert row["ci_low"] <= row["f1"] <= row["ci_high"]


def test_mart_f1_equals_the_offline_helper(built):
    """set_f1 (offline DLM evaluation) and the mart give the same F1 on the same sets."""
    scores = dict(
        built["con"]
        .execute("SELECT prompt_id, f1 FROM marts.answer_scores WHERE model = 'm' AND task = 'HasSister'")
        .fetchall()
    )
    assert len(scores) == len(built["cases"])
    for i, (pred, gold) in enumerate(built["cases"]):
        assert scores[f"r{i}"] == pytest.approx(set_f1(pred, gold)[3]), (pred, gold)
    assert len({round(v, 6) for v in scores.values()}) > 3  # the random sets are not all alike


def test_no_stored_f1_disagrees_with_the_mart(built):
    """An F1 stored at parse time (detail.f1), if any parser writes one, is the mart's number."""
    stored = (
        built["con"]
        .execute(
            "SELECT s.prompt_id, s.model, s.f1, (a.detail ->> 'f1')::double AS stored "
            "FROM marts.answer_scores s JOIN raw.parsed_answers a USING (prompt_id, model) "
            "WHERE a.detail ->> 'f1' IS NOT NULL"
        )
        .fetchall()
    )
    assert [r for r in stored if r[2] != pytest.approx(r[3])] == []


def test_dlm_vs_llm_pools_seeds_and_reads_the_study_numbers_from_the_published_csv(built):
    rows = {
        r["model"]: r
        for r in dicts(
            built["con"], "SELECT * FROM marts.dlm_vs_llm WHERE task = 'IsUncle' AND NOT published"
        )
    }
    assert set(rows) == {"m", "dlm"}
    dlm = rows["dlm"]
    assert (dlm["f1_n10"], dlm["n_n10"], dlm["n_seeds"]) == (pytest.approx(0.75), 2, 2)
    assert dlm["seed_sd_n10"] == pytest.approx(0.3536)  # sample sd of the seed means 1.0 and 0.5
    assert (dlm["f1_n20"], dlm["n_n20"]) == (pytest.approx(1.0), 1)
    assert rows["m"]["f1_n10"] == pytest.approx(0.0)
    for row in rows.values():  # the study's Table 1, DLM column, IsUncle
        assert (float(row["study_dlm_n10"]), float(row["study_dlm_n20"])) == (0.85, 0.2932)


def test_table_1_s_dlm_holds_every_relational_task_once_per_size():
    with PUBLISHED_CSV.open(newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["source"] == "Table 1" and r["model"] == "DLM"]
    assert sorted((r["task"], r["n"]) for r in rows) == sorted((t, n) for t in TASKS for n in ("10", "20"))
    assert all(0 <= float(r["value"]) <= 1 for r in rows)


def test_selfcontra_scr_from_the_parsed_flags(built):
    (row,) = dicts(built["con"], "SELECT * FROM marts.selfcontra_scr")
    assert (row["dataset"], row["model"], row["setting"]) == ("winobias", "handmade", "zero_answer")
    assert (row["n"], row["n_self_contra"]) == (5, 2)
    assert (row["accuracy"], row["scr"]) == (pytest.approx(0.6), pytest.approx(0.4))
    assert (row["n_type1"], row["n_type2"], row["n_rr"], row["n_ww"]) == (1, 1, 2, 1)
    assert row["scr_ci_low"] < row["scr"] < row["scr_ci_high"]
    # The importer reports what it read (counts); the rate is the mart's.
    summary = built["annotations"].summary()
    assert (summary["n"], summary["n_correct"], summary["n_self_contra"]) == (5, 3, 2)
    # A rate the importer prints, while it prints one, is the mart's.
    for key in ("accuracy", "scr"):
        assert summary.get(key, row[key]) == pytest.approx(row[key]), key
