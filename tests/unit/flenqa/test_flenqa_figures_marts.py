"""The FLenQA figure marts pool exactly what the study pooled, checked at the paper profile's size.

A paper-profile run against a model takes hours of prompt building and calls, so this test builds
the real dbt project on rows made to the paper profile's own grid (its ``n_base``, lengths, paddings
and positions, read from ``profiles.yaml``: three tasks x 100 instances x 5 lengths x 3 paddings x 4
positions, plus the minimal texts) for two models and both prompts.  Whether an answer is correct
depends on its padding and position only (each cell of the grid gets its own share of correct
answers), so a mart pooling one cell too many or too few shows in its accuracy, and its ``n`` must
be the study's: Figure 1 600 per point, Figure 3 300, Figure 4 600, Figure 5 300, Figure 6 300 (the
captions and §4; Figure 4 pools both irrelevant paddings, so 2 x 300).  §7's dependence tests are
compared with
``scipy.stats.fisher_exact`` on the same counts.
"""

from __future__ import annotations

import json
from typing import Any

import duckdb
import pandas as pd
import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.flenqa.instances import TASKS
from relreason_dagster.storage.schema import ensure_schema
from relreason_dagster.storage.study_reference import read_published, store_family
from tests.dbt_home import dbt_build

PUBLISHED_CSV = paths.REPO_ROOT / "relreason_dagster" / "benchmarks" / "flenqa" / "published.csv"
MODELS = ("m1", "m2")
SETTINGS = ("direct", "cot")
# Correct answers out of every 100 instances of a cell, by (padding, position): all different, so
# pooling a wrong cell moves the accuracy.
SHARE = {
    ("duplicate", "first"): 90,
    ("duplicate", "middle"): 11,
    ("duplicate", "last"): 12,
    ("duplicate", "random"): 13,
    ("similar", "first"): 60,
    ("similar", "middle"): 40,
    ("similar", "last"): 80,
    ("similar", "random"): 70,
    ("different", "first"): 30,
    ("different", "middle"): 20,
    ("different", "last"): 100,
    ("different", "random"): 50,
    ("none", "none"): 95,
}


def paper_grid() -> dict[str, Any]:
    """The paper profile's FLenQA knobs, as the pipeline reads them."""
    return profiles.get_profile("paper", "flenqa").params


def _answer_facts(index: int, padding: str, position: str, setting: str) -> dict[str, Any]:
    """Correctness by cell; CoT answer-first and coverage by instance, tied to correctness in part."""
    correct = index % 100 < SHARE[(padding, position)]
    answer_first = setting == "cot" and (index % 5 == 0 or (not correct and index % 2 == 0))
    covered = 2 if correct and index % 3 else index % 2
    return {"correct": correct, "answer_first": answer_first, "keys_covered": covered}


def _insert(
    con: duckdb.DuckDBPyConnection, table: str, names: list[str], rows: list[tuple], **same: Any
) -> None:
    """Many rows at once (through a data frame: row-by-row inserts of 70k answers take minutes)."""
    frame = pd.DataFrame(rows, columns=names).assign(**same)  # noqa: F841 - read by the SQL below
    columns = ", ".join(frame.columns)
    con.execute(f"INSERT INTO raw.{table} ({columns}) SELECT {columns} FROM frame")


def _fill(con: duckdb.DuckDBPyConnection, grid: dict[str, Any]) -> list[dict[str, Any]]:
    cells = [("none", "none", 0)] if grid.get("minimal", True) else []
    cells += [(p, q, n) for n in grid["lengths"] for p in grid["paddings"] for q in grid["positions"]]
    samples, prompts, answers = [], [], []
    for task in TASKS:
        for index in range(int(grid["n_base"])):
            for padding, position, length in cells:
                sample_id = f"{task}-{index}-{length}-{padding}-{position}"
                variant = {
                    "base_id": f"{task}-{index}",
                    "length": length,
                    "padding": padding,
                    "position": position,
                }
                split = "minimal" if length == 0 else "test"
                samples.append((sample_id, task, split, json.dumps(variant), index % 2 == 0))
                for setting in SETTINGS:
                    prompt_id = f"{sample_id}-{setting}"
                    prompts.append((prompt_id, sample_id, task, split, setting, length + 40))
                    facts = _answer_facts(index, padding, position, setting)
                    for model in MODELS:
                        detail = {"answer": "true", **({} if setting == "direct" else facts)}
                        detail.pop("correct", None)
                        answers.append(
                            (
                                prompt_id,
                                model,
                                sample_id,
                                task,
                                split,
                                setting,
                                facts["correct"],
                                json.dumps(detail),
                            )
                        )
    # §5's next-word prompts on every padded text (as the paper profile asks them), correct by cell.
    for sample_id, task, split, variant, _label in list(samples):
        cell = json.loads(variant)
        if split != "test":
            continue
        prompt_id = f"{sample_id}-next_word"
        prompts.append((prompt_id, sample_id, task, split, "next_word", cell["length"] + 10))
        index = int(cell["base_id"].rsplit("-", 1)[1])
        correct = index % 100 < SHARE[(cell["padding"], cell["position"])]
        for model in MODELS:
            answers.append((prompt_id, model, sample_id, task, split, "next_word", correct, "{}"))
    _insert(
        con,
        "samples",
        ["sample_id", "task", "split", "variant", "label"],
        samples,
        benchmark="flenqa",
        n_cells=1,
    )
    _insert(
        con,
        "prompts",
        ["prompt_id", "sample_id", "task", "split", "setting", "input_tokens"],
        prompts,
        benchmark="flenqa",
        messages="[]",
        kind="test",
    )
    _insert(
        con,
        "parsed_answers",
        ["prompt_id", "model", "sample_id", "task", "split", "setting", "correct", "detail"],
        answers,
        benchmark="flenqa",
        parse_status="ok",
        n_cells=1,
    )
    return [
        {
            "model": a[1],
            "length": int(a[2].split("-")[2]),
            "setting": a[5],
            "correct": a[6],
            **json.loads(a[7]),
        }
        for a in answers
        if a[5] != "next_word"
    ]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("flenqa_marts")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    db = root / "flenqa.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        answers = _fill(con, paper_grid())
        store_family(con, "flenqa", read_published("flenqa", PUBLISHED_CSV))
    finally:
        con.close()
    dbt_build(db, root, select="+fqn:marts.flenqa")
    read = duckdb.connect(str(db), read_only=True)
    yield {"con": read, "answers": answers}
    read.close()
    mp.undo()


