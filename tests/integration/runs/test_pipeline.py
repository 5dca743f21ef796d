"""Materialize the real assets (DuckDB file, dbt build, GX checks) with scripted models.

Two scripted LiteLLM models stand in for real ones so the results are known:
``oracle`` answers every prompt with the gold answer rendered in the prompt's
own format (so every F1 must be 1.0), ``junk`` answers text no parser can read
(every answer must be ``na``).  A third, ``judge``, labels Self-Contra by always
replying "no" (nothing is wrong with the reasoning), so the oracle's judged SCR is 0.
"""

from __future__ import annotations

import json

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.llm.registry import add_model
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import isolated_home, rows, scripted_models_yaml
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

MODELS_YAML = scripted_models_yaml("oracle", "judge")


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A fresh RELREASON_HOME / DAGSTER_HOME / models.yaml for the whole module."""
    root = tmp_path_factory.mktemp("relreason")
    mp = pytest.MonkeyPatch()
    models = isolated_home(mp, root, MODELS_YAML)

    gold_by_text: dict[str, str] = {}
    per_family: dict[str, int] = {}
    # KOR self-correction re-asks wrong answers; its own test module covers it, here call counts stay exact.
    smoke = {"selfcontra": {"judge": "judge"}, "kor": {"self_correction_rounds": 0}}
    use_profiles(mp, root / "profiles.yaml", {"smoke": smoke})
    for name in ("relational", "flenqa", "selfcontra", "kor"):
        family = get_family(name)
        profile = profiles.get_profile("smoke", name)
        samples = family.generate(profile, profiles.DEFAULT_SEED)
        by_id = {s.sample_id: s for s in samples}
        built = family.build_prompts(samples, profile)
        # Texts may repeat (a 250-token FLenQA text is its minimal text); prompts are counted apart.
        gold_by_text |= {
            p.messages[-1]["content"]: family.render_gold(by_id[p.sample_id], p.setting) for p in built
        }
        per_family[name] = len(built)
        if name == "kor":  # official items with the reference folder, fewer generated ones without it
            kor_single = sum(1 for s in samples if s.task != "mixed")
    register_scripted_provider()
    set_responder("oracle", lambda messages, params: gold_by_text[messages[-1]["content"]])
    set_responder("junk", lambda messages, params: "¯\\_(ツ)_/¯ I cannot tell.")
    set_responder("judge", lambda messages, params: "no")
    yield {
        "root": root,
        "models": models,
        "n_prompts": sum(per_family.values()),
        "kor_single": kor_single,
        "n_requests": len(gold_by_text),  # identical texts share one provider call
        "per_family": per_family,
    }
    mp.undo()


def test_first_run_scores_the_oracle_perfectly(home):
    from relreason_dagster.pipeline import run_models

    reset_calls()
    report = run_models(["oracle"], profile="smoke")
    assert report.failures == []
    assert call_count("oracle") == home["n_requests"]
    # What the UI's model_responses metadata says (issue 37): requests sent, identical prompts apart.
    assert report.calls["oracle"]["model_calls"] == home["n_requests"]
    assert report.calls["oracle"]["shared_prompts"] == home["n_prompts"] - home["n_requests"] > 0

    f1_rows = rows("SELECT task, split, setting, n, n_na, f1, ci_low, ci_high FROM marts.relational_f1")
    assert len(f1_rows) == 9 * 3 + 9  # iid: nl, nl_cot, tv; ood: nl (smoke profile)
    for task, split, setting, n, n_na, f1, lo, hi in f1_rows:
        assert (n, n_na, f1, lo, hi) == (1, 0, 1.0, 1.0, 1.0), (task, split, setting)
    acc = rows("SELECT min(accuracy) FROM marts.accuracy WHERE model = 'oracle'")
    assert acc == [(1.0,)]
    bias = rows("SELECT max(abs(bias)) FROM marts.label_bias WHERE model = 'oracle'")
    assert bias == [(0.0,)]
    checks = {name: passed for name, passed, _ in report.checks}
    assert checks["label_balance_check"] is True
    assert checks["token_length_check"] is True
    assert checks["parse_rate_check"] is True
    assert checks["padding_entities_check"] is True
    assert checks["token_target_check"] is True
    assert checks["kor_gold_self_check"] is True
    assert checks["kor_item_counts_check"] is True
    kor = rows(
        "SELECT min(accuracy), sum(n) FROM marts.kor_accuracy WHERE model = 'oracle' AND category = 'overall'"
    )
    assert kor == [(1.0, home["kor_single"])]  # one question per category and rule
    mixed = rows("SELECT setting, accuracy, pass_rate FROM marts.kor_mixed WHERE model = 'oracle'")
    assert mixed == [("Multi-Q", 1.0, 1.0)]


def test_flenqa_marts_and_plot_for_the_oracle(home):
    """FLenQA after the oracle's run: every metric at its known value, and the figure written."""
    flenqa = rows("SELECT min(accuracy), max(accuracy), sum(n), sum(n_refused) FROM marts.flenqa_accuracy")
    smoke = profiles.get_profile("smoke", "flenqa")
    per_prompt = 3 * smoke.values().n_base * (len(smoke.values().lengths) + 1)  # + the minimal texts
    assert flenqa == [(1.0, 1.0, 2 * per_prompt, 0)]  # direct + cot
    lengths = rows("SELECT DISTINCT length FROM marts.flenqa_accuracy_by_length ORDER BY 1")
    assert [r[0] for r in lengths] == [0, *smoke.values().lengths]
    bias = rows("SELECT min(false_share), max(false_share), max(refusal_rate) FROM marts.flenqa_label_bias")
    assert bias == [(0.5, 0.5, 0.0)]
    cot = rows(
        "SELECT min(coverage_rate), max(answer_first_rate), min(accuracy_covered) FROM marts.flenqa_cot"
    )
    assert cot == [(1.0, 0.0, 1.0)]
    nw = rows("SELECT min(next_word_accuracy), min(reasoning_accuracy) FROM marts.flenqa_next_word")
    assert nw == [(1.0, 1.0)]
    plot = paths.relreason_home() / "plots" / "flenqa_accuracy_vs_length.png"
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_selfcontra_marts_for_the_oracle(home):
    """Self-Contra after the oracle's run: accuracy 1, judged SCR 0, symbolic checks all sound."""
    acc = rows("SELECT min(accuracy), sum(n) FROM marts.accuracy WHERE benchmark = 'selfcontra'")
    assert acc == [(1.0, home["per_family"]["selfcontra"])]
    judged = rows(
        "SELECT method, judge, sum(n), min(accuracy), max(judged_scr), sum(n_judged) "
        "FROM marts.selfcontra_judged WHERE model = 'oracle' GROUP BY method, judge"
    )
    n = home["per_family"]["selfcontra"]
    assert judged == [("fge", "judge", n, 1.0, 0.0, n)]
    symbolic = rows(
        "SELECT sum(n), sum(n_type1 + n_type2 + n_type3), sum(n_rr), sum(n_false_claims) "
        "FROM marts.relational_symbolic_scr WHERE model = 'oracle'"
    )
    assert symbolic[0][0] == 9  # one IID nl_cot prompt per task (smoke profile)
    assert symbolic[0][1:] == (0, symbolic[0][2], 0) and symbolic[0][2] >= 5  # gold CoT: every fact true


