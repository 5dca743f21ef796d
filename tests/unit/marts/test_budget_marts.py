"""The per-study ``<family>_budget`` marts (issue 55, item 2): accuracy, tokens, cut answers and the paired
McNemar test between adjacent levels of a sweep, Holm-adjusted per base model.

Scripted rows, written straight into the warehouse (no model is asked, no answer parsed: what is under
test is the marts, not a parser).  A sweep ``m`` of ``reasoning_effort`` expands into the variants
``m@reasoning_effort=low/medium/high`` (raw.model_sweeps ranks 0, 1, 2); each answers the same ten items
of one cell (A) of every family, by this script (item numbers 0-9):

  low     right 0, 1 and 8; 8 stopped at max_tokens (finish_reason length, readable: right and cut);
          9 all thinking and no answer (an unclosed <think>: unreadable and cut); the rest readable, wrong
  medium  right 0-7; 8 and 9 readable, wrong
  high    right all but 2; 8 again stopped at max_tokens after a right answer (cut)

so accuracy is 0.3 / 0.8 / 0.9, n_cut 2 / 0 / 1, and on the same items medium gains 2-7 (6) over low
and loses 8 (1): exact McNemar p = 2 (1 + 7) / 2^7 = 0.125; high gains 8 and 9 and loses 2: p = 1.
The provider counts 100 / 400 / 1600 reasoning tokens per answer and 10 answer tokens beyond them (none
for the answer that is all thinking).  KOR also has a second cell (B, six items, category cipher):
wrong at low, right at medium and high, so its medium test is 6 to 0 (p = 2 / 2^6 = 0.03125) and its high
one 0 to 0 (p = 1); Holm over the four tests of m is then 0.125, 0.375, 1 and 1.  Relational scores F1:
its readable wrong answers at low are half right (F1 2/3).  A model that is no sweep variant answers
the same items and is in no budget mart.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import duckdb
import pytest

from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import COLUMNS, ResponseStore
from relreason_dagster.storage.schema import ensure_schema
from tests.dbt_home import dbt_build, dicts, insert

BASE = "m"
LEVELS = ("low", "medium", "high")
TOKENS = {"low": 100, "medium": 400, "high": 1600}
ANSWER_TOKENS = 10
PLAIN = "plain-model"
# Per family: its budget mart, the cell A coordinates (task, split, setting, variant) and its axis columns.
CELLS: dict[str, dict[str, Any]] = {
    "flenqa": {"task": "PIR", "split": "test", "setting": "direct", "variant": {"length": 500}},
    "kor": {"task": "logic", "split": "official", "setting": "zero_shot", "variant": {}},
    "relational": {"task": "HasSister", "split": "iid", "setting": "tv", "variant": {}},
    "selfcontra": {"task": "generated", "split": "test", "setting": "zero_answer", "variant": {}},
}
KOR_B = {"task": "cipher", "split": "official", "setting": "zero_shot", "variant": {}}
# The mart column that holds the family's task (KOR's category, Self-Contra's dataset).
TASK_COLUMN = {"flenqa": "task", "kor": "category", "relational": "task", "selfcontra": "dataset"}


# A second sweep on FLenQA's cell A, three draws per item (--samples 3): per item, whether each draw is right.
DRAWN = "d"
R, W = True, False
DRAWS = {
    "low": [(R, R, W), (R, W, W), (W, W, W), (R, R, R)],  # majorities: right, wrong, wrong, right
    "high": [(R, R, R), (R, R, W), (R, R, W), (W, W, R)],  # majorities: right, right, right, wrong
}


def drawn(level: str) -> str:
    return f"{DRAWN}@reasoning_effort={level}"


def variant(level: str) -> str:
    return f"{BASE}@reasoning_effort={level}"


def _script_a(level: str, i: int) -> tuple[bool, str, bool]:
    """(right, finish_reason, all thinking) of item ``i`` of cell A at ``level``."""
    if level == "low":
        if i == 9:
            return False, "stop", True
        return i in (0, 1, 8), "length" if i == 8 else "stop", False
    if level == "medium":
        return i <= 7, "stop", False
    return i != 2, "length" if i == 8 else "stop", False


def _script_b(level: str, i: int) -> tuple[bool, str, bool]:
    return level != "low", "stop", False


class Warehouse:
    """Rows of samples, prompts, parsed answers and lake responses, written at the end."""

    def __init__(self) -> None:
        self.samples: list[dict[str, Any]] = []
        self.prompts: list[dict[str, Any]] = []
        self.answers: list[dict[str, Any]] = []
        self.draws: list[dict[str, Any]] = []
        self.responses: list[tuple[Any, ...]] = []
        self.now = dt.datetime(2026, 1, 1)

    def item(self, family: str, cell: dict[str, Any], name: str) -> dict[str, Any]:
        sample_id, prompt_id = f"s-{family}-{name}", f"p-{family}-{name}"
        self.samples.append(
            {
                "benchmark": family,
                "task": cell["task"],
                "sample_id": sample_id,
                "split": cell["split"],
                "variant": json.dumps(cell["variant"]),
                "gold": json.dumps("gold"),
            }
        )
        self.prompts.append(
            {
                "prompt_id": prompt_id,
                "sample_id": sample_id,
                "benchmark": family,
                "task": cell["task"],
                "split": cell["split"],
                "setting": cell["setting"],
                "messages": json.dumps([{"role": "user", "content": f"question {name}"}]),
            }
        )
        return {"prompt_id": prompt_id, "sample_id": sample_id, "benchmark": family, **cell}

    def answer(
        self, item: dict[str, Any], model: str, level: str, outcome: tuple[bool, str, bool], draw: int = 0
    ) -> None:
        """Draw ``draw`` of ``model``'s answer to ``item``: draw 0 in parsed_answers, the others in
        parsed_draws (as ``--samples K`` stores them), each with its lake response."""
        right, finish, thinking_only = outcome
        half_right = item["benchmark"] == "relational" and level == "low" and not right
        tp, fp, fn = (1, 0, 0) if right else (1, 1, 0) if half_right else (0, 1, 1)
        (self.answers if draw == 0 else self.draws).append(
            {
                "prompt_id": item["prompt_id"],
                "model": model,
                **({"sample_index": draw} if draw else {}),
                "sample_id": item["sample_id"],
                "benchmark": item["benchmark"],
                "task": item["task"],
                "split": item["split"],
                "setting": item["setting"],
                "parse_status": "na" if thinking_only else "ok",
                "tp": None if thinking_only else tp,
                "fp": None if thinking_only else fp,
                "fn": None if thinking_only else fn,
                "correct": right,
            }
        )
        reasoning = TOKENS.get(level, 0)
        row = {
            "prompt_id": item["prompt_id"],
            "model": model,
            "benchmark": item["benchmark"],
            "request_hash": f"h-{model}-{item['prompt_id']}-{draw}",
            "litellm_model": "scripted/budget",
            "content": "" if thinking_only else ("gold" if right else "other"),
            "finish_reason": finish,
            "prompt_tokens": 20,
            "completion_tokens": reasoning + (0 if thinking_only else ANSWER_TOKENS),
            "latency_s": 0.1,
            "attempts": 1,
            "error": None,
            "from_cache": False,
            "created_at": self.now,
            "sanitized": False,
            "reasoning": "Let me think it through. " * 3 if reasoning else None,
            "reasoning_tokens": reasoning or None,
            "sample_index": draw,
        }
        self.responses.append(tuple(row.get(c) for c in COLUMNS))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("budget_marts")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    db = root / "budget.duckdb"
    con = duckdb.connect(str(db))
    w = Warehouse()
    try:
        ensure_schema(con)
        insert(
            con,
            "model_sweeps",
            [
                {
                    "model": variant(level),
                    "base_model": BASE,
                    "param": "reasoning_effort",
                    "level": level,
                    "level_rank": rank,
                }
                for rank, level in enumerate(LEVELS)
            ]
            + [
                {
                    "model": drawn(level),
                    "base_model": DRAWN,
                    "param": "reasoning_effort",
                    "level": level,
                    "level_rank": rank,
                }
                for rank, level in enumerate(DRAWS)
            ],
        )
        for family, cell in CELLS.items():
            scripts = [(cell, "a", 10, _script_a)] + ([(KOR_B, "b", 6, _script_b)] if family == "kor" else [])
            for c, tag, size, script in scripts:
                for i in range(size):
                    item = w.item(family, c, f"{tag}{i}")
                    for level in LEVELS:
                        w.answer(item, variant(level), level, script(level, i))
                    w.answer(item, PLAIN, "plain", (True, "stop", False))
                    if family == "flenqa" and tag == "a" and i < len(DRAWS["low"]):
                        for level, per_item in DRAWS.items():
                            for k, right in enumerate(per_item[i]):
                                w.answer(item, drawn(level), level, (right, "stop", False), draw=k)
        insert(con, "samples", w.samples)
        insert(con, "prompts", w.prompts)
        insert(con, "parsed_answers", w.answers)
        insert(con, "parsed_draws", w.draws)
        ResponseStore(Lake.default()).append(w.responses)
    finally:
        con.close()
    dbt_build(db, root, select=" ".join(f"+{f}_budget" for f in CELLS))
    read = duckdb.connect(str(db), read_only=True)
    yield read
    read.close()
    mp.undo()


def _rows(con: duckdb.DuckDBPyConnection, family: str) -> list[dict[str, Any]]:
    return dicts(con, f"SELECT * FROM marts.{family}_budget ORDER BY level_rank")


def _cell_a(con: duckdb.DuckDBPyConnection, family: str) -> dict[str, dict[str, Any]]:
    rows = [
        r
        for r in _rows(con, family)
        if r["base_model"] == BASE and r[TASK_COLUMN[family]] == CELLS[family]["task"]
    ]
    assert [r["level"] for r in rows] == list(LEVELS)
    return {r["level"]: r for r in rows}


@pytest.mark.parametrize("family", list(CELLS))
def test_each_level_has_its_scripted_accuracy_and_cut_answers(built, family):
    rows = _cell_a(built, family)
    got = {
        lv: (r["model"], r["level_rank"], r["n"], r["n_items"], r["n_cut"], r["n_na"])
        for lv, r in rows.items()
    }
    assert got == {
        "low": (variant("low"), 0, 10, 10, 2, 1),
        "medium": (variant("medium"), 1, 10, 10, 0, 0),
        "high": (variant("high"), 2, 10, 10, 1, 0),
    }
    assert {lv: r["cut_share"] for lv, r in rows.items()} == {"low": 0.2, "medium": 0.0, "high": 0.1}
    expected = {"low": 0.3, "medium": 0.8, "high": 0.9}
    if family == "relational":  # F1: the six readable wrong answers at low are half right (2/3 each)
        expected["low"] = round((3 + 6 * 2 / 3) / 10, 4)
    assert {lv: r["accuracy"] for lv, r in rows.items()} == pytest.approx(expected)
    assert {r["metric"] for r in rows.values()} == {"f1" if family == "relational" else "accuracy"}
    assert {lv: r["n_correct"] for lv, r in rows.items()} == {"low": 3, "medium": 8, "high": 9}


@pytest.mark.parametrize("family", list(CELLS))
def test_tokens_are_the_providers_counts(built, family):
    rows = _cell_a(built, family)
    assert {lv: r["mean_reasoning_tokens"] for lv, r in rows.items()} == TOKENS
    # the answer that is all thinking has no answer tokens: 9 x 10 / 10 at low
    assert {lv: r["mean_answer_tokens"] for lv, r in rows.items()} == {
        "low": 9.0,
        "medium": 10.0,
        "high": 10.0,
    }


@pytest.mark.parametrize("family", list(CELLS))
def test_one_draw_per_item_gives_the_plain_wilson_interval(built, family):
    from relreason_dagster.results.report_tables import wilson

    row = _cell_a(built, family)["medium"]
    low, high = wilson(8, 10)
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low, abs=6e-5), pytest.approx(high, abs=6e-5))


@pytest.mark.parametrize("family", list(CELLS))
def test_adjacent_levels_are_paired_on_the_same_items(built, family):
    rows = _cell_a(built, family)
    tests = {lv: (r["n_paired"], r["n_gained"], r["n_lost"], r["mcnemar_p"]) for lv, r in rows.items()}
    assert tests == {
        "low": (None, None, None, None),
        "medium": (10, 6, 1, pytest.approx(2 * (1 + 7) / 2**7)),
        "high": (10, 2, 1, pytest.approx(1.0)),
    }


def _holm(ps: list[float]) -> list[float]:
    """Holm's step-down adjustment, written out: the i-th smallest p times (m - i), running maximum."""
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out, running = [0.0] * len(ps), 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - step) * ps[i]))
        out[i] = running
    return out


