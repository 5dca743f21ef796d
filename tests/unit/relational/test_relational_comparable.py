"""Like with like in ``marts.relational_vs_study`` (issue 45, acceptance 5 for the relational family):
after a paper-profile run of a scripted model, every row marked comparable is on the study's items and
pool, and the others say why not; the report greys them.

A small DuckDB holds what a run stores: the relational family's own samples and prompts at the ``paper``
and ``smoke`` profiles (its real ``generate`` / ``build_prompts``), a scripted model's answers to each
(a fixed reply per prompt: the gold answer for even sample indexes, "None." otherwise, read by the
family's real parser), three DLM trainings (the study's protocol uncapped, the same capped at 10 epochs,
the default recipe; ``raw.dlm_runs`` rows and their scored predictions) and the study's published rows
(``published.csv``, plus one made-up cell marked not comparable).  The real dbt project builds the marts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import family_published, get_family
from relreason_dagster.benchmarks.relational.generate import decode_gold
from relreason_dagster.benchmarks.relational.tasks import task_spec
from relreason_dagster.storage.schema import ensure_schema
from relreason_dagster.storage.study_reference import read_published
from tests.dbt_home import dbt_build, dicts, insert

PAPER_MODEL = "scripted-paper"
SMOKE_MODEL = "scripted-smoke"
MADE_UP = "Paper LLM (made up)"
MADE_UP_WHY = "made up for this test: the cell's pool is not the study's"
SEED = 0


def _reply(family: Any, sample: Any, setting: str) -> str:
    """The scripted model: right on even sample indexes, an empty answer on odd ones."""
    if int(sample.input.get("index", 0)) % 2 == 0:
        return family.render_gold(sample, setting)
    return "None." if setting != "tv" else "no matrix"


def _answers(family: Any, model: str, samples: dict[str, Any], prompts: list[Any]) -> list[dict]:
    rows = []
    for p in prompts:
        sample = samples[p.sample_id]
        parsed = family.parse(sample, p.setting, _reply(family, sample, p.setting))
        keys = {"prompt_id": p.prompt_id, "model": model, "sample_id": p.sample_id, "benchmark": "relational"}
        rows.append(parsed.row({**keys, "task": p.task, "split": p.split, "setting": p.setting}))
    return rows


def _dlm(family: Any, samples: list[Any], task: str, recipe: str, setting: str, max_epochs: int) -> tuple:
    """One trained DLM (seed 0) as stored: its raw.dlm_runs row and its answers (the gold cells)."""
    train = [s for s in samples if s.task == task and s.split == "fewshot"][:10]
    run_id = f"run-{task}-{recipe}"
    run = {
        "run_id": run_id,
        "task": task,
        "seed": 0,
        "recipe": recipe,
        "config": json.dumps({"max_epochs": max_epochs}),
        "train_size": len(train),
        "train_sample_ids": json.dumps([s.sample_id for s in train]),
        "n_params": 11_282,
    }
    answers = []
    for s in samples:
        if s.task == task and s.split in ("iid", "ood"):
            detail = {"seed": 0, "run_id": run_id}
            cells = decode_gold(s.gold, task_spec(task).arity)  # the DLM predicts the gold cells
            parsed = family.score_prediction(s, cells, detail)
            keys = {"prompt_id": f"dlm-{run_id}-{s.sample_id}", "model": "dlm", "sample_id": s.sample_id}
            answers.append(
                parsed.row(
                    {**keys, "benchmark": "relational", "task": task, "split": s.split, "setting": setting}
                )
            )
    return run, answers


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("relational_comparable")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    family = get_family("relational")
    paper = profiles.get_profile("paper", "relational")
    smoke = profiles.get_profile("smoke", "relational")
    paper_samples = family.generate(paper, SEED)
    smoke_samples = family.generate(smoke, SEED)
    paper_prompts = family.build_prompts(paper_samples, paper)
    smoke_prompts = family.build_prompts(smoke_samples, smoke)
    samples = {s.sample_id: s for s in [*paper_samples, *smoke_samples]}
    db = root / "comparable.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        insert(con, "samples", [s.row() for s in samples.values()])
        prompts = {p.prompt_id: p for p in [*paper_prompts, *smoke_prompts]}
        insert(con, "prompts", [{**p.row(), "kind": "test"} for p in prompts.values()])
        insert(con, "parsed_answers", _answers(family, PAPER_MODEL, samples, paper_prompts))
        insert(con, "parsed_answers", _answers(family, SMOKE_MODEL, samples, smoke_prompts))
        for task, recipe, setting, epochs in (
            ("HasFather", "study-protocol", "dlm_study_protocol", 500),
            ("1-Outdegree", "study-protocol", "dlm_study_protocol", 10),
            ("HasFather", "authors-layer", "dlm", 100),
        ):
            run, answers = _dlm(family, paper_samples, task, recipe, setting, epochs)
            insert(con, "dlm_runs", [run])
            insert(con, "parsed_answers", answers)
        published = read_published("relational", family_published("relational"))
        made_up = {
            **published[0],
            "source": "Table 2",
            "model": MADE_UP,
            "task": "IsGrandparent",
            "setting": "tv",
            "split": "iid",
            "n": 10,
            "value": 0.5,
            "note": None,
            "comparable": False,
            "why_not": MADE_UP_WHY,
            "line": 10_000,
        }
        insert(con, "study_reference", [*published, made_up])
    finally:
        con.close()
    dbt_build(db, root, select="+relational_vs_study")
    read = duckdb.connect(str(db), read_only=True)
    yield read, paper_samples, paper_prompts, root
    read.close()
    mp.undo()


def test_every_row_carries_comparable_and_a_reason_when_not(built):
    con, *_ = built
    columns = [r[0] for r in con.execute("DESCRIBE marts.relational_vs_study").fetchall()]
    assert columns[columns.index("note") + 1 :] == ["comparable", "why_not"]
    bad = con.execute(
        "SELECT count(*) FROM marts.relational_vs_study WHERE comparable IS NULL "
        "OR (comparable AND why_not IS NOT NULL) OR (NOT comparable AND why_not IS NULL)"
    ).fetchone()
    assert bad == (0,)


def test_each_comparable_row_is_on_the_study_s_items_and_pool(built):
    """Checked from the stored rows, not from the mart's own reasoning: the row's answers are one per
    test sample of the paper profile's draw (10 per task and split, per DLM seed), at the study's size,
    each asked with the study's count of few-shot examples, beside a comparable published cell."""
    con, paper_samples, paper_prompts, _ = built
    protocol = {
        r["setting"]: r
        for r in _csv(paths.REPO_ROOT / "relreason_dagster/benchmarks/relational/protocol.csv")
    }
    rows = dicts(con, "SELECT * FROM marts.relational_vs_study WHERE NOT published AND comparable")
    assert {(r["model"], r["setting"]) for r in rows} == {
        (PAPER_MODEL, "nl"),
        (PAPER_MODEL, "nl_cot"),
        (PAPER_MODEL, "tv"),
        ("dlm", "dlm_study_protocol"),
    }
    examples = {p.prompt_id: p.messages[0]["content"].count("\n\nQuestion: ") for p in paper_prompts}
    for r in rows:
        keys = (r["model"], r["task"], r["split"], r["setting"])
        answers = con.execute(
            "SELECT prompt_id, sample_id FROM raw.parsed_answers WHERE model = ? AND task = ? AND split = ? "
            "AND setting = ?",
            list(keys),
        ).fetchall()
        study = protocol["dlm" if r["setting"].startswith("dlm") else r["setting"]]
        drawn = {s.sample_id for s in paper_samples if (s.task, s.split) == (r["task"], r["split"])}
        assert {sid for _, sid in answers} == drawn and len(drawn) == int(study["test_samples"]), keys
        assert r["n"] == len(answers) == len(drawn), keys  # one answer per item: nothing pooled twice
        assert {s.n for s in paper_samples if s.sample_id in drawn} == {r["nodes"]}, keys
        if not r["setting"].startswith("dlm"):
            assert {examples[p] for p, _ in answers} == {int(study["examples"])}, keys
        theirs = con.execute(
            "SELECT nodes, comparable FROM marts.relational_vs_study "
            "WHERE published AND task = ? AND split = ? AND setting = ?",
            [r["task"], r["split"], r["setting"]],
        ).fetchall()
        assert theirs and all(nodes == r["nodes"] and ok for nodes, ok in theirs), keys