def test_second_run_makes_no_model_calls(home):
    from relreason_dagster.pipeline import run_models

    reset_calls()
    report = run_models(["oracle"], profile="smoke", run_dbt=False)  # about calls: no dbt needed
    assert call_count("oracle") == 0
    assert report.total_calls == 0
    assert report.calls["oracle"]["already_stored"] == home["n_prompts"]


def _refuse(*args, **kwargs):
    raise AssertionError("kept work was done again")


def _watch_families(m: pytest.MonkeyPatch, families: list[str], built: list[str]) -> None:
    """Generating samples fails the test; each family's prompt building is noted in ``built``."""
    for name in families:
        cls = type(get_family(name))
        m.setattr(cls, "generate", _refuse)
        original = cls.build_prompts

        def counted(self, *args, _original=original, _name=name, **kwargs):
            built.append(_name)
            return _original(self, *args, **kwargs)

        m.setattr(cls, "build_prompts", counted)


def _inputs() -> dict[str, list[tuple]]:
    return {
        "samples": rows("SELECT * FROM raw.samples ORDER BY sample_id"),
        "prompts": rows("SELECT * FROM raw.prompts ORDER BY prompt_id"),
    }


def test_a_rerun_with_nothing_changed_builds_and_asks_nothing(home, monkeypatch):
    """``rerun`` starts every run, yet unchanged samples and prompts are kept (``raw.built_from``), a
    complete pass is not planned again (``storage/answered.py``) and unchanged parsed answers are not
    keyed again; a lost prompt snapshot rebuilds that family's prompts alone, from its kept samples."""
    from relreason_dagster.defs import assets
    from relreason_dagster.pipeline import run_models
    from relreason_dagster.storage.lake import Lake

    before = _inputs()
    built: list[str] = []
    families = list(home["per_family"])
    reset_calls()
    with monkeypatch.context() as m:
        _watch_families(m, families, built)
        m.setattr(assets, "run_model", _refuse)
        m.setattr(assets, "refresh_parsed_answers", _refuse)  # nothing a refresh would change
        report = run_models(["oracle"], profile="smoke", run_dbt=False, rerun=True)
    assert not report.failures and built == []
    assert report.calls["oracle"]["already_stored"] == home["n_prompts"]

    lake = Lake.default()
    for snapshot in lake.files("prompts", {"benchmark": "relational"}):
        lake.fs.delete_file(snapshot)
    with monkeypatch.context() as m:
        _watch_families(m, families, built)
        report = run_models(["oracle"], profile="smoke", run_dbt=False, rerun=True)
    assert not report.failures and built == ["relational"]
    assert call_count("oracle") == 0
    assert report.calls["oracle"]["already_stored"] == home["n_prompts"]
    assert _inputs() == before


