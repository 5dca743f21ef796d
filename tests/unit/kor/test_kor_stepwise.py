"""KOR-Bench §6.1 stepwise cipher prompting: the official sub-steps asked one by one, typed, judged.

Needs the reference folder (``RELREASON_REFERENCE_DIR``; skipped without it): the sub-steps are
read from the official ``cipher/subquestions.json`` and rendered with the official zero-shot template.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.kor.family import KorFamily, data_dir
from relreason_dagster.benchmarks.kor.profile_schema import Knobs
from relreason_dagster.benchmarks.kor.stepwise import STEPWISE_TASK, load_subquestions, step_items
from relreason_dagster.errors import ConfigError

REFERENCE = paths.reference_dir() / "korbench"
DATA = REFERENCE / "data"
needs_reference = pytest.mark.skipif(not DATA.is_dir(), reason=f"KOR-Bench reference data not under {DATA}")


@needs_reference
def test_every_sub_step_of_the_official_file_is_an_item() -> None:
    rows = json.loads((DATA / "cipher" / "subquestions.json").read_text(encoding="utf-8"))
    items = step_items(DATA)
    assert len(items) == sum(len(r["steps_details"]) for r in rows)
    assert {f["item_idx"] for _, f in items} == {str(r["idx"]) for r in rows}
    types = Counter(f["step_type"] for _, f in items)
    assert {"Substitution", "Shift", "Mapping", "Rotation", "Partition", "Encoding"} <= set(types)
    first, facts = items[0]
    assert (first.category, first.idx, facts["step"], first.answer) == ("cipher", "1.1", 1, "[[L]]")
    assert first.question == f"{rows[0]['input']}\n\n{rows[0]['steps_details'][0]['description']}"
    assert len(step_items(DATA, ["23"], 1)) == len(
        rows[[r["rule_id"] for r in rows].index("23")]["steps_details"]
    )


@needs_reference
def test_sub_steps_are_asked_zero_shot_with_the_official_template_and_judged() -> None:
    import yaml

    template = yaml.safe_load((REFERENCE / "config" / "prompt" / "zero-shot.yaml").read_text())
    family = KorFamily()
    paper = profiles.get_profile("paper", "kor")
    profile = Profile(
        "p",
        {
            **paper.params,
            "rules": {"cipher": ["1"]},
            "categories": ["cipher"],
            "questions_per_rule": 1,
            "mixed": {},
        },
        knobs=Knobs,
    )
    samples = [s for s in family.generate(profile, 1) if s.task == STEPWISE_TASK]
    assert samples and all(s.split == "official" for s in samples)
    built = family.build_prompts(samples, profile)
    assert {p.setting for p in built} == {"zero_shot"} and len(built) == len(samples)
    by_id = {s.sample_id: s for s in samples}
    for p in built:
        item = by_id[p.sample_id].input["item"]
        assert p.messages[0]["content"] == template["cipher_prompt_format"][0].format(
            item["rule"], item["question"]
        )
        sample = by_id[p.sample_id]
        assert family.parse(sample, p.setting, family.render_gold(sample, p.setting)).correct
        assert family.parse(sample, p.setting, "[[certainly not]]").correct is False


def test_stepwise_needs_the_official_file(tmp_path) -> None:
    (tmp_path / "cipher").mkdir()
    with pytest.raises(ConfigError, match="subquestions.json not found"):
        load_subquestions(tmp_path)
    (tmp_path / "cipher" / "subquestions.json").write_text('{"not": "a list"}', encoding="utf-8")
    with pytest.raises(ConfigError, match="expected a JSON list"):
        load_subquestions(tmp_path)


def test_smoke_profile_does_not_ask_sub_steps() -> None:
    smoke = profiles.get_profile("smoke", "kor")
    assert not smoke.values().stepwise
    if data_dir(smoke).is_dir():
        assert not [s for s in KorFamily().generate(smoke, 1) if s.task == STEPWISE_TASK]
