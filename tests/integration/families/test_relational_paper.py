"""The relational ``paper`` profile through the real pipeline with a scripted model and both DLM recipes.

The model is scripted (``scripted/cutter``, named as such: a stand-in whose answers the test knows).
It answers every prompt with its gold answer except where it plays the failures the study's N/A is
about, and where it makes chain of thought worse:

- truth-value prompts of HasFather (IID): every answer cut at ``max_tokens`` (half the gold list,
  ``finish_reason`` length): the cell is N/A, not 0;
- IsGrandparent (OOD, tv): every prompt over the context window (LiteLLM's ContextWindowExceededError):
  N/A as well, although no answer was ever written;
- HasSister (IID, tv): one answer in ten cut off; IsUncle (IID, tv): one prompt in ten over the context:
  each cell has a number, and an incomplete share of 0.1;
- 1-Outdegree chain-of-thought prompts: the first five samples of each split answered "I cannot tell":
  RQ3's difference there is −0.5 with an interval.

The profile extends ``paper`` (ten few-shot samples, ten IID and ten OOD tests per task, nl / nl_cot / tv)
and keeps its two DLM recipes, trained on one task and seed for one epoch each so the run stays small.
"""

from __future__ import annotations

import litellm
import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import get_family
from tests.fakes.scripted_provider import register_scripted_provider, set_responder
from tests.pipeline_home import build_only_the_runs_marts, isolated_home, rows, scripted_models_yaml
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