def test_stored_answers_are_not_parsed_again_unless_something_changed(home):
    import duckdb

    from relreason_dagster.storage.parsed_answers import refresh_parsed_answers

    n = home["n_prompts"]
    by_prompt = (
        "SELECT * EXCLUDE (parse_key) FROM raw.parsed_answers WHERE model = 'oracle' ORDER BY prompt_id"
    )
    con = duckdb.connect(str(paths.duckdb_path()))
    try:
        before = con.execute(by_prompt).fetchall()
        assert len(before) == n
        assert refresh_parsed_answers(con, "oracle") == {"rows": n, "parsed": 0, "kept": n, "deleted": 0}
        # A lost row is parsed again, alone; a row of a prompt the model has no answer to is dropped.
        con.execute(f"DELETE FROM raw.parsed_answers WHERE model = 'oracle' AND prompt_id = '{before[0][0]}'")
        con.execute(
            "INSERT INTO raw.parsed_answers (prompt_id, model, parse_status) VALUES ('gone', 'oracle', 'ok')"
        )
        assert refresh_parsed_answers(con, "oracle") == {"rows": n, "parsed": 1, "kept": n - 1, "deleted": 1}
        # Other parsing code (another fingerprint): every row is parsed again, to the same values.
        counts = refresh_parsed_answers(con, "oracle", fingerprint="edited parser")
        assert counts == {"rows": n, "parsed": n, "kept": 0, "deleted": n}
        assert con.execute(by_prompt).fetchall() == before
        assert refresh_parsed_answers(con, "oracle")["parsed"] == n  # and back to the real code's keys
    finally:
        con.close()