def test_holm_adjusts_over_every_test_of_the_base_model(built):
    tested = [r for r in _rows(built, "kor") if r["level_rank"] > 0]
    got = {(r["category"], r["level"]): (r["mcnemar_p"], r["p_holm"]) for r in tested}
    assert got == {
        ("logic", "medium"): (pytest.approx(0.125), pytest.approx(0.375)),
        ("logic", "high"): (pytest.approx(1.0), pytest.approx(1.0)),
        ("cipher", "medium"): (pytest.approx(0.03125), pytest.approx(0.125)),
        ("cipher", "high"): (pytest.approx(1.0), pytest.approx(1.0)),
    }
    assert [r["p_holm"] for r in tested] == pytest.approx(_holm([r["mcnemar_p"] for r in tested]))
    (b,) = [r for r in tested if (r["category"], r["level"]) == ("cipher", "medium")]
    assert (b["n_paired"], b["n_gained"], b["n_lost"]) == (6, 6, 0)


@pytest.mark.parametrize("family", list(CELLS))
def test_models_that_are_no_sweep_are_left_out(built, family):
    rows = _rows(built, family)
    assert {r["base_model"] for r in rows} == ({BASE, DRAWN} if family == "flenqa" else {BASE})
    assert PLAIN not in {r["model"] for r in rows}


