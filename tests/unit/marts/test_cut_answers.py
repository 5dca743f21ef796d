"""Answers cut by the token or thinking budget, counted in ``n_cut`` of every family's accuracy mart
(issue 55, item 3 and acceptance 2).

A scripted model (the ``scripted`` LiteLLM provider, named as such) answers four prompts of each family
through the real gateway, so the replies are stored in the lake exactly as a provider's would be:

  0  the gold answer, finish_reason stop            (right, not cut)
  1  the gold answer, finish_reason length          (right, cut: readable, stopped at max_tokens)
  2  an unclosed ``<think>`` holding the gold answer  (N/A, cut: all thinking, no answer)
  3  an answer no family reads                       (N/A, not cut)

The real parse (``parse_response_row``) scores them and the real dbt project builds the marts.  Each
family's accuracy mart counts 2 in ``n_cut``, and its accuracy is the one worked out here from the parsed
rows alone, without the column: the column adds a count and changes no number.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import duckdb
import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.parsed_answers import parse_response_row
from relreason_dagster.storage.responses import ResponseStore
from relreason_dagster.storage.schema import ensure_schema
from tests.dbt_home import dbt_build, dicts, insert
from tests.fakes.scripted_provider import register_scripted_provider, set_responder

MODEL = "scripted-cut"
SCRIPTED = "cut-replies"
FAMILIES = ("relational", "kor", "flenqa", "selfcontra")
MARTS = (
    "accuracy",
    "parse_rate",
    "sample_results",
    "relational_f1",
    "kor_accuracy",
    "kor_accuracy_by_rule",
    "flenqa_accuracy",
    "flenqa_accuracy_by_length",
    "selfcontra_judged",
)
UNREADABLE = "I would rather not say."


def _usable(family: str, setting: str, task: str) -> bool:
    """A prompt its family's accuracy mart reads (KOR's leaves out mixed, trick and rule-free questions;
    FLenQA's reads direct and cot)."""
    if family == "kor":
        return (
            task not in ("mixed", "cipher_step")
            and setting != "trick"
            and not setting.endswith("_only_questions")
        )
    if family == "flenqa":
        return setting in ("direct", "cot")
    return True


def _reply(i: int, gold: str) -> dict[str, Any]:
    return [
        {"content": gold, "finish_reason": "stop"},
        {"content": gold, "finish_reason": "length"},
        {"content": f"<think>\nLet me work it out.\n{gold}", "finish_reason": "stop"},
        {"content": UNREADABLE, "finish_reason": "stop"},
    ][i]


def _answer(con: duckdb.DuckDBPyConnection, name: str, replies: dict[str, dict[str, Any]]) -> list[dict]:
    """Four prompts of ``name`` answered by the scripted model and parsed; returns the parsed rows."""
    family = get_family(name)
    profile = profiles.get_profile("smoke", name)
    if name == "kor":
        # Two questions a rule: four that its accuracy mart reads with or without the reference folder
        # (without it, smoke's KOR is one generated Logic and one Counterfactual question, and Multi-Q).
        profile = profiles.Profile(
            name=profile.name, params={**profile.params, "questions_per_rule": 2}, knobs=profile.knobs
        )
    samples = {s.sample_id: s for s in family.generate(profile, profiles.DEFAULT_SEED)}
    built = family.build_prompts(list(samples.values()), profile)
    # Four prompts its accuracy mart reads, with texts of their own (the scripted model answers by text).
    distinct = {
        json.dumps(p.messages, sort_keys=True): p for p in reversed(built) if _usable(name, p.setting, p.task)
    }
    picked = sorted(distinct.values(), key=built.index)[:4]
    assert len(picked) == 4, name
    insert(con, "samples", [samples[p.sample_id].row() for p in {p.sample_id: p for p in picked}.values()])
    insert(con, "prompts", [p.row() for p in picked])
    for i, p in enumerate(picked):
        gold = family.render_gold(samples[p.sample_id], p.setting)
        assert family.parse(samples[p.sample_id], p.setting, gold).correct, (name, "gold reads right")
        replies[json.dumps(p.messages, sort_keys=True)] = _reply(i, gold)
    spec = ModelEntry(name=MODEL, litellm_model=f"scripted/{SCRIPTED}", concurrency=2, max_attempts=1)
    stats = run_model(
        ResponseStore(Lake.default()),
        spec,
        [{**p.row(), "benchmark": name, "messages": p.messages} for p in picked],
    )
    assert stats.errors == 0
    stored = {r["prompt_id"]: r for r in dicts(con, "SELECT * FROM raw.responses WHERE model = ?", [MODEL])}
    rows = []
    for p in picked:
        r = {**samples[p.sample_id].row(), **stored[p.prompt_id], "setting": p.setting}
        rows.append(parse_response_row(MODEL, r))
    insert(con, "parsed_answers", rows)
    return rows


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("cut_answers")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    register_scripted_provider()
    replies: dict[str, dict[str, Any]] = {}
    set_responder(SCRIPTED, lambda messages, params: replies[json.dumps(messages, sort_keys=True)])
    db = root / "cut.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        parsed = {name: _answer(con, name, replies) for name in FAMILIES}
        stored = dicts(con, "SELECT prompt_id, content, reasoning, finish_reason FROM raw.responses")
        # A scripted judge's verdicts on the Self-Contra responses, so selfcontra_judged has its rows.
        now = dt.datetime(2026, 1, 1)
        insert(
            con,
            "detections",
            [
                {
                    "detection_id": f"d{i}",
                    "method": "binary",
                    "judge": "scripted-judge",
                    "target_kind": "response",
                    "target_id": r["prompt_id"],
                    "dataset": r["task"],
                    "model": MODEL,
                    "setting": r["setting"],
                    "status": "ok",
                    "self_contra": False,
                    "created_at": now,
                }
                for i, r in enumerate(parsed["selfcontra"])
            ],
        )
    finally:
        con.close()
    set_responder(SCRIPTED, None)
    dbt_build(db, root, select=" ".join(f"+{m}" for m in MARTS))
    read = duckdb.connect(str(db), read_only=True)
    yield {"con": read, "parsed": parsed, "stored": stored}
    read.close()
    mp.undo()