def test_stored_symbolic_checks_are_not_checked_again(home, monkeypatch):
    import duckdb

    from relreason_dagster.benchmarks.relational import steps
    from relreason_dagster.common.duckdb_rows import fetch_dicts

    step = steps.SymbolicChecks()
    profile = profiles.get_profile("smoke", "relational")
    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        stored = {
            name: fetch_dicts(con, sql, params)
            for name, (sql, params) in step.reads("oracle", profile).items()
        }
    finally:
        con.close()
    assert len(stored["checked"]) == len(stored["responses"]) > 0
    by_prompt = {c["prompt_id"]: c for c in stored["checked"]}

    def refuse(*args, **kwargs):
        raise AssertionError("a stored check was computed again")

    with monkeypatch.context() as m:
        m.setattr(steps, "check_reasoning", refuse)
        kept = step.rows(stored, profile, "oracle", {}).rows
    assert {r["prompt_id"]: r for r in kept} == by_prompt
    # Without stored rows every response is checked, to the same rows.
    fresh = step.rows({**stored, "checked": []}, profile, "oracle", {}).rows
    assert {r["prompt_id"]: {**r, "detail": json.loads(r["detail"])} for r in fresh} == {
        k: {**v, "detail": json.loads(v["detail"])} for k, v in by_prompt.items()
    }


def test_adding_a_model_runs_only_that_model(home):
    from relreason_dagster.pipeline import run_models

    before = rows("SELECT * FROM raw.responses WHERE model = 'oracle' ORDER BY prompt_id")
    add_model(home["models"], "junk", "scripted/junk", concurrency=4)
    reset_calls()
    report = run_models(["junk"], profile="smoke")
    assert call_count("oracle") == 0
    assert call_count("junk") == home["n_requests"]
    after = rows("SELECT * FROM raw.responses WHERE model = 'oracle' ORDER BY prompt_id")
    assert after == before
    junk = rows(
        "SELECT sum(n), sum(n_na), max(f1), bool_and(na_cell), max(f1_all_answers) "
        "FROM marts.relational_f1 WHERE model = 'junk'"
    )
    n_relational = home["per_family"]["relational"]
    # Every answer unreadable: every cell is the study's N/A (no F1, not 0); over all answers it is 0.
    assert junk == [(n_relational, n_relational, None, True, 0.0)]
    refused = rows("SELECT sum(n_refused), max(accuracy) FROM marts.flenqa_accuracy WHERE model = 'junk'")
    assert refused == [(2 * 3 * 2 * 3, 0.0)]  # every direct/cot answer of junk is a refusal
    oracle = rows("SELECT min(f1) FROM marts.relational_f1 WHERE model = 'oracle'")
    assert oracle == [(1.0,)]
    checks = {name: passed for name, passed, _ in report.checks}
    assert checks["parse_rate_check"] is False  # junk reads as nothing: the check must fail


def test_provider_errors_become_error_rows_not_scores(home):
    """A model whose every call fails: rows with error, parse_status 'error', n_error in the mart."""
    import litellm

    from relreason_dagster.pipeline import run_models

    def refuse(messages, params):
        raise litellm.BadRequestError("scripted refusal", model="scripted/broken", llm_provider="scripted")

    set_responder("broken", refuse)
    add_model(home["models"], "broken", "scripted/broken")
    report = run_models(["broken"], profile="smoke")
    assert report.failures == []
    errors = rows("SELECT count(*) FROM raw.responses WHERE model = 'broken' AND error LIKE 'bad_request%'")
    assert errors == [(home["n_prompts"],)]
    statuses = rows("SELECT DISTINCT parse_status FROM raw.parsed_answers WHERE model = 'broken'")
    assert statuses == [("error",)]
    mart = rows("SELECT count(*) FROM marts.relational_f1 WHERE model = 'broken'")
    assert mart == [(0,)]
    rates = rows("SELECT sum(n_error) FROM marts.parse_rate WHERE model = 'broken'")
    assert rates == [(home["n_prompts"],)]