MODEL = "cutter"
PROFILE = "relational-paper-mini"
RELATIONAL = {
    "dlm_tasks": ["HasFather"],
    "dlm_seeds": [0],
    "dlm_overrides": {"max_epochs": 1},
    "dlm_recipe_overrides": {"study-protocol": {"max_epochs": 1}},
}
CUT = {("HasFather", "iid", "tv"): "all", ("HasSister", "iid", "tv"): "one"}
OVERFLOW = {("IsGrandparent", "ood", "tv"): "all", ("IsUncle", "iid", "tv"): "one"}
WORSE_COT = "1-Outdegree"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("relational_paper")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, scripted_models_yaml(MODEL))
    build_only_the_runs_marts(mp)  # its tests read the relational marts and their report section
    use_profiles(mp, root / "profiles.yaml", {PROFILE: {"extends": "paper", "relational": RELATIONAL}})
    family = get_family("relational")
    profile = profiles.get_profile(PROFILE, "relational")
    samples = {s.sample_id: s for s in family.generate(profile, profiles.DEFAULT_SEED)}
    script = {}
    for p in family.build_prompts(list(samples.values()), profile):
        sample = samples[p.sample_id]
        script[p.messages[-1]["content"]] = (sample, p.setting, family.render_gold(sample, p.setting))

    def answer(messages, params):
        sample, setting, gold = script[messages[-1]["content"]]
        key = (sample.task, sample.split, setting)
        index = int(sample.input["index"])
        if OVERFLOW.get(key) == "all" or (OVERFLOW.get(key) == "one" and index == 0):
            raise litellm.ContextWindowExceededError(
                "scripted: the prompt is longer than the context window", model=MODEL, llm_provider="scripted"
            )
        if CUT.get(key) == "all" or (CUT.get(key) == "one" and index == 0):
            return {"content": gold[: len(gold) // 2], "finish_reason": "length"}
        if sample.task == WORSE_COT and setting == "nl_cot" and index < 5:
            return "I cannot tell."
        return gold

    register_scripted_provider()
    set_responder(MODEL, answer)
    from relreason_dagster.pipeline import run_models

    report = run_models([MODEL, "dlm"], profile=PROFILE, benchmarks=["relational"])
    assert report.failures == []
    yield root
    set_responder(MODEL, None)
    mp.undo()


def _cell(task: str, split: str, setting: str) -> dict:
    names = "n, na_cell, f1, ci_low, f1_all_answers, f1_complete_answers, incomplete_share, n_max_tokens, "
    names += "n_context_overflow"
    (values,) = rows(
        f"SELECT {names} FROM marts.relational_f1 WHERE model = '{MODEL}' AND task = '{task}' "
        f"AND split = '{split}' AND setting = '{setting}'"
    )
    return dict(zip([n.strip() for n in names.split(",")], values, strict=True))


def test_every_answer_cut_off_is_na_not_zero(home):
    cut = _cell("HasFather", "iid", "tv")
    assert (cut["n"], cut["n_max_tokens"], cut["incomplete_share"]) == (10, 10, 1.0)
    assert cut["na_cell"] is True and cut["f1"] is None and cut["ci_low"] is None
    assert cut["f1_complete_answers"] is None and cut["f1_all_answers"] is not None  # named apart
    overflow = _cell("IsGrandparent", "ood", "tv")
    assert (overflow["n"], overflow["n_context_overflow"], overflow["incomplete_share"]) == (10, 10, 1.0)
    assert overflow["na_cell"] is True and overflow["f1"] is None


def test_one_incomplete_answer_in_ten_gets_a_number(home):
    for task, reason in (("HasSister", "n_max_tokens"), ("IsUncle", "n_context_overflow")):
        cell = _cell(task, "iid", "tv")
        assert (cell["n"], cell[reason], cell["incomplete_share"]) == (10, 1, 0.1), task
        assert cell["na_cell"] is False and cell["f1"] is not None, task
        assert cell["f1_complete_answers"] == 1.0, task  # the nine complete answers are the gold ones
        assert cell["f1"] == cell["f1_all_answers"] < 1.0, task
    # An untouched cell: complete, so both F1s agree.
    clean = _cell("HasSister", "iid", "nl")
    assert (clean["incomplete_share"], clean["f1"], clean["f1_complete_answers"]) == (0.0, 1.0, 1.0)


def test_the_rq_marts_hold_rows_with_intervals(home):
    rq1 = rows(
        f"SELECT count(*), count(DISTINCT task), min(n_tasks), max(rank_corr IS NOT NULL::int) "
        f"FROM marts.relational_rq1 WHERE model = '{MODEL}' AND setting = 'nl_cot' AND split = 'iid'"
    )
    assert rq1 == [(9, 9, 9, 1)]  # nine tasks, every one with F1, so one rank correlation
    (rq3,) = rows(
        f"SELECT n_pairs, diff, ci_low, ci_high FROM marts.relational_rq3 WHERE model = '{MODEL}' "
        f"AND task = '{WORSE_COT}' AND split = 'iid'"
    )
    assert rq3[0] == 10 and rq3[1] == -0.5 and rq3[2] < -0.5 < rq3[3] <= 0.0
    (rq2_na,) = rows(
        f"SELECT na_a, na_b, diff, ci_low FROM marts.relational_rq2 WHERE model = '{MODEL}' "
        "AND task = 'HasFather' AND split = 'iid'"
    )
    assert rq2_na == (True, False, None, None)  # tv is N/A: no difference, as the study leaves it out
    (rq2,) = rows(
        f"SELECT n_pairs, diff, ci_low, ci_high FROM marts.relational_rq2 WHERE model = '{MODEL}' "
        "AND task = 'HasSister' AND split = 'iid'"
    )
    assert rq2[0] == 10 and rq2[1] < 0 and rq2[2] <= rq2[1] <= rq2[3]
    counts = rows(
        "SELECT (SELECT count(*) FROM marts.relational_rq2), (SELECT count(*) FROM marts.relational_rq3)"
    )
    assert counts == [(18, 18)]  # nine tasks x two splits, one model each


def test_dlm_vs_llm_names_both_recipes(home):
    dlm = rows(
        "SELECT setting, recipe, n_seeds, f1_n10 IS NOT NULL FROM marts.dlm_vs_llm "
        "WHERE model = 'dlm' ORDER BY setting"
    )
    assert dlm == [("dlm", "authors-layer", 1, True), ("dlm_study_protocol", "study-protocol", 1, True)]
    runs = rows("SELECT recipe, total_epochs FROM raw.dlm_runs ORDER BY recipe")
    assert runs == [("authors-layer", 1), ("study-protocol", 1)]


def test_the_report_shows_na_recipes_temperature_and_the_rqs(home, tmp_path):
    import duckdb

    from relreason_dagster.results.report import build_report

    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        page = build_report(con, tmp_path / "report").path.read_text()
    finally:
        con.close()
    f1 = page[page.index('id="table-relational_f1"') :]
    row = f1[f1.index('<td class="key">HasFather</td><td class="key">iid</td><td class="key">tv</td>') :]
    assert row[: row.index("</tr>")].count(">N/A</td>") == 1  # the cut-off cell reads N/A, not 0.000
    assert "incomplete 10%" in f1 and "temperature 0" in f1
    table1 = page[page.index('id="table-dlm"') :]
    assert "default: authors-layer" in table1 and "the study&#x27;s protocol: study-protocol" in table1
    assert "temperature 0" in table1
    for key in ("relational_rq1", "relational_rq2", "relational_rq3"):
        assert f'id="table-{key}"' in page, key
    rq3 = page[page.index('id="table-relational_rq3"') :]
    assert '-50.0 <span class="ci">[-80.0, -20.0]' in rq3  # 1-Outdegree, both splits