def _expected_correct(built: dict[str, Any], family: str) -> int:
    """Right answers of the family, counted from the parsed rows (what accuracy read before n_cut)."""
    return sum(bool(r["correct"]) for r in built["parsed"][family])


def test_the_script_is_stored_as_a_provider_would_send_it(built):
    by_finish = [(r["finish_reason"], bool(r["content"]), bool(r["reasoning"])) for r in built["stored"]]
    assert by_finish.count(("length", True, False)) == 4  # one per family: readable, cut at max_tokens
    assert by_finish.count(("stop", False, True)) == 4  # the unclosed <think>: all thinking, no answer
    for family in FAMILIES:
        statuses = [r["parse_status"] for r in built["parsed"][family]]
        assert statuses[2] == "na" and statuses[3] != "ok" and statuses[0] == statuses[1] == "ok", family
        assert _expected_correct(built, family) == 2, family  # the gold answers, cut or not


def _family_rows(built: dict[str, Any], sql: str) -> list[dict[str, Any]]:
    rows = dicts(built["con"], sql, [MODEL])
    assert rows
    for r in rows:
        n_right = r.get("n_correct")
        if n_right is not None:
            assert r["accuracy"] == round(n_right / r["n"], 4)
    return rows


@pytest.mark.parametrize("family", FAMILIES)
def test_the_shared_accuracy_mart_counts_both_cut_answers_and_keeps_its_numbers(built, family):
    rows = _family_rows(built, f"SELECT * FROM marts.accuracy WHERE model = ? AND benchmark = '{family}'")
    assert sum(r["n"] for r in rows) == 4
    assert sum(r["n_cut"] for r in rows) == 2
    assert sum(r["n_na"] for r in rows) == 2  # the unclosed <think> and the unreadable answer
    assert sum(r["n_correct"] for r in rows) == _expected_correct(built, family)
    # Each cell's accuracy as it was before n_cut: right answers / answers, from the parsed rows alone.
    cells: dict[tuple[str, str, str], list[bool]] = {}
    for r in built["parsed"][family]:
        cells.setdefault((r["task"], r["split"], r["setting"]), []).append(bool(r["correct"]))
    got = {(r["task"], r["split"], r["setting"]): r["accuracy"] for r in rows}
    assert got == {cell: round(sum(right) / len(right), 4) for cell, right in cells.items()}


