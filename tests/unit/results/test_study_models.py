"""The studies' own models (issue 45, item 7 and acceptance 6): each family's ``study_models.csv``
names the models its paper evaluated, with the paper's decoding parameters, and traces back to the paper
text; ``relreason models add --study all`` writes them to a temporary registry, and ``relreason run
--profile paper --dry-run`` then lists every one with its calls and cost, a missing key being one line
and nothing being called.
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import pytest

from relreason_dagster import paths
from relreason_dagster.benchmarks.registry import family_published
from relreason_dagster.cli import main
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import load_registry
from relreason_dagster.llm.study_models import registry_models, study_files, study_models

SEEDS = Path(os.environ.get("RELREASON_SEEDS_DIR") or paths.REPO_ROOT.parent / "shared" / "seeds")
SEED_TEXT = {
    "relational": "relational-reasoning-llms-vs-dlm.txt",
    "selfcontra": "self-contradictory-reasoning.txt",
    "kor": "kor-bench.txt",
    "flenqa": "same-task-more-tokens-flenqa.txt",
}
# What each paper says of its decoding parameters, where it says anything (the rows' params follow it).
STATED = {
    "selfcontra": ("We set the temperature to 0 for all models", {"temperature": 0}),
    "flenqa": (
        'evaluated with a temperature of 0 and "top p" of 0 where available',
        {"temperature": 0, "top_p": 0},
    ),
}


def test_every_study_lists_its_models_with_a_source_and_a_mapping():
    assert set(study_files()) == set(SEED_TEXT)
    models = study_models("all")
    assert len({m.name for m in models}) == len(models)  # one entry per study and model
    counts = {study: sum(m.study == study for m in models) for study in SEED_TEXT}
    assert counts == {"relational": 5, "selfcontra": 5, "kor": 62, "flenqa": 5}  # selfcontra: 3 + 2 judges
    for m in models:
        assert m.name.startswith(f"{m.study}-") and m.mapping.split(":")[0] in ("documented", "choice"), m
    with pytest.raises(ConfigError, match="--study takes one of: .*all"):
        study_models("chess")


def test_kor_lists_table_2_s_models_with_their_kind():
    """Table 2's models are the ones published.csv holds; base models (three-shot) are kind base."""
    with family_published("kor").open(newline="", encoding="utf-8") as handle:
        table2 = {r["model"]: r["setting"] for r in csv.DictReader(handle) if r["source"] == "Table 2"}
    kor = {m.paper_name: m.kind for m in study_models("kor")}
    assert kor == {model: "base" if setting == "three_shot" else "chat" for model, setting in table2.items()}
    # §5 pairs a base model with its chat model: base_of names the chat entry (Mistral-7B-v0.1 has none:
    # Table 2's chat Mistral is v0.3).
    entries = {m.name: m for m in study_models("kor")}
    pairs = {m.paper_name: entries[m.base_of].paper_name for m in entries.values() if m.base_of}
    assert len(pairs) == sum(kind == "base" for kind in kor.values()) - 1 and "Mistral-7B-v0.1" not in pairs
    assert all(
        kor[base] == "base" and kor[chat] == "chat" and chat.startswith(base.replace("-hf", ""))
        for base, chat in pairs.items()
    )


@pytest.mark.parametrize("study", sorted(SEED_TEXT))
def test_each_model_and_its_params_are_in_the_paper(study):
    path = SEEDS / SEED_TEXT[study]
    if not path.exists():
        pytest.skip(f"seed text not found: {path}")
    text = path.read_text(encoding="utf-8")
    for m in study_models(study):
        assert m.paper_name in text, m.paper_name
        params = {k: v for k, v in m.params.items() if k in ("temperature", "top_p")}
        if study in STATED:
            phrase, stated = STATED[study]
            assert phrase in text and params == stated, m.name
        else:
            assert params == {}, m.name  # the paper states none: none are made up


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RELREASON_MODELS", str(tmp_path / "models.yaml"))
    monkeypatch.delenv("RELREASON_LAKE", raising=False)
    (tmp_path / "models.yaml").write_text("models:\n")
    for env in {m.api_key_env for m in study_models("all") if m.api_key_env}:
        monkeypatch.delenv(env, raising=False)
    return tmp_path