def _drawn(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    rows = [r for r in _rows(con, "flenqa") if r["base_model"] == DRAWN]
    assert [r["level"] for r in rows] == list(DRAWS)
    return {r["level"]: r for r in rows}


def test_every_draw_counts_in_accuracy(built):
    got = {lv: (r["n"], r["n_items"], r["n_correct"], r["accuracy"]) for lv, r in _drawn(built).items()}
    assert got == {"low": (12, 4, 6, 0.5), "high": (12, 4, 8, pytest.approx(0.6667))}


def test_the_interval_is_clustered_by_item(built):
    from relreason_dagster.results.report_tables import wilson

    row = _drawn(built)["low"]
    # Clusters (k_i, n_i) = (2, 3), (1, 3), (0, 3), (3, 3); p = 1/2.  Ratio-estimator variance
    # g/(g-1) * sum((k_i - p n_i)^2) / n^2 against the binomial p(1-p)/n: the design effect.
    k = [sum(draws) for draws in DRAWS["low"]]
    clustered = 4 / 3 * sum((ki - 0.5 * 3) ** 2 for ki in k) / 12**2
    n_eff = 12 / (clustered / (0.5 * 0.5 / 12))
    low, high = wilson(0.5 * n_eff, n_eff)  # type: ignore[arg-type]
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low, abs=6e-5), pytest.approx(high, abs=6e-5))
    naive_low, naive_high = wilson(6, 12)
    assert row["ci_low"] < naive_low and row["ci_high"] > naive_high  # wider than 12 independent answers