def test_relational_f1_counts_the_cut_answers(built):
    rows = _family_rows(built, "SELECT * FROM marts.relational_f1 WHERE model = ?")
    total = {k: sum(r[k] for r in rows) for k in ("n", "n_cut", "n_max_tokens", "n_incomplete")}
    # The one cut at max_tokens is incomplete by the study's rule (n_max_tokens), the unclosed <think>
    # and the unreadable answer have no complete output.
    assert total == {"n": 4, "n_cut": 2, "n_max_tokens": 1, "n_incomplete": 3}
    # Each cell's F1 as before n_cut, from the parsed rows: the per-sample F1 of answer_scores, by hand.
    cells: dict[tuple[str, str, str], list[float]] = {}
    for r in built["parsed"]["relational"]:
        tp, fp, fn = r["tp"] or 0, r["fp"] or 0, r["fn"] or 0
        f1 = 0.0 if r["parse_status"] != "ok" else 1.0 if tp + fp + fn == 0 else 2 * tp / (2 * tp + fp + fn)
        cells.setdefault((r["task"], r["split"], r["setting"]), []).append(f1)
    got = {(r["task"], r["split"], r["setting"]): r["f1_all_answers"] for r in rows}
    assert got == {cell: pytest.approx(round(sum(v) / len(v), 4)) for cell, v in cells.items()}


def test_kor_accuracy_counts_the_cut_answers(built):
    rows = _family_rows(built, "SELECT * FROM marts.kor_accuracy WHERE model = ?")
    overall = [r for r in rows if r["category"] == "overall"]
    total = {k: sum(r[k] for r in overall) for k in ("n", "n_cut", "n_na", "n_correct")}
    assert total == {"n": 4, "n_cut": 2, "n_na": 2, "n_correct": _expected_correct(built, "kor")}


def test_flenqa_accuracy_counts_the_cut_answers(built):
    rows = _family_rows(built, "SELECT * FROM marts.flenqa_accuracy WHERE model = ?")
    assert sum(r["n"] for r in rows) == 4
    assert sum(r["n_cut"] for r in rows) == 2
    assert sum(r["n_correct"] for r in rows) == _expected_correct(built, "flenqa")


def test_selfcontra_judged_counts_the_cut_answers(built):
    rows = _family_rows(
        built, "SELECT *, round(accuracy * n) AS n_correct FROM marts.selfcontra_judged WHERE model = ?"
    )
    total = {k: sum(r[k] for r in rows) for k in ("n", "n_cut", "n_correct")}
    assert total == {"n": 4, "n_cut": 2, "n_correct": _expected_correct(built, "selfcontra")}


def test_parse_rate_and_sample_results_name_the_cut_answers(built):
    rows = dicts(built["con"], "SELECT * FROM marts.parse_rate WHERE model = ?", [MODEL])
    assert sum(r["n_cut"] for r in rows) == 8 and sum(r["n"] for r in rows) == 16
    from relreason_dagster.results.samples import sample_rows

    cut = sample_rows(built["con"], model=MODEL, cut=True)
    assert len(cut) == 8
    assert sorted((r["finish_reason"], r["outcome"]) for r in cut) == sorted(
        [("length", "correct")] * 4 + [("stop", "na")] * 4
    )


def test_the_headline_and_the_report_show_the_cut_share(built):
    from relreason_dagster.results.headline import CUT_SHARE, headline_tables
    from relreason_dagster.results.report import table_html
    from relreason_dagster.results.report_tables import wide_tables

    (table,) = [t for t in headline_tables(built["con"], models=[MODEL]) if t.title == CUT_SHARE.title]
    at = table.columns.index("cut")
    assert {r[0]: r[at] for r in table.rows} == {family: "cut 2/4" for family in FAMILIES}
    (cut,) = [t for t in wide_tables(built["con"]) if t.spec.key == "cut"]
    assert {keys[0]: (cells[MODEL].k, cells[MODEL].n) for keys, cells in cut.rows} == {
        family: (2, 4) for family in FAMILIES
    }
    assert table_html(cut).count('<span class="n">2/4</span>') == 4


@pytest.mark.parametrize("mart", ["kor_accuracy_by_rule", "flenqa_accuracy_by_length"])
def test_the_finer_accuracy_marts_count_them_too(built, mart):
    family = mart.split("_")[0]
    rows = _family_rows(built, f"SELECT * FROM marts.{mart} WHERE model = ?")
    total = {k: sum(r[k] for r in rows) for k in ("n", "n_cut", "n_correct")}
    assert total == {"n": 4, "n_cut": 2, "n_correct": _expected_correct(built, family)}