def _dicts(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _expected(cells: list[tuple[str, str]]) -> float:
    """Accuracy of a pool of equally sized cells: the mean of their shares."""
    return round(sum(SHARE[c] for c in cells) / (100 * len(cells)), 4)


def test_the_paper_profile_is_the_studys_grid():
    grid = paper_grid()
    assert int(grid["n_base"]) == 100 and len(TASKS) == 3
    assert list(grid["lengths"]) == [250, 500, 1000, 2000, 3000]
    assert set(grid["paddings"]) == {"duplicate", "similar", "different"}
    assert set(grid["positions"]) == {"first", "middle", "last", "random"}


@pytest.mark.parametrize(
    ("mart", "n", "group", "pools"),
    [
        ("flenqa_figure1", 600, None, {None: [("similar", "random"), ("different", "random")]}),
        ("flenqa_figure3", 300, None, {None: [("duplicate", "first")]}),
        (
            "flenqa_figure4",
            600,
            "position",
            {q: [("similar", q), ("different", q)] for q in ("first", "middle", "last")},
        ),
        ("flenqa_figure5", 300, "padding", {p: [(p, "random")] for p in ("similar", "different")}),
    ],
)
def test_each_figure_pools_what_the_study_pooled(built, mart, n, group, pools):
    rows = _dicts(built["con"], f"SELECT * FROM marts.{mart}")
    lengths = paper_grid()["lengths"]
    assert len(rows) == len(MODELS) * len(SETTINGS) * len(lengths) * len(pools)
    assert {r["n"] for r in rows} == {n}, f"{mart}: every point pools {n} answers at the paper profile"
    assert {r["n_tasks"] for r in rows} == {3}
    assert {r["length"] for r in rows} == set(lengths)  # the minimal text is no point of a figure
    for r in rows:
        key = r[group] if group else None
        assert r["accuracy"] == _expected(pools[key]), (mart, r)
        assert r["ci_low"] < r["accuracy"] < r["ci_high"] or r["accuracy"] == 1.0


def test_figure_6_pools_300_per_point_on_one_configuration(built):
    """Figure 6: "each point reflects the performance across 300 samples" (3 tasks x 100): under the
    paper profile's grid, next word and reasoning are read on the different padding, random dispersion
    only, not on all 12 cells (3,600 per point)."""
    rows = _dicts(built["con"], "SELECT * FROM marts.flenqa_next_word")
    lengths = paper_grid()["lengths"]
    assert len(rows) == len(MODELS) * len(lengths)
    assert {(r["n_next_word"], r["n_reasoning"]) for r in rows} == {(300, 300)}
    share = _expected([("different", "random")])
    assert {(r["next_word_accuracy"], r["reasoning_accuracy"]) for r in rows} == {(share, share)}


def test_the_dependence_tests_agree_with_scipy(built):
    stats = pytest.importorskip("scipy.stats")
    rows = _dicts(built["con"], "SELECT * FROM marts.flenqa_cot_dependence")
    lengths = [0, *paper_grid()["lengths"]]
    assert len(rows) == len(MODELS) * len(lengths) * 2
    cot = [a for a in built["answers"] if a["setting"] == "cot"]
    for r in rows:
        pool = [a for a in cot if a["model"] == r["model"] and a["length"] == r["length"]]
        if r["factor"] == "answer_first":
            exposed = [a["answer_first"] for a in pool]
        else:
            exposed = [a["keys_covered"] < 2 for a in pool]
        wrong = [not a["correct"] for a in pool]
        pairs = list(zip(exposed, wrong, strict=True))
        table = [
            [sum(e and w for e, w in pairs), sum(e and not w for e, w in pairs)],
            [sum(w and not e for e, w in pairs), sum(not e and not w for e, w in pairs)],
        ]
        assert (r["n"], r["n_exposed"], r["n_exposed_wrong"]) == (len(pool), sum(exposed), table[0][0])
        assert r["test"] == "fisher_exact"
        assert r["p_value"] == pytest.approx(stats.fisher_exact(table)[1], rel=1e-6, abs=1e-12)
    # The scripted answers make both factors matter: the tests must find it at the paper's size.
    assert max(r["p_value"] for r in rows if r["length"] > 0) < 1e-6
