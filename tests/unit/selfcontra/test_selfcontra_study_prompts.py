"""Self-Contra as the study prompted it: the ``paper`` profile's few-shot prompts carry the study's own six
demonstrations verbatim, WinoGender and WinoGrande are worded as the study worded them, and WinoBias pro
and anti are profile knobs.  ``prompts: relreason`` keeps our own wording and demonstrations.

Reads the reference data (``RELREASON_REFERENCE_DIR``); skips without it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.benchmarks.selfcontra import prompts
from relreason_dagster.benchmarks.selfcontra.family import item_of, load_items, wording_of
from relreason_dagster.benchmarks.selfcontra.items import WinoItem
from relreason_dagster.benchmarks.selfcontra.loaders import load_winogender
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs
from relreason_dagster.errors import ConfigError


@pytest.fixture(scope="module")
def wino() -> Path:
    path = paths.reference_dir() / "wino"
    if not (path / "self_contra_demonstrations.json").is_file():
        pytest.skip(f"reference data not found at {path} (set RELREASON_REFERENCE_DIR)")
    return path


@pytest.fixture(scope="module")
def study_json(wino: Path) -> dict:
    return json.loads((wino / "self_contra_demonstrations.json").read_text(encoding="utf-8"))


def _profile(**params: object) -> Profile:
    base = dict(profiles.get_profile("paper", "selfcontra").params)
    base.update(params)
    return Profile(name="test", params=base, knobs=Knobs)


@pytest.fixture(scope="module")
def paper_prompts(wino: Path) -> list:
    family = get_family("selfcontra")
    profile = _profile(sources={"winobias": 3, "winogender": 3, "winogrande": 3, "generated": 2})
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    return [(item_of(by_id[p.sample_id]), p) for p in family.build_prompts(samples, profile)]


def _expected_prefix(study_json: dict, item: WinoItem, order: str) -> str:
    if item.dataset in ("winogender", "winogrande"):
        return study_json[item.dataset][order]
    split = "anti_test"
    if item.dataset == "winobias":
        split = f"{item.variant['stereotype']}_{item.variant['source_split']}"
    node = study_json["winobias"][split]
    return node[order] if order in node else study_json["winobias"]["anti_test"][order]


def test_paper_profile_few_shot_prompts_carry_the_study_demonstrations(paper_prompts, study_json) -> None:
    few = [(item, p) for item, p in paper_prompts if p.setting.startswith("few")]
    assert {item.dataset for item, _ in few} == {"winobias", "winogender", "winogrande", "generated"}
    for item, prompt in few:
        text = prompt.messages[-1]["content"]
        order = prompt.setting.split("_")[1]
        prefix = _expected_prefix(study_json, item, order)
        assert text.startswith(prefix), (item.item_id, prompt.setting)
        # Each prompt is worded for the study models its template version names (GPT-3.5's: untagged).
        models = wording_of({"template_version": prompt.template_version}) or (prompts.DEFAULT_STUDY_MODEL,)
        assert all(text.endswith(prompts.study_question_text(item, order, "few", m)) for m in models)
        # None of relreason's own demonstrations slipped in.
        assert prompts.WHO_DEMONSTRATIONS[0].item.sentence not in text
        assert prompts.MASK_DEMONSTRATIONS[0].item.sentence not in text
    # The pro-stereotype answer-first prompts use the pro_test demonstrations, which differ from anti's.
    pro = [
        p
        for item, p in few
        if item.dataset == "winobias" and item.variant["stereotype"] == "pro" and p.setting == "few_answer"
    ]
    assert pro and all(study_json["winobias"]["pro_test"]["answer"] in p.messages[-1]["content"] for p in pro)
    assert study_json["winobias"]["pro_test"]["answer"] != study_json["winobias"]["anti_test"]["answer"]


def test_paper_profile_asks_winogender_in_the_study_wording(paper_prompts) -> None:
    gender = [(item, p) for item, p in paper_prompts if item.dataset == "winogender"]
    assert gender
    for _item, prompt in gender:
        question = prompt.messages[-1]["content"].split("\n\n\n")[-1]
        assert "Who does [MASK] refer to?" in question
        assert "Does [MASK] refer to the" not in question
    grande = [p for item, p in paper_prompts if item.dataset == "winogrande" and p.setting == "zero_answer"]
    assert grande and not grande[0].messages[-1]["content"].startswith("Question:")


def test_study_winogender_wording_is_the_one_of_its_demonstrations(wino: Path, study_json: dict) -> None:
    """The study's WinoGender demonstrations are WinoGender items asked few-shot answer-first: two of them are
    items our loader builds, and our study wording of those items appears in the JSON verbatim."""
    items = load_winogender(wino / "winogender", style="mask")
    found = [
        item.item_id
        for item in items
        if prompts.study_question_text(item, "answer", "few").rstrip() in study_json["winogender"]["answer"]
    ]
    assert len(found) >= 2
    assert not any(
        prompts.question_text(item, "answer").rstrip() in study_json["winogender"]["answer"] for item in items
    )


def test_study_winogender_zero_shot_lists_occupation_then_participant(wino: Path) -> None:
    item = next(
        i for i in load_winogender(wino / "winogender", style="mask") if i.item_id.startswith("technician")
    )
    text = prompts.study_question_text(item, "answer", "zero")
    assert text.startswith("Question: The technician told the customer that [MASK] ")
    assert "Who does [MASK] refer to?technician or customer? Give your answer first" in text
    assert text.endswith("Follow the format: Answer:[answer]\nReasoning:[reasoning]\n")


def test_relreason_prompts_stay_selectable(wino: Path) -> None:
    family = get_family("selfcontra")
    profile = _profile(sources={"winobias": 1, "winogender": 1}, prompts="relreason")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    built = family.build_prompts(samples, profile)
    few = [p.messages[-1]["content"] for p in built if p.setting.startswith("few")]
    assert few and all(t.startswith(prompts.FEWSHOT_HEADER) for t in few)
    assert any(prompts.WHO_DEMONSTRATIONS[0].item.sentence in t for t in few)
    assert any("Does [MASK] refer to the" in t for t in few)
    with pytest.raises(ConfigError, match="prompts"):
        family.build_prompts(samples, _profile(prompts="paper"))


def test_study_prompts_without_the_demonstrations_file_name_the_fix(wino: Path, tmp_path: Path) -> None:
    family = get_family("selfcontra")
    profile = _profile(sources={"winobias": 1}, demonstrations_file=str(tmp_path / "none.json"))
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    with pytest.raises(ConfigError, match="self_contra_demonstrations.json"):
        family.build_prompts(samples, profile)
    # Zero-shot prompts need no demonstrations.
    zero = _profile(sources={"winobias": 1}, demonstrations_file=str(tmp_path / "none.json"))
    zero.params["settings"] = ["zero_answer"]
    assert len(family.build_prompts(samples, zero)) == len(samples) == 2


def test_winobias_stereotypes_and_splits_are_knobs(wino: Path) -> None:
    both = load_items("winobias", 5, _profile(), profiles.DEFAULT_SEED)
    assert Counter((i.variant["stereotype"], i.variant["source_split"]) for i in both) == {
        ("anti", "test"): 5,
        ("pro", "test"): 5,
    }
    pro_dev = load_items(
        "winobias", 2, _profile(stereotypes=["pro"], splits=["dev"], items="first"), profiles.DEFAULT_SEED
    )
    assert [i.item_id.split(":")[0] for i in pro_dev] == ["pro_dev", "pro_dev"]
    default = load_items("winobias", 2, Profile(name="d", params={}, knobs=Knobs), profiles.DEFAULT_SEED)
    assert {i.variant["stereotype"] for i in default} == {"anti"}
    with pytest.raises(ConfigError, match="stereotypes"):
        load_items("winobias", 2, _profile(stereotypes=["neutral"]), profiles.DEFAULT_SEED)
