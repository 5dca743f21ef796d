"""Each study model asked in the study's wording for it (issue 57, item 2 and acceptance 2).

The study worded WinoGender and WinoGrande per model: its released files record GPT-3.5's, Mistral's and
Claude's prompts, and they differ (Mistral's WinoGrande format line, Mistral's few-shot (A) WinoGender
prompts naming the candidates, Claude's WinoGender prompts naming none).  ``wording: study`` (the paper
profile) asks each study model its own (``study_wording.csv``), other models GPT-3.5's.  Released files
are read from ``RELREASON_REFERENCE_DIR`` only (skipped without them): every WinoGender and WinoGrande
file of the release found there must match, prompt by prompt and in order, what relreason sends that
model.  The reader must import the release's headerless Claude files.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import Profile, Sample
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.benchmarks.selfcontra import prompts, study_items
from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_csv, read_annotation_files
from relreason_dagster.benchmarks.selfcontra.family import item_of, load_items
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs
from relreason_dagster.benchmarks.selfcontra.wording import Wording

MISTRAL = {"name": "selfcontra-mistral-7b-instruct-v0.2", "litellm_model": "huggingface/mistralai/x"}
CLAUDE = {"name": "mine", "litellm_model": "anthropic/claude-3-opus-20240229"}
GPT = {"name": "selfcontra-gpt-3.5-turbo", "litellm_model": "openai/gpt-3.5-turbo"}
OTHER = {"name": "llama", "litellm_model": "ollama/llama3.1"}


@pytest.fixture(scope="module")
def wino() -> Path:
    path = paths.reference_dir() / "wino"
    if not (path / "self_contra_demonstrations.json").is_file() or not (path / "winogender").is_dir():
        pytest.skip(f"reference data not found at {path} (set RELREASON_REFERENCE_DIR)")
    return path


def _profile(**params: object) -> Profile:
    base = dict(profiles.get_profile("paper", "selfcontra").params)
    base.update(params)
    return Profile(name="test", params=base, knobs=Knobs)


@pytest.fixture(scope="module")
def built(wino: Path) -> tuple[list[Sample], list[dict]]:
    family = get_family("selfcontra")
    profile = _profile(sources={"winobias": 2, "winogender": 4, "winogrande": 3})
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    return samples, [p.row() for p in family.build_prompts(samples, profile)]


def _text(row: dict) -> str:
    import json

    return json.loads(row["messages"])[-1]["content"]


def test_the_wording_table_names_its_source_and_holds_wording_only():
    with prompts.WORDING_FILE.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {(r["model"], r["dataset"]) for r in rows} == {
        ("gpt3.5", "winogender"),
        ("mistral", "winogender"),
        ("claude3", "winogender"),
        ("gpt3.5", "winogrande"),
        ("mistral", "winogrande"),
    }  # every model x dataset the study released (no Claude WinoGrande file)
    for r in rows:
        assert r["source"].startswith("uscnlp-lime/Self-Contradictory@") and r["setting"] in r["source"]
        assert "{sentence}" in r["template"] and len(r["template"]) < 300  # a template, not a prompt


def test_each_model_is_asked_one_prompt_per_item_and_setting_in_its_own_wording(built, wino):
    family = get_family("selfcontra")
    profile = _profile()
    samples, rows = built
    by_id = {s.sample_id: s for s in samples}
    keys = {(r["sample_id"], r["setting"]) for r in rows}
    demos = prompts.StudyDemonstrations(wino / "self_contra_demonstrations.json")

    def question(row: dict) -> str:
        """The item's question: the prompt after the study's demonstrations (the same for every model)."""
        if prompts.setting_shots(row["setting"]) == "zero":
            return _text(row)
        prefix = demos.prefix(item_of(by_id[row["sample_id"]]), prompts.setting_order(row["setting"]))
        assert _text(row).startswith(prefix)
        return _text(row)[len(prefix) :]

    asked = {}
    for name, entry in (("mistral", MISTRAL), ("claude3", CLAUDE), ("gpt3.5", GPT), ("other", OTHER)):
        mine = family.prompts_for_model(profile, entry, rows)
        assert sorted((r["sample_id"], r["setting"]) for r in mine) == sorted(keys), name  # one each
        # The question each prompt ends with (a few-shot prompt's demonstrations are the study's for all).
        asked[name] = {(r["sample_id"], r["setting"]): question(r) for r in mine}
        study = "gpt3.5" if name == "other" else name
        for r in mine:
            item = item_of(by_id[r["sample_id"]])
            order, shots = prompts.setting_order(r["setting"]), prompts.setting_shots(r["setting"])
            assert _text(r).endswith(prompts.study_question_text(item, order, shots, study)), (name, r)
    assert asked["other"] == asked["gpt3.5"]  # a model the study did not ask: GPT-3.5's wording
    gender = [k for k in keys if by_id[k[0]].task == "winogender"]
    grande = [k for k in keys if by_id[k[0]].task == "winogrande"]
    bias = [k for k in keys if by_id[k[0]].task == "winobias"]
    assert all(asked["mistral"][k] == asked["gpt3.5"][k] for k in bias)  # WinoBias: one wording for all
    few_a = [k for k in gender if k[1] == "few_answer"]
    assert all(
        "refer to? Give" in asked["gpt3.5"][k] and "refer to? Give" not in asked["mistral"][k] for k in few_a
    )
    zero = [k for k in gender if k[1] != "few_answer"]
    assert all(
        "refer to? Give" in asked["claude3"][k] and "refer to? Give" not in asked["gpt3.5"][k] for k in zero
    )
    assert all(asked["mistral"][k] != asked["gpt3.5"][k] for k in grande)  # another format line
    assert all(asked["claude3"][k] == asked["gpt3.5"][k] for k in grande)  # no Claude WinoGrande release
    # wording: gpt3.5 asks every model GPT-3.5's prompts, as before issue 57.
    old = get_family("selfcontra").build_prompts(samples, _profile(wording="gpt3.5"))
    assert {p.prompt_id for p in old} == {
        r["prompt_id"] for r in family.prompts_for_model(profile, GPT, rows)
    }


def _released(wino: Path) -> list[Path]:
    folder = wino / "selfcontra_annotations"
    return sorted(
        p for p in folder.glob("wino*_*.csv") if p.name.split("_")[0] in ("winogender", "winogrande")
    )


def test_every_released_winogender_and_winogrande_file_is_what_we_send_that_model(wino: Path):
    """Acceptance 2: each prompt of every such released file in the reference folder (any model, any
    setting) equals, whitespace aside and in order, relreason's prompt for the file's model; a few-shot
    file recorded the question without its demonstrations and is placed by it."""
    files = _released(wino)
    if not files:
        pytest.skip(
            f"no released WinoGender/WinoGrande annotation files under {wino / 'selfcontra_annotations'}"
        )
    profile = _profile()
    items = [
        *load_items("winogender", 60, profile, profiles.DEFAULT_SEED),
        *load_items("winogrande", 60, profile, profiles.DEFAULT_SEED),
    ]
    demos = prompts.StudyDemonstrations(wino / "self_contra_demonstrations.json")
    for path in files:
        _, _, theirs = study_items.file_prompts(path)
        match = study_items.check_released_file(path, items, demos)
        assert match.exact == len(theirs) and not match.unmatched and match.in_order, path.name


def test_the_released_claude_files_import(wino: Path):
    files = sorted((wino / "selfcontra_annotations").glob("*claude*.csv"))
    if not files:
        pytest.skip("no released Claude annotation files in the reference folder")
    batch = read_annotation_files(files)
    assert not batch.skipped and len(batch.results) == len(files)
    assert all(len(result.rows) >= 49 for result in batch.results)


def _write(path: Path, records: list[list[str]]) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows(records)
    return path


def test_a_headerless_release_file_with_two_bare_flag_columns_imports_in_the_release_layout(tmp_path):
    """The Claude WinoGender files' shape: no header (or ``0,1,,``), question, response and two 0/1 columns,
    nothing else.  Named as the release names its files, they read accuracy then self-contra, as every
    release file that names its columns has them, and the import says why; under another name, refused."""
    body = [
        [
            f"Question: The nurse told the clerk that [MASK] was late on day {i}. Who does [MASK] refer to?",
            f"Answer: the clerk\nReasoning: The nurse is telling the clerk about someone who was late ({i}).",
            "1",
            "1" if i % 3 == 0 else "0",
        ]
        for i in range(9)
    ]
    for records in (body, [["0", "1", "", ""], *body]):
        release = _write(tmp_path / "winogender_zero_answer_claude3.csv", records)
        result = read_annotation_csv(release)
        assert (result.columns["accuracy"], result.columns["self_contra"]) == (2, 3)
        assert result.summary()["n_correct"] == 9 and result.summary()["n_self_contra"] == 3
        assert any("release's layout decides" in note for note in result.inference)
    other = _write(tmp_path / "labels.csv", body)
    batch = read_annotation_files([other])
    assert not batch.results and "nothing tells accuracy from self-contra" in batch.skipped[0][1]


def test_the_wording_step_counts_the_prompts_in_the_study_s_wording_for_the_model(built):
    """What marts.selfcontra_vs_study reads: Mistral asked GPT-3.5's WinoGender few-shot (A) prompts is
    not in the study's wording; asked its own, it is."""
    samples, rows = built
    by_id = {s.sample_id: s.row() for s in samples}
    family = get_family("selfcontra")
    profile = _profile()

    def counts(entry: dict, asked: list[dict]) -> dict:
        stored = {
            "asked": [{**by_id[r["sample_id"]], **r} for r in asked],
            "model_entry": [entry],
        }
        out = Wording().rows(stored, profile, entry["name"], {})
        return {(r["dataset"], r["setting"]): (r["n_study_wording"], r["n"]) for r in out.rows}

    own = counts(MISTRAL, family.prompts_for_model(profile, MISTRAL, rows))
    assert all(same == n for same, n in own.values()) and own[("winogender", "few_answer")] == (4, 4)
    gpt = counts(MISTRAL, family.prompts_for_model(profile, GPT, rows))
    assert gpt[("winogender", "few_answer")] == (0, 4) and gpt[("winogrande", "zero_answer")] == (0, 3)
    assert gpt[("winobias", "zero_answer")] == (4, 4)  # WinoBias: anti and pro, one wording for all
