"""Self-Contra like with like (issue 45, acceptances 1, 2 and 5): after a ``paper``-profile pass of a
scripted model on a small hand-made DuckDB (the real family's samples, prompts and parser, a scripted
judge through the real detection step, the study's released annotations and our own labels through the
real importer and export, the real dbt project), every row of ``marts.selfcontra_vs_study`` marked
comparable is on the study's items and pool, the anti-only tables read anti items only, Table 6 reads
Few-shot (A) only, and Table 8's Average stands beside its published cells.

The scripted model ("scripted") answers every anti-stereotype WinoBias item right and every
pro-stereotype one wrong (so a pooled rate would show 0.5); WinoGender and WinoGrande right.  A second
scripted model ("scripted-first") answers the first WinoGrande dev items (``items: first``).  The judge
("scripted-judge") flags every response.  Needs the reference folder; skips without it.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import Profile, Reply, Sample
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.benchmarks.selfcontra import commands, study_items
from relreason_dagster.benchmarks.selfcontra.annotation_store import store_import
from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_csv
from relreason_dagster.benchmarks.selfcontra.family import item_of
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs
from relreason_dagster.benchmarks.selfcontra.steps import Detection
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from relreason_dagster.storage.schema import ensure_schema
from relreason_dagster.storage.study_reference import read_published, store_family
from tests.dbt_home import dbt_build, dicts, insert

FAMILY_DIR = Path(__file__).resolve().parents[3] / "relreason_dagster" / "benchmarks" / "selfcontra"
JUDGE = "scripted-judge"
SECTION3 = [("1", "0"), ("1", "1"), ("0", "1"), ("0", "0"), ("1", "0"), ("0", "1")]


def _profile(**params: Any) -> Profile:
    base = dict(profiles.get_profile("paper", "selfcontra").params)
    base.update(detect_methods=["binary"], annotation_limit=50, **params)
    return Profile(name="test", params=base, knobs=Knobs)


def _reply(sample: Sample, setting: str, right: bool) -> str:
    family = get_family("selfcontra")
    if right:
        return family.render_gold(sample, setting)
    item = item_of(sample)
    wrong = item.candidates[1 - item.gold]
    return (
        f"Answer: {wrong}\nReasoning: The sentence says so."
        if setting.endswith("answer")
        else (f"Reasoning: The sentence says so.\nAnswer: {wrong}")
    )


def _answer(con: duckdb.DuckDBPyConnection, model: str, profile: Profile, right: Any) -> list[Sample]:
    """The family's samples and prompts under ``profile``, answered by a scripted model and parsed."""
    family = get_family("selfcontra")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    built = family.build_prompts(samples, profile)
    known = {r[0] for r in con.execute("SELECT sample_id FROM raw.samples").fetchall()}
    insert(con, "samples", [s.row() for s in samples if s.sample_id not in known])
    insert(con, "prompts", [p.row() for p in built])
    # The prompts this model is asked (wording: study words a study model's prompts its own way).
    rows = family.prompts_for_model(profile, {"name": model}, [p.row() for p in built])
    asked = {r["prompt_id"] for r in rows}
    now = dt.datetime(2026, 1, 1)
    responses, answers = [], []
    for p in (p for p in built if p.prompt_id in asked):
        sample = by_id[p.sample_id]
        text = _reply(sample, p.setting, right(sample))
        responses.append(
            (
                p.prompt_id,
                model,
                "selfcontra",
                f"h-{p.prompt_id}",
                "scripted",
                text,
                "stop",
                1,
                1,
                0.1,
                1,
                None,
                False,
                now,
            )
        )
        keys = {
            "prompt_id": p.prompt_id,
            "model": model,
            "sample_id": p.sample_id,
            "benchmark": "selfcontra",
            "task": p.task,
            "split": p.split,
            "setting": p.setting,
        }
        answers.append(family.parse(sample, p.setting, text).row(keys))
    ResponseStore(Lake.default()).append(responses)
    insert(con, "parsed_answers", answers)
    return samples


def _judge(con: duckdb.DuckDBPyConnection, profile: Profile) -> None:
    """The real detection step, its prompts answered by a scripted judge that flags everything."""
    step = Detection()
    stored = {}
    for name, (sql, params) in step.reads(JUDGE, profile).items():
        cursor = con.execute(sql, params)
        names = [d[0] for d in cursor.description]
        stored[name] = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    asked = step.prompts(stored, profile, JUDGE, {})
    out = step.rows(stored, profile, JUDGE, {p.prompt_id: Reply("1") for p in asked})
    insert(con, "detections", out.rows)


