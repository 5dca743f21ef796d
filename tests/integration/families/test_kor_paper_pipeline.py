"""KOR-Bench's ``paper`` profile through the real pipeline with scripted models of known kind.

``chatbot`` (scripted, models.yaml kind chat by default) and ``basebot`` (scripted, ``kind: base``)
both answer every prompt with its gold answer.  The profile is ``paper`` cut down to one question of
one rule per category and one Multi-Q record: as in the paper, the chat model is asked zero-shot
only and the base model three-shot only (the prompts exist for both settings), and the chat model
also gets the puzzle question with its trick (App. F.2).  Each model is also asked every question in
its own setting with the rule withheld (§6.4's only questions), where both answer a wrong answer, so
the knowledge-impact mart must show the rule's whole contribution.  The marts of the paper's further
tables hold rows: Table 1 (``kor_dataset_stats``), Table 7 (``kor_token_stats``), the trick comparison
(``kor_trick``), the stepwise cipher sub-steps of §6.1 (``kor_stepwise``) and the only-questions
comparison (``kor_knowledge_impact``).
"""

from __future__ import annotations

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.kor.family import MIXED_TASK, data_dir
from relreason_dagster.benchmarks.kor.stepwise import STEPWISE_TASK
from relreason_dagster.benchmarks.registry import get_family
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import build_only_the_runs_marts, isolated_home, rows
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