def test_the_paired_test_reads_each_items_majority_and_holm_stays_within_its_base_model(built):
    row = _drawn(built)["high"]
    # majorities low (R, W, W, R), high (R, R, R, W): items 1 and 2 gained, item 3 lost; one pair per item
    assert (row["n_paired"], row["n_gained"], row["n_lost"]) == (4, 2, 1)
    assert row["mcnemar_p"] == pytest.approx(1.0)
    assert row["p_holm"] == row["mcnemar_p"]  # d's one test; m's two tests in this mart are not in its family
    m = _cell_a(built, "flenqa")["medium"]
    assert m["p_holm"] == pytest.approx(2 * m["mcnemar_p"])  # m's smallest p of its two tests, times two


# --- the report's "Thinking budget" section --------------------------------------------------------


def test_the_figure_pools_the_study_axis_per_level(built):
    from relreason_dagster.results.budget import pooled

    (line,) = pooled(_rows(built, "kor")).values()  # one base model: one line
    got = [(p["level"], p["n"], p["accuracy"], p["reasoning_tokens"], p["cut_share"]) for p in line]
    # cells A (10 items) and B (6 items) weighted by their answers
    assert got == [
        ("low", 16, pytest.approx(3 / 16), pytest.approx(100), pytest.approx(2 / 16)),
        ("medium", 16, pytest.approx(14 / 16), pytest.approx(400), 0.0),
        ("high", 16, pytest.approx(15 / 16), pytest.approx(1600), pytest.approx(1 / 16)),
    ]


def test_the_report_has_the_section_and_a_figure_per_study_with_sweeps(built, tmp_path):
    from relreason_dagster.results.report import build_report

    summary = build_report(built, tmp_path / "report")
    page = summary.path.read_text()
    assert '<section id="thinking-budget"><h2>Thinking budget</h2>' in page
    assert 'href="#thinking-budget"' in page
    for family in CELLS:
        assert f'id="figure-{family}_budget"' in page
        assert (tmp_path / "report" / f"{family}_budget.png").stat().st_size > 1000


def test_the_report_leaves_the_section_out_without_sweeps(built, tmp_path):
    from relreason_dagster.results.budget import swept_figures
    from relreason_dagster.results.report import build_report

    # The same marts, built but empty: what a warehouse whose runs swept nothing holds.
    con = duckdb.connect(str(tmp_path / "no_sweep.duckdb"))
    ((path,),) = built.execute("SELECT path FROM duckdb_databases() WHERE NOT internal").fetchall()
    con.execute(f"ATTACH '{path}' AS src (READ_ONLY)")
    con.execute("CREATE SCHEMA marts")
    for family in CELLS:
        con.execute(f"CREATE TABLE marts.{family}_budget AS SELECT * FROM src.marts.{family}_budget LIMIT 0")
    con.execute("DETACH src")
    assert swept_figures(con) == []
    page = build_report(con, tmp_path / "report").path.read_text()
    assert "thinking-budget" not in page and "_budget.png" not in page
    con.close()