def test_sql_and_status_commands(home, capsys):
    from relreason_dagster.cli import main

    query = "select model, count(*) as n from marts.relational_f1 group by model order by model"
    assert main(["sql", query]) == 0
    out = capsys.readouterr().out
    assert "junk" in out and "oracle" in out
    # read-only: a write is refused with one line
    assert main(["sql", "delete from raw.parsed_answers"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "read-only" in err.lower()
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "label_balance_check" in out and "passed" in out
    assert "model_responses" in out


def test_parsed_answers_keep_their_json(home):
    row = rows(
        "SELECT parsed, detail FROM raw.parsed_answers"
        " WHERE model = 'oracle' AND benchmark = 'relational' LIMIT 1"
    )[0]
    assert isinstance(json.loads(row[0]), list)
    assert isinstance(json.loads(row[1]), dict)


# Trains two smoke DLMs one after the other, then a whole dbt build: 129 s idle, 215 s in CI beside the
# other xdist worker; 1200 s keeps that within a fifth (tests/timeout_budget.py).
@pytest.mark.timeout(1200)
def test_dlm_trains_scores_and_sits_next_to_the_llms(home):
    """`relreason run --model dlm`: checkpoints + dlm_runs rows, answers as model dlm, Table 1 mart."""
    from relreason_dagster.pipeline import run_models

    profile = profiles.get_profile("smoke", "relational")
    tasks = profile.values().dlm_tasks
    report = run_models(["dlm"], profile="smoke")
    assert report.failures == []
    assert report.baselines["dlm"] == {t: {"trained": 1, "reused": 0} for t in tasks}
    runs = rows(
        "SELECT task, seed, train_size, n_params, checkpoint_path, checkpoint_sha256, program"
        " FROM raw.dlm_runs"
    )
    assert sorted(r[0] for r in runs) == sorted(tasks)
    for _task, seed, train_size, n_params, path, sha, program in runs:
        assert (seed, train_size) == (0, 10)
        assert n_params > 10_000
        assert (paths.relreason_home() / path).exists() and len(sha) == 64
        assert "←" in program
    answers = rows("SELECT split, setting, parse_status FROM raw.parsed_answers WHERE model = 'dlm'")
    assert sorted(answers) == sorted([("iid", "dlm", "ok"), ("ood", "dlm", "ok")] * len(tasks))
    table = rows("SELECT task, model, setting, n_n10, n_n20, n_seeds FROM marts.dlm_vs_llm")
    assert {(t, "dlm", "dlm", 1, 1, 1) for t in tasks} <= set(table)
    assert {r[1] for r in table} >= {"oracle", "dlm"}  # LLMs with nl prompting in the same table


def test_dlm_rerun_reuses_checkpoints_and_retrains_a_damaged_one(home):
    from relreason_dagster.pipeline import run_models

    profile = profiles.get_profile("smoke", "relational")
    tasks = profile.values().dlm_tasks
    before = rows("SELECT run_id, created_at FROM raw.dlm_runs ORDER BY run_id")
    report = run_models(["dlm"], profile="smoke", run_dbt=False)
    assert report.baselines["dlm"] == {t: {"trained": 0, "reused": 1} for t in tasks}
    assert rows("SELECT run_id, created_at FROM raw.dlm_runs ORDER BY run_id") == before

    # A damaged checkpoint is not trusted: that run trains again (HasFather's: the cheapest to retrain).
    path = (
        paths.relreason_home()
        / rows("SELECT checkpoint_path FROM raw.dlm_runs WHERE task = 'HasFather'")[0][0]
    )
    path.write_bytes(b"damaged")
    report = run_models(["dlm"], profile="smoke", run_dbt=False)
    assert report.baselines["dlm"]["HasFather"] == {"trained": 1, "reused": 0}
    assert sum(d["trained"] for d in report.baselines["dlm"].values()) == 1


@pytest.mark.slow  # trains every smoke DLM task again (~1-2 min); the reuse above stays in make test
def test_dlm_train_size_is_part_of_the_checkpoint_identity(home):
    from relreason_dagster.pipeline import run_models

    tasks = profiles.get_profile("smoke", "relational").values().dlm_tasks
    report = run_models(["dlm"], profile="smoke", run_dbt=False, dlm_train_size=12)
    assert report.baselines["dlm"] == {t: {"trained": 1, "reused": 0} for t in tasks}
    sizes = rows("SELECT train_size, count(*) FROM raw.dlm_runs WHERE train_size = 12 GROUP BY 1")
    assert sizes == [(12, len(tasks))]
    ids = rows("SELECT train_sample_ids FROM raw.dlm_runs WHERE train_size = 12 LIMIT 1")[0][0]
    stored = {r[0] for r in rows("SELECT sample_id FROM raw.samples WHERE split = 'fewshot'")}
    assert json.loads(ids)[0] in stored  # the prompts' few-shot sample comes first