class _Context:
    """What export-annotations needs of the CLI: a read of the results."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con

    def query(self, sql: str, params: list[Any]) -> tuple[list[str], list[tuple]]:
        cursor = self.con.execute(sql, params)
        return [d[0] for d in cursor.description], cursor.fetchall()


def _label_our_responses(con: duckdb.DuckDBPyConnection, root: Path) -> Path:
    """export-annotations, filled in by a person who marks the parser's verdict and no Self-Contra."""
    out = root / "scripted_labels.csv"
    args = argparse.Namespace(out=str(out), model="scripted")
    assert commands.export_annotations(args, _Context(con)) == 0  # type: ignore[arg-type]
    with out.open(encoding="utf-8-sig", newline="") as handle:
        rows = list(csv.DictReader(handle))
    correct = dict(
        con.execute("SELECT prompt_id, correct FROM raw.parsed_answers WHERE model = 'scripted'").fetchall()
    )
    for row in rows:
        row["accuracy"], row["self-contra"] = str(int(bool(correct[row["response_id"]]))), "0"
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    wino = paths.reference_dir() / "wino"
    if not (wino / "selfcontra_annotations").is_dir():
        pytest.skip(f"reference data not found at {wino} (set RELREASON_REFERENCE_DIR)")
    root = tmp_path_factory.mktemp("selfcontra_vs_study")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    db = root / "selfcontra.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        # Two of the four settings keep the test small: Few-shot (A) (Tables 2 and 6) and (R) (Table 8).
        paper = _profile(settings=["few_answer", "few_reason"])
        samples = _answer(con, "scripted", paper, lambda s: s.variant.get("stereotype") != "pro")
        first = _profile(sources={"winogrande": 3}, items="first", settings=["few_answer"])
        _answer(con, "scripted-first", first, lambda s: True)
        # The study's released section-2 files (first 50 annotated rows each, as Table 2 counts them) and a
        # section-3 file in the release's shape, then our own responses labelled through the export.
        for path in sorted((wino / "selfcontra_annotations").glob("*.csv")):
            store_import(con, read_annotation_csv(path, limit=50))
        section3 = root / "winobias_anti_test_handmade.csv"
        with section3.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["prompt", "result", "acc", "self-contra"])
            writer.writerows(
                [f"Question: s3 {i}?", f"Answer: b{i}", *cells] for i, cells in enumerate(SECTION3)
            )
        store_import(con, read_annotation_csv(section3))
        store_import(con, read_annotation_csv(_label_our_responses(con, root)))
        _judge(con, paper)
        store_family(con, "selfcontra", read_published("selfcontra", FAMILY_DIR / "published.csv"))
    finally:
        con.close()
    marts = "selfcontra_vs_study selfcontra_judged selfcontra_scr"
    marts += " selfcontra_detection_f1 selfcontra_category_detection"
    dbt_build(db, root, select=" ".join(f"+{m}" for m in marts.split()))
    read = duckdb.connect(str(db), read_only=True)
    yield {"con": read, "samples": samples, "wino": wino}
    read.close()
    mp.undo()


def _study_items(built: dict[str, Any], dataset: str, split: str | None) -> list[str]:
    """The item ids the study asked for one dataset (and WinoBias split), its count per point."""
    if dataset == "winobias":
        stereotype = split.split("_")[0]
        return [f"{stereotype}_test:{x.line}" for x in study_items.study_winobias_lines()[:50]]
    if dataset == "winogrande":
        lines = (built["wino"] / "winogrande" / "train_xs.jsonl").read_text(encoding="utf-8").splitlines()
        return [json.loads(line)["qID"] for line in lines[:50]]
    return [item_of(s).item_id for s in built["samples"] if s.task == dataset]


def _asked(con: duckdb.DuckDBPyConnection, model: str, dataset: str, setting: str, split: str | None) -> list:
    rows = con.execute(
        "SELECT s.input FROM raw.parsed_answers a JOIN raw.samples s USING (sample_id) "
        "WHERE a.model = ? AND a.task = ? AND a.setting = ?",
        [model, dataset, setting],
    ).fetchall()
    items = [json.loads(r[0]) for r in rows]
    return sorted(
        i["item_id"] for i in items if split is None or i["item_id"].startswith(split.split("_")[0] + "_")
    )


def test_every_row_says_whether_it_is_comparable(built):
    rows = dicts(built["con"], "SELECT * FROM marts.selfcontra_vs_study")
    assert rows and all(r["comparable"] is not None for r in rows)
    assert all((r["why_not"] is None) == r["comparable"] for r in rows)
    columns = list(rows[0])
    assert columns[columns.index("note") + 1 : columns.index("note") + 3] == ["comparable", "why_not"]