def test_the_others_say_why_not(built):
    con, *_ = built
    why = dict(
        con.execute(
            "SELECT concat_ws(' ', model, task, split, setting), why_not "
            "FROM marts.relational_vs_study WHERE NOT published AND NOT comparable"
        ).fetchall()
    )
    smoke = why[f"{SMOKE_MODEL} HasFather iid nl"]
    assert "1 test samples where the study scores 10" in smoke
    assert "1 few-shot examples per prompt where the study gives 10" in smoke
    assert "1 test samples" in why[f"{SMOKE_MODEL} HasFather iid nl_cot"]
    assert "few-shot" not in why[f"{SMOKE_MODEL} HasFather iid nl_cot"]  # CoT: one example, as the study
    assert why[f"{PAPER_MODEL} IsGrandparent iid tv"] == f"the study's cell: {MADE_UP_WHY}"
    assert (
        why["dlm 1-Outdegree iid dlm_study_protocol"] == "the study's protocol capped at 10 of its 500 epochs"
    )
    assert why["dlm HasFather ood dlm"].startswith("DLM recipe authors-layer, not the study's protocol")
    # The study's DLM column stands beside the protocol recipe too, and the default recipe's rows.
    dlm = con.execute(
        "SELECT DISTINCT setting FROM marts.relational_vs_study WHERE published AND model = 'DLM'"
    ).fetchall()
    assert sorted(dlm) == [("dlm",), ("dlm_study_protocol",)]


def test_the_report_greys_what_is_not_comparable(built):
    from relreason_dagster.results.report import build_report

    con, *_, root = built
    page = build_report(con, root / "report").path.read_text()
    table = page[page.index('id="table-relational_vs_study"') :]
    table = table[: table.index('<div class="table', 10)] if '<div class="table' in table[10:] else table
    assert '<td class="published nc" title="not comparable: made up for this test' in table
    assert "made up for this test: the cell&#x27;s pool is not the study&#x27;s</li>" in table
    assert "1 test samples where the study scores 10" in table
    assert 'class="nc"' in table and "&dagger;" in table


def _csv(path: Path) -> list[dict[str, str]]:
    import csv

    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))