def test_models_add_study_all_then_a_dry_run_lists_every_model(home, capsys):
    models = study_models("all")
    assert main(["models", "add", "--study", "all"]) == 0
    out = capsys.readouterr().out
    registry = load_registry(home / "models.yaml")
    assert list(registry) == [m.name for m in models]
    assert out.count(" is not set, so runs leave it out until it is") == len(models)
    judges = {m.name for m in models if m.kind == "judge"}
    assert judges == {"selfcontra-judge-gpt-4", "selfcontra-judge-gpt-4-turbo"}
    for m in models:
        spec = registry[m.name]
        assert (spec.litellm_model, spec.params, spec.kind, spec.api_key_env, spec.base_of) == (
            m.litellm_model,
            m.params,
            "chat" if m.kind == "judge" else m.kind,  # a judge is a chat model the profile names as judge
            m.api_key_env,
            m.base_of,
        )
    text = (home / "models.yaml").read_text()
    assert main(["models", "add", "--study", "relational"]) == 0  # again: kept, not duplicated
    assert (home / "models.yaml").read_text() == text and "already in" in capsys.readouterr().out

    # The paper profile's relational prompts (540: nine tasks, both splits, three settings) keep it quick;
    # without --benchmark the same command covers every family.
    assert main(["run", "--profile", "paper", "--dry-run", "--benchmark", "relational"]) == 0
    captured = capsys.readouterr()
    table = {line.split()[0]: line.split() for line in captured.out.splitlines() if line.split()}
    assert not judges & set(table)  # a study's judge answers no benchmark: it judges the others' answers
    for m in (m for m in models if m.name not in judges):
        row = table[m.name]
        note = " ".join(row[8:])
        # calls: every prompt, nothing stored, less those over the model's known context window (said).
        over = re.match(r"(?:.*; )?(\d+) prompts over its", note)
        assert int(row[4]) + (int(over.group(1)) if over else 0) == 540, row
        assert row[7] == "unknown" or float(row[7]) >= 0, row  # est_cost_usd: LiteLLM's map, or unknown
        if row[7] != "unknown" and float(row[7]) == 0:
            assert note.startswith("LiteLLM's cost map says 0: check the price"), row  # said, not hidden
    assert float(table["relational-gpt-4"][7]) > 0
    missing = [line for line in captured.err.splitlines() if "is not set; a run leaves it out" in line]
    assert len(missing) == len(models) - len(judges)
    assert not any(p.is_file() for p in (home / "home").rglob("*"))  # nothing written: nothing called


def test_a_run_without_model_leaves_out_the_entries_without_a_key(home, capsys, monkeypatch):
    assert main(["models", "add", "--study", "selfcontra"]) == 0
    capsys.readouterr()
    with pytest.raises(ConfigError, match="no enabled model whose key is set"):
        registry_models(home / "models.yaml")
    assert len(capsys.readouterr().err.splitlines()) == 3  # one line per model left out
    monkeypatch.setenv("OPENAI_API_KEY", "sk-not-used")
    assert registry_models(home / "models.yaml") == ["selfcontra-gpt-3.5-turbo"]
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "relreason: selfcontra-mistral-7b-instruct-v0.2 left out: its key HF_TOKEN is not set "
        "(api_key_env in models.yaml)",
        "relreason: selfcontra-claude-3-opus left out: its key ANTHROPIC_API_KEY is not set "
        "(api_key_env in models.yaml)",
    ]
    assert main(["models", "add"]) == 2  # neither NAME LITELLM_MODEL nor --study: one line
    assert "--study" in capsys.readouterr().err