def test_each_comparable_row_of_ours_is_on_the_study_s_items_and_pool(built):
    con = built["con"]
    rows = dicts(
        con,
        "SELECT * FROM marts.selfcontra_vs_study WHERE NOT published AND comparable AND dataset <> 'all' "
        "AND metric <> 'f1'",
    )
    ours = [r for r in rows if r["model"] == "scripted"]
    assert {(r["dataset"], r["split"]) for r in ours} == {
        ("winobias", "anti_test"),
        ("winogender", None),
        ("winogrande", None),
    }
    for r in ours:
        published = con.execute(
            "SELECT n FROM marts.selfcontra_vs_study WHERE published AND dataset = ? AND setting = ? "
            "AND split IS NOT DISTINCT FROM ? AND metric = ?",
            [r["dataset"], r["setting"], r["split"], r["metric"]],
        ).fetchall()
        assert published and {n for (n,) in published} == {r["n"]}  # the study's count per point
        assert _asked(con, "scripted", r["dataset"], r["setting"], r["split"]) == sorted(
            _study_items(built, r["dataset"], r["split"])
        )
    # The study's own files, imported with its count (their first 50 rows), are on its items too.
    imported = [r for r in rows if r["model"] != "scripted"]
    assert imported and all(r["method"] == "human" and r["n"] == 50 for r in imported)
    # Judge-labelled rates are never the tables' human-labelled ones; the first dev items are not the study's.
    judged_scr = dicts(
        con, "SELECT * FROM marts.selfcontra_vs_study WHERE method = 'binary' AND metric = 'scr'"
    )
    assert judged_scr and not any(r["comparable"] for r in judged_scr)
    (dev,) = dicts(
        con, "SELECT * FROM marts.selfcontra_vs_study WHERE model = 'scripted-first' AND metric = 'accuracy'"
    )
    assert not dev["comparable"] and "items: first" in dev["why_not"]


def test_the_anti_only_tables_read_anti_items_only(built):
    con = built["con"]
    rows = dicts(
        con,
        "SELECT * FROM marts.selfcontra_vs_study WHERE model = 'scripted' AND dataset = 'winobias' "
        "AND metric = 'accuracy' AND setting = 'few_answer'",
    )
    by = {(r["method"], r["split"]): r for r in rows}
    # Anti right, pro wrong: pooled they would read 0.5.
    assert by[("binary", "anti_test")]["value"] == 1.0 and by[("binary", "anti_test")]["n"] == 50
    assert by[("human", "anti_test")]["value"] == 1.0 and by[("human", "anti_test")]["comparable"]
    pro = by[("binary", "pro_test")]
    assert pro["value"] == 0.0 and not pro["comparable"] and "anti-stereotype" in pro["why_not"]
    published = dicts(
        con,
        "SELECT DISTINCT split FROM marts.selfcontra_vs_study WHERE published AND dataset = 'winobias' "
        "AND source IN ('Table 2', 'Table 8')",
    )
    assert published == [{"split": "anti_test"}]
    # The split is in every Self-Contra mart our responses reach, and in the export.
    for mart in ("selfcontra_judged", "selfcontra_scr"):
        splits = con.execute(
            f"SELECT DISTINCT split FROM marts.{mart} WHERE model = 'scripted' AND dataset = 'winobias'"
        ).fetchall()
        assert sorted(s for (s,) in splits) == ["anti_test", "pro_test"], mart


def test_table_6_reads_few_shot_answer_first_only(built):
    con = built["con"]
    for mart in ("selfcontra_detection_f1", "selfcontra_category_detection"):
        assert "setting" in [d[0] for d in con.execute(f"SELECT * FROM marts.{mart} LIMIT 0").description]
    # detect_settings (paper: few_answer) kept the judge to Few-shot (A) annotations.
    assert con.execute("SELECT DISTINCT setting FROM marts.selfcontra_detection_f1").fetchall() == [
        ("few_answer",)
    ]
    f1 = dicts(con, "SELECT * FROM marts.selfcontra_vs_study WHERE metric = 'f1' AND NOT published")
    assert f1 and {r["setting"] for r in f1} == {"few_answer"}
    (section3,) = [r for r in f1 if r["model"] == "handmade"]
    assert section3["split"] == "anti_test" and section3["comparable"] and section3["n"] == len(SECTION3)
    ours = [r for r in f1 if r["model"] == "scripted"]
    assert {r["split"] for r in ours} == {"anti_test", "pro_test", None}
    assert all(not r["comparable"] and "our own" in r["why_not"] for r in ours)
    section2 = [r for r in f1 if r["split"] is None and r["model"] != "scripted"]
    assert section2 and all(not r["comparable"] and "section-2" in r["why_not"] for r in section2)


def test_table_8_average_stands_beside_its_published_cells(built):
    con = built["con"]
    rows = dicts(
        con,
        "SELECT * FROM marts.selfcontra_vs_study WHERE dataset = 'all' AND setting = 'few_reason' "
        "AND metric = 'accuracy'",
    )
    published = [r for r in rows if r["published"]]
    assert {r["source"] for r in published} == {"Table 8"} and len(published) == 3
    (ours,) = [r for r in rows if r["model"] == "scripted" and r["method"] == "binary"]
    parts = con.execute(
        "SELECT value FROM marts.selfcontra_vs_study WHERE model = 'scripted' AND method = 'binary' "
        "AND setting = 'few_reason' AND metric = 'accuracy' AND (split = 'anti_test' OR split IS NULL) "
        "AND dataset <> 'all'"
    ).fetchall()
    assert len(parts) == 3 and ours["value"] == pytest.approx(sum(v for (v,) in parts) / 3, abs=1e-4)
    assert ours["comparable"]