PROFILE = "kor-paper-mini"
MODELS_YAML = """\
models:
  - name: chatbot
    litellm_model: scripted/chatbot
    params: {temperature: 0}
  - name: basebot
    litellm_model: scripted/basebot
    params: {temperature: 0}
    kind: base
"""
KOR = {
    "rules": {"operation": ["17"], "logic": ["5"], "cipher": ["23"], "puzzle": ["2"]}
    | {"counterfactual": ["13"]},
    "questions_per_rule": 1,
    "mixed": {"Multi-Q": 1},
    "self_correction_rounds": 1,
    "max_tokens": 96,
}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("relreason_kor_paper")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, MODELS_YAML)
    build_only_the_runs_marts(mp)  # its test reads KOR's marts and their report section
    profile = {"extends": "paper", "relational": None, "flenqa": None, "selfcontra": None, "kor": KOR}
    use_profiles(mp, root / "profiles.yaml", {PROFILE: profile})
    kor = profiles.get_profile(PROFILE, "kor")
    if not data_dir(kor).is_dir():
        mp.undo()
        pytest.skip(f"KOR-Bench reference data not found under {data_dir(kor)}")
    family = get_family("kor")
    samples = family.generate(kor, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    prompts = family.build_prompts(samples, kor)
    gold = {p.messages[0]["content"]: family.render_gold(by_id[p.sample_id], p.setting) for p in prompts}
    for p in prompts:  # without its rule the scripted model gets every question wrong
        if p.setting.endswith("_only_questions"):
            gold[p.messages[0]["content"]] = "Without the rule I can only guess: [[not the answer]]"
    register_scripted_provider()
    for name in ("chatbot", "basebot"):
        set_responder(name, lambda messages, params: gold[messages[0]["content"]])
    singles = [s.input["item"] for s in samples if s.task not in (MIXED_TASK, STEPWISE_TASK)]
    table1 = [
        (
            category,
            len({q["rule_id"] for q in mine}),
            max(len(q["rule"]) for q in mine),
            len(mine),
            round(sum(len(q["question"]) for q in mine) / len(mine), 2),
        )
        for category in sorted({q["category"] for q in singles})
        for mine in [[q for q in singles if q["category"] == category]]
    ]
    yield {
        "table1": table1,
        "settings": {p.setting for p in prompts},
        "n_trick": sum(1 for p in prompts if p.setting == "trick"),
        "n_single": len(singles),
        "n_steps": sum(1 for s in samples if s.task == STEPWISE_TASK),
        "n_mixed": sum(1 for s in samples if s.task == MIXED_TASK),
    }
    mp.undo()


def test_chat_models_zero_shot_and_base_models_three_shot(home, tmp_path):
    from relreason_dagster.pipeline import run_models

    only = {"zero_shot_only_questions", "three_shot_only_questions"}
    assert {"zero_shot", "three_shot", "trick", "Multi-Q"} | only <= home["settings"]
    reset_calls()
    report = run_models(["chatbot", "basebot"], profile=PROFILE, benchmarks=["kor"])
    assert report.failures == []
    n, n_mixed, n_steps = home["n_single"], home["n_mixed"], home["n_steps"]
    assert n_steps == 2  # §6.1: the sub-steps of the first stepwise item of cipher rule 23
    asked = rows(
        "SELECT r.model, p.setting, count(*) FROM raw.responses r JOIN raw.prompts p USING (prompt_id) "
        "WHERE p.kind = 'test' GROUP BY ALL ORDER BY ALL"
    )
    n_trick = home["n_trick"]
    assert n_trick == 1  # the one puzzle question, with its trick (App. F.2): chat models only
    assert asked == [
        ("basebot", "Multi-Q", n_mixed),
        ("basebot", "three_shot", n),
        ("basebot", "three_shot_only_questions", n),
        ("chatbot", "Multi-Q", n_mixed),
        ("chatbot", "trick", n_trick),
        ("chatbot", "zero_shot", n + n_steps),
        ("chatbot", "zero_shot_only_questions", n),
    ]
    assert call_count("chatbot") == n + n_steps + n_mixed + n_trick + n
    assert call_count("basebot") == n + n_mixed + n
    by_setting = rows("SELECT DISTINCT model, setting FROM marts.kor_accuracy ORDER BY ALL")
    assert by_setting == [("basebot", "three_shot"), ("chatbot", "zero_shot")]
    # Gold answers: right by the paper's judgement (the main accuracy), by the released files' and robust.
    overall = rows(
        "SELECT model, n, accuracy, official_accuracy, robust_accuracy FROM marts.kor_accuracy "
        "WHERE category = 'overall' ORDER BY model"
    )
    assert overall == [("basebot", n, 1.0, 1.0, 1.0), ("chatbot", n, 1.0, 1.0, 1.0)]
    mixed = rows("SELECT model, accuracy, pass_rate, robust_accuracy, robust_pass_rate FROM marts.kor_mixed")
    assert sorted(mixed) == [("basebot", 1.0, 1.0, 1.0, 1.0), ("chatbot", 1.0, 1.0, 1.0, 1.0)]
    # Table 1 of the questions asked, recomputed in Python from the same items.
    stats = rows(
        "SELECT category, n_rules, rule_length_max, n_questions, question_length_mean "
        "FROM marts.kor_dataset_stats WHERE source = 'official' ORDER BY category"
    )
    assert stats == home["table1"]
    # Table 7: token statistics of every model's answers, per setting it was asked.
    tokens = rows(
        "SELECT model, setting, count(*), min(input_mean), min(output_mean) FROM marts.kor_token_stats "
        "WHERE category <> 'cipher_step' GROUP BY ALL ORDER BY ALL"
    )
    assert [t[:3] for t in tokens] == [
        ("basebot", "Multi-Q", 1),
        ("basebot", "three_shot", 5),
        ("basebot", "three_shot_only_questions", 5),
        ("chatbot", "Multi-Q", 1),
        ("chatbot", "trick", 1),
        ("chatbot", "zero_shot", 5),
        ("chatbot", "zero_shot_only_questions", 5),
    ]
    # §6.1: the cipher sub-steps, per type and overall (only the chat model is asked zero-shot).
    steps = rows("SELECT model, step_type, n, accuracy, error_rate FROM marts.kor_stepwise ORDER BY ALL")
    assert ("chatbot", "overall", n_steps, 1.0, 0.0) in steps and {s[0] for s in steps} == {"chatbot"}
    # App. F.2: the chat model's puzzle answers without and with the trick, paired.
    trick = rows("SELECT model, n, accuracy_zero_shot, accuracy_trick, delta FROM marts.kor_trick")
    assert trick == [("chatbot", 1, 1.0, 1.0, 0.0)]
    # §6.4 / App. K: each model's own setting with the rule and without it, paired; right with it
    # (the gold), wrong without (scripted), so the difference is the whole accuracy.
    impact = rows(
        "SELECT model, shots, category, n, accuracy_with_rule, accuracy_without_rule, difference "
        "FROM marts.kor_knowledge_impact ORDER BY ALL"
    )
    categories = sorted(t[0] for t in home["table1"])
    assert impact == [
        (model, shots, category, n if category == "overall" else 1, 1.0, 0.0, 1.0)
        for model, shots in (("basebot", "three_shot"), ("chatbot", "zero_shot"))
        for category in sorted([*categories, "overall"])
    ]
    real_life = rows(
        "SELECT model, real_life_with_rule FROM marts.kor_knowledge_impact WHERE category = 'counterfactual'"
    )
    assert sorted(real_life) == [("basebot", 0.0), ("chatbot", 0.0)]
    assert all(t[3] > 50 and t[4] > 0 for t in tokens)
    _report_shows_the_knowledge_impact(tmp_path)


def _report_shows_the_knowledge_impact(tmp_path) -> None:
    """The report's table and the run's closing headline read marts.kor_knowledge_impact."""
    import duckdb

    from relreason_dagster.results.headline import headline_tables
    from relreason_dagster.results.report import build_report

    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        summary = build_report(con, tmp_path / "report")
        closing = [t for t in headline_tables(con, families=["kor"]) if "kor_knowledge_impact" in t.title]
    finally:
        con.close()
    page = summary.path.read_text()
    assert "kor_knowledge_impact" in summary.tables
    table = page[page.index('id="table-kor_knowledge_impact"') :]
    table = table[: table.index("</table>")]
    assert "withheld" in table and "difference" in table and "chatbot" in table and "basebot" in table
    assert len(closing) == 1 and len(closing[0].rows) == 2  # overall: one row per model
