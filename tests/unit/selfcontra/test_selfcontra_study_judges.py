"""The study's judges (issue 57, item 1 and acceptance 1).

§4.1 judged I+R→O and FGE with GPT-4 and binary detection with GPT-4-turbo.  ``relreason models add
--study selfcontra`` adds both as judge entries (never run as benchmark models), the paper profile names
them per method (``judges``), ``relreason run --profile paper --dry-run`` lists the judge calls per
method, and a run without their key says so in one line and leaves every judge step out rather than
judging with another model.  The smoke judge stays the local model.
"""

from __future__ import annotations

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.cli import main
from relreason_dagster.launch_plan import build_plan
from relreason_dagster.llm.study_models import study_models
from tests.profile_files import use_profiles

GPT4, TURBO = "selfcontra-judge-gpt-4", "selfcontra-judge-gpt-4-turbo"
STEPS = {m: f"selfcontra_detections_{m}" for m in ("iro", "binary", "fge")}
# Every step that asks the judge: the three methods' and App. D's evidence-missing probe (probe_steps.py).
JUDGE_STEPS = {*STEPS.values(), "selfcontra_evidence_probe"}


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RELREASON_MODELS", str(tmp_path / "models.yaml"))
    monkeypatch.delenv("RELREASON_LAKE", raising=False)
    (tmp_path / "models.yaml").write_text("models:\n  - name: mine\n    litellm_model: openai/mine\n")
    for env in {m.api_key_env for m in study_models("all") if m.api_key_env}:
        monkeypatch.delenv(env, raising=False)
    return tmp_path


def test_the_paper_profile_names_the_study_s_judges_per_method_and_smoke_the_local_model():
    paper = profiles.get_profile("paper", "selfcontra").params
    assert paper["judges"] == {"iro": GPT4, "binary": TURBO, "fge": GPT4}
    assert profiles.get_profile("smoke", "selfcontra").params["judge"] == "smollm2-135m"
    entries = {m.name: m for m in study_models("selfcontra")}
    assert (entries[GPT4].paper_name, entries[GPT4].litellm_model) == ("GPT-4", "openai/gpt-4")
    assert (entries[TURBO].paper_name, entries[TURBO].litellm_model) == ("GPT-4-turbo", "openai/gpt-4-turbo")
    assert all("§4.1" in entries[name].source and entries[name].kind == "judge" for name in (GPT4, TURBO))


def test_without_their_key_a_run_leaves_every_judge_step_out_in_one_line(home, monkeypatch):
    assert main(["models", "add", "--study", "selfcontra"]) == 0
    plan = build_plan(["mine"], profile="paper", benchmarks=["selfcontra"])
    assert set(plan.left_out_steps) == JUDGE_STEPS and plan.step_specs == ()
    (line,) = plan.notes
    assert "OPENAI_API_KEY is not set" in line and GPT4 in line and TURBO in line
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-used")
    plan = build_plan(["mine"], profile="paper", benchmarks=["selfcontra"])
    assert plan.left_out_steps == () and plan.notes == ()
    assert {spec.name for spec in plan.step_specs} == {GPT4, TURBO}
    # --judge M judges every method with M, and its key is required, not skipped.
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(Exception, match="OPENAI_API_KEY"):
        build_plan(["mine"], profile="paper", benchmarks=["selfcontra"], judge=GPT4)


def test_without_the_entries_a_run_says_how_to_add_them(home):
    plan = build_plan(["mine"], profile="paper", benchmarks=["selfcontra"])
    assert set(plan.left_out_steps) == JUDGE_STEPS
    assert "relreason models add --study selfcontra" in plan.notes[0]


def test_the_dry_run_lists_the_judge_calls_per_method(home, capsys, monkeypatch):
    if not (paths.reference_dir() / "wino" / "self_contra_demonstrations.json").is_file():
        pytest.skip("reference data not found (set RELREASON_REFERENCE_DIR)")
    # The paper profile, smaller: three annotated responses per file, two WinoGender items.
    small = {"extends": "paper", "selfcontra": {"detect_limit": 3, "sources": {"winogender": 2}}}
    use_profiles(monkeypatch, home / "profiles.yaml", {"paper-small": small})
    assert main(["models", "add", "--study", "selfcontra"]) == 0
    capsys.readouterr()
    run = ["run", "--profile", "paper-small", "--dry-run", "--benchmark", "selfcontra", "--model", "mine"]
    assert main(run) == 0
    captured = capsys.readouterr()
    rows = {line.split()[0]: line.split() for line in captured.out.splitlines() if "[selfcontra_det" in line}
    assert set(rows) == {f"{TURBO}[{STEPS['binary']}]", f"{GPT4}[{STEPS['iro']}]", f"{GPT4}[{STEPS['fge']}]"}
    calls = {name.split("[")[1][:-1]: int(row[4]) for name, row in rows.items()}
    # FGE asks four probes per response, I+R→O and binary one: 3 annotated Few-shot (A) responses of each
    # of the 3 released few-shot (A) files, and the 2 x 4 answers of the run's model.
    assert calls == {STEPS["iro"]: 9 + 8, STEPS["binary"]: 9 + 8, STEPS["fge"]: 4 * (9 + 8)}
    notes = {name.split("[")[1][:-1]: " ".join(row[8:]) for name, row in rows.items()}
    assert notes[STEPS["iro"]].startswith("+8 calls on the run's answers, not in tokens or cost")
    assert "left out, judging nothing" in captured.err
