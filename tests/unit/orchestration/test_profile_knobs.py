"""Every knob reads the same after its default moved from the call sites into the family's model.

``BEFORE`` is data, not a second copy of the defaults: the value each knob had for every built-in
profile and family, and for an ``empty`` section (a profile setting none of the family's knobs, so every
knob at its call-site default), produced by running the old call sites (``profile.get(knob, default)``
with their ``or`` / merge semantics) on the commit before the move (2305b70).  The test reads each knob
the way the family reads it now (an attribute of ``profile.typed(Knobs)``, no default at the call), so a
declared default that differs from the old call site's fails here.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.flenqa.profile_schema import DEFAULT_MAX_TOKENS as FLENQA_MAX_TOKENS
from relreason_dagster.benchmarks.kor import prompts as kor_prompts
from relreason_dagster.benchmarks.kor.family import _max_tokens as kor_max_tokens

BEFORE: dict[str, dict[str, Any]] = {
    "empty/flenqa": {
        "dataset_file": None,  # added with issue 45 (the study's released dataset)
        "generation": None,
        "lengths": [250, 500, 1000, 2000, 3000],
        "max_tokens": {"cot": 1024, "direct": 64, "next_word": 8},
        "minimal": True,
        "n_base": 100,
        "paddings": ["duplicate", "similar", "different"],
        "positions": ["first", "middle", "last", "random"],
        "prose": "python-docs",  # added with issue 56 (the built-in prose, CPython's docs as before)
        "prose_dir": None,
        "reasoning_source": "auto",  # added with issue 47 (answer, trace or both)
        "reading": "relreason",  # added with issue 56 (relreason's, as before the knob)
        "layout": "relreason",  # added with issue 56 (relreason's, as before the knob)
        "samples": 1,
        "settings": ["direct", "cot", "next_word"],
        "tasks": ["MonoRel", "PIR", "Ruletaker"],
        "tokenizer": "smollm2-135m",
    },
    "empty/kor": {
        "categories": ["operation", "logic", "cipher", "puzzle", "counterfactual"],
        "context_tokens": 4096,
        "data_dir": "korbench/data",
        "generated_rules": {},
        "level": 1,
        "max_tokens": {
            "three_shot": 1024,
            "three_shot_only_questions": 1024,
            "trick": 1024,
            "zero_shot": 1024,
            "zero_shot_only_questions": 1024,
        },
        "mixed": {},
        "questions_per_rule": 10,
        "released_dir": None,  # added with the knob (KOR §5: the study's released files)
        "rules": {},
        "samples": 1,
        "self_correction_rounds": 0,
        "settings": ["zero_shot"],
        "settings_by_kind": {},
        "source": "auto",
        "stepwise": False,
    },
    "empty/relational": {
        "dlm_overrides": {},
        "dlm_recipe": None,
        "dlm_recipe_overrides": None,
        "dlm_recipes": None,
        "dlm_seeds": [0],
        "dlm_tasks": None,
        "dlm_train_size": None,
        "family_tree_variant": "study",
        "reasoning_source": "auto",  # added with issue 47 (answer, trace or both)
        "max_tokens": 512,
        "n_fewshot": 10,
        "n_fewshot_cot": 1,
        "n_iid": 10,
        "n_ood": 10,
        "n_ood_nodes": 20,
        "n_train_nodes": 10,
        "samples": 1,
        "settings": ["nl", "nl_cot", "tv"],
        "split_settings": {},
    },
    "empty/selfcontra": {
        "annotation_files": [],
        "annotation_limit": None,
        "data_dir": "wino",
        "demonstrations_file": "wino/self_contra_demonstrations.json",
        "detect_limit": None,
        "detect_settings": None,
        "reasoning_source": "auto",  # added with issue 47 (answer, trace or both)
        "detect_methods": ["iro", "binary", "fge"],
        "generation": None,
        "judge": None,
        "judges": None,  # added with issue 57 (per-method judges)
        "judge_max_tokens": 8,
        "max_tokens": 512,
        "items": "first",
        "prompts": "relreason",
        "wording": "gpt3.5",  # added with issue 57 (each study model worded as the study asked it)
        "s3_model": "mistral",  # added with issue 57 (§3's released files: whose items)
        "s3_winogrande": "wino/winogrande/train_s.jsonl",  # added with issue 57 (§3's WinoGrande file)
        "appendix_probes": [],  # added with issue 57 (App. C-D probes, off unless named)
        "pov_limit": 60,  # added with issue 57 (App. C's POV conversations: at most this many responses)
        "samples": 1,
        "settings": ["zero_answer", "zero_reason", "few_answer", "few_reason"],
        "sources": {"generated": 50},
        "splits": ["test"],
        "stereotypes": ["anti"],
    },
    "paper/flenqa": {
        "dataset_file": "auto",  # added with issue 45 (the study's released dataset)
        "generation": {"temperature": 0, "top_p": 0},
        "lengths": [250, 500, 1000, 2000, 3000],
        "max_tokens": {"cot": 1024, "direct": 64, "next_word": 8},
        "minimal": True,
        "n_base": 100,
        "paddings": ["duplicate", "similar", "different"],
        "positions": ["first", "middle", "last", "random"],
        "prose": "python-docs",  # added with issue 56 (the built-in prose, CPython's docs as before)
        "prose_dir": None,
        "reasoning_source": "auto",  # added with issue 47 (answer, trace or both)
        "reading": "study",  # added with issue 56 (the study's notebook, the paper profile's)
        "layout": "study",  # added with issue 56 (the study's notebook, the paper profile's)
        "samples": 1,
        "settings": ["direct", "cot", "next_word"],
        "tasks": ["MonoRel", "PIR", "Ruletaker"],
        "tokenizer": "smollm2-135m",
    },
    "paper/kor": {
        "categories": ["operation", "logic", "cipher", "puzzle", "counterfactual"],
        "context_tokens": 32768,
        "data_dir": "korbench/data",
        "generated_rules": {},
        "level": 1,
        "max_tokens": {
            "three_shot": 2048,
            "three_shot_only_questions": 2048,
            "trick": 2048,
            "zero_shot": 2048,
            "zero_shot_only_questions": 2048,
        },
        "mixed": {"Multi-Q": 1000, "Multi-R": 1000, "Multi-RQ": 1000},
        "questions_per_rule": 10,
        "released_dir": "korbench/responses",  # added with the knob (KOR §5: the study's released files)
        "rules": {},
        "samples": 1,
        "self_correction_rounds": 5,
        "settings": [
            "zero_shot",
            "three_shot",
            "trick",
            "zero_shot_only_questions",
            "three_shot_only_questions",
        ],
        "settings_by_kind": {
            "base": ["three_shot", "three_shot_only_questions"],
            "chat": ["zero_shot", "trick", "zero_shot_only_questions"],
        },
        "source": "official",
        "stepwise": True,
    },
    "paper/relational": {
        "dlm_overrides": {},
        "dlm_recipe": None,
        "dlm_recipe_overrides": {"study-protocol": {"max_epochs": 10}},
        "dlm_recipes": ["default", "study-protocol"],
        "dlm_seeds": [0, 1, 2],
        "dlm_tasks": None,
        "dlm_train_size": None,
        "family_tree_variant": "study",
        "reasoning_source": "auto",  # added with issue 47 (answer, trace or both)
        "max_tokens": 2048,
        "n_fewshot": 10,
        "n_fewshot_cot": 1,
        "n_iid": 10,
        "n_ood": 10,
        "n_ood_nodes": 20,
        "n_train_nodes": 10,
        "samples": 1,
        "settings": ["nl", "nl_cot", "tv"],
        "split_settings": {},
    },
    "paper/selfcontra": {
        "annotation_files": ["wino/selfcontra_annotations/*.csv"],
        "annotation_limit": None,
        "data_dir": "wino",
        "demonstrations_file": "wino/self_contra_demonstrations.json",
        "detect_limit": None,
        "detect_settings": ["few_answer"],
        "reasoning_source": "auto",  # added with issue 47 (answer, trace or both)
        "detect_methods": ["iro", "binary", "fge"],
        "generation": {"temperature": 0},
        "judge": "selfcontra-judge-gpt-4",  # the study's judges since issue 57 (was smollm2-135m)
        "judges": {  # added with issue 57 (per-method judges, §4.1)
            "binary": "selfcontra-judge-gpt-4-turbo",
            "fge": "selfcontra-judge-gpt-4",
            "iro": "selfcontra-judge-gpt-4",
        },
        "judge_max_tokens": 8,
        "max_tokens": 512,
        "items": "study",
        "prompts": "study",
        "wording": "study",  # added with issue 57 (each study model worded as the study asked it)
        "s3_model": "mistral",  # added with issue 57 (§3's released files: whose items)
        "s3_winogrande": "wino/winogrande/train_s.jsonl",  # added with issue 57 (§3's WinoGrande file)
        "appendix_probes": [],  # added with issue 57 (App. C-D probes, off unless named)
        "pov_limit": 60,  # added with issue 57 (App. C's POV conversations: at most this many responses)
        "samples": 1,
        "settings": ["zero_answer", "zero_reason", "few_answer", "few_reason"],
        "sources": {"winobias": 50, "winogender": 50, "winogrande": 50},
        "splits": ["test"],
        "stereotypes": ["anti", "pro"],
    },
    "smoke/flenqa": {
        "dataset_file": None,  # added with issue 45 (the study's released dataset)
        "generation": None,
        "lengths": [250, 1000],
        "max_tokens": {"cot": 128, "direct": 16, "next_word": 4},
        "minimal": True,
        "n_base": 2,
        "paddings": ["different"],
        "positions": ["random"],
        "prose": "python-docs",  # added with issue 56 (the built-in prose, CPython's docs as before)
        "prose_dir": None,
        "reasoning_source": "auto",  # added with issue 47 (answer, trace or both)
        "reading": "relreason",  # added with issue 56 (relreason's, as before the knob)
        "layout": "relreason",  # added with issue 56 (relreason's, as before the knob)
        "samples": 1,
        "settings": ["direct", "cot", "next_word"],
        "tasks": ["MonoRel", "PIR", "Ruletaker"],
        "tokenizer": "smollm2-135m",
    },
    "smoke/kor": {
        "categories": ["operation", "logic", "cipher", "puzzle", "counterfactual"],
        "context_tokens": 4096,
        "data_dir": "korbench/data",
        "generated_rules": {
            "cipher": ["4"],
            "counterfactual": ["1"],
            "logic": ["1"],
            "operation": ["1"],
            "puzzle": ["10"],
        },
        "level": 1,
        "max_tokens": {
            "three_shot": 96,
            "three_shot_only_questions": 96,
            "trick": 96,
            "zero_shot": 96,
            "zero_shot_only_questions": 96,
        },
        "mixed": {"Multi-Q": 1},
        "questions_per_rule": 1,
        "released_dir": None,  # added with the knob (KOR §5: the study's released files)
        "rules": {
            "cipher": ["23"],
            "counterfactual": ["13"],
            "logic": ["5"],
            "operation": ["17"],
            "puzzle": ["2"],
        },
        "samples": 1,
        "self_correction_rounds": 1,
        "settings": ["zero_shot"],
        "settings_by_kind": {},
        "source": "auto",
        "stepwise": False,
    },
    "smoke/relational": {
        "dlm_overrides": {"max_epochs": 20},
        "dlm_recipe": None,
        "dlm_recipe_overrides": None,
        "dlm_recipes": None,
        "dlm_seeds": [0],
        "dlm_tasks": ["HasFather", "1-Outdegree"],
        "dlm_train_size": 10,
        "family_tree_variant": "study",
        "reasoning_source": "auto",  # added with issue 47 (answer, trace or both)
        "max_tokens": 64,
        "n_fewshot": 1,
        "n_fewshot_cot": 1,
        "n_iid": 1,
        "n_ood": 1,
        "n_ood_nodes": 20,
        "n_train_nodes": 10,
        "samples": 1,
        "settings": ["nl", "nl_cot", "tv"],
        "split_settings": {"iid": ["nl", "nl_cot", "tv"], "ood": ["nl"]},
    },
    "smoke/selfcontra": {
        "annotation_files": [],
        "annotation_limit": None,
        "data_dir": "wino",
        "demonstrations_file": "wino/self_contra_demonstrations.json",
        "detect_limit": 0,
        "detect_settings": None,
        "reasoning_source": "auto",  # added with issue 47 (answer, trace or both)
        "detect_methods": ["fge"],
        "generation": None,
        "judge": "smollm2-135m",
        "judges": None,  # added with issue 57 (per-method judges)
        "judge_max_tokens": 4,
        "max_tokens": 96,
        "items": "first",
        "prompts": "relreason",
        "wording": "gpt3.5",  # added with issue 57 (each study model worded as the study asked it)
        "s3_model": "mistral",  # added with issue 57 (§3's released files: whose items)
        "s3_winogrande": "wino/winogrande/train_s.jsonl",  # added with issue 57 (§3's WinoGrande file)
        "appendix_probes": [],  # added with issue 57 (App. C-D probes, off unless named)
        "pov_limit": 60,  # added with issue 57 (App. C's POV conversations: at most this many responses)
        "samples": 1,
        "settings": ["zero_answer", "few_answer"],
        "sources": {"generated": 4},
        "splits": ["test"],
        "stereotypes": ["anti"],
    },
}


def _now(family: str, knob: str, profile: Profile) -> Any:
    """The knob as the family's code uses it today."""
    if (family, knob) == ("kor", "max_tokens"):  # one cap or one per setting: the cap each setting gets
        return {setting: kor_max_tokens(profile, setting) for setting in kor_prompts.SETTINGS}
    if (family, knob) == ("flenqa", "max_tokens"):  # per setting, on top of the default caps
        return {**FLENQA_MAX_TOKENS, **profile.values().max_tokens}  # type: ignore[attr-defined]
    return profile.values().model_dump()[knob]  # every knob of the snapshot, by its name


@pytest.mark.parametrize("section", sorted(BEFORE))
def test_every_knob_of_every_builtin_profile_reads_as_before(section):
    name, family = section.split("/")
    if name == "empty":
        profile = Profile(name, {}, knobs=profiles.family_knobs(family))
    else:
        profile = profiles.get_profile(name, family)
    now = {knob: _now(family, knob, profile) for knob in BEFORE[section]}
    assert json.loads(json.dumps(now)) == BEFORE[section]


def test_the_snapshot_covers_every_declared_knob():
    """A knob added to a model without a line here would escape the comparison above."""
    for section, knobs in BEFORE.items():
        family = section.split("/")[1]
        assert set(profiles.family_knobs(family).model_fields) == set(knobs), section


def test_a_knob_left_out_reads_as_its_declared_default_and_a_typo_fails_loudly():
    from relreason_dagster.benchmarks.base import FamilyKnobs
    from relreason_dagster.benchmarks.kor.profile_schema import Knobs

    profile = profiles.get_profile("smoke", "kor")
    assert "level" not in profile.params and profile.typed(Knobs).level == 1
    assert isinstance(profile.values(), Knobs)  # shared code's view: the family's own model
    with pytest.raises(AttributeError):
        profile.typed(Knobs).levle  # noqa: B018 - a typo fails at once
    bare = Profile("t", {"level": 2, "samples": 3})  # no model: shared code sees the generic knobs only
    assert type(bare.values()) is FamilyKnobs and bare.values().samples == 3
    assert bare.typed(Knobs).level == 2


def test_null_reads_as_the_declared_default_and_only_set_knobs_are_params():
    from relreason_dagster.benchmarks.kor.profile_schema import Knobs

    kor = profiles.get_profile("smoke", "kor").with_params({"data_dir": None})
    assert kor.typed(Knobs).data_dir == "korbench/data"
    assert "context_tokens" in profiles.get_profile("smoke", "kor").params
    assert "level" not in profiles.get_profile("smoke", "kor").params  # defaults stay out of cache keys


def test_typed_reads_every_knob_as_an_attribute_with_its_declared_default():
    """What family code reads: ``profile.typed(Knobs).n_iid``, never a string name wrapped in a cast."""
    from relreason_dagster.benchmarks.base import Profile
    from relreason_dagster.benchmarks.relational.profile_schema import Knobs

    declared = Knobs()
    knobs = Profile("mine", {"n_iid": 3, "settings": ("nl",), "n_ood": None}).typed(Knobs)
    assert (knobs.n_iid, knobs.settings, knobs.n_ood) == (3, ["nl"], declared.n_ood)
    with pytest.raises(AttributeError):
        knobs.n_idd  # noqa: B018 - a typo fails at once


def test_no_family_code_casts_or_names_a_typed_knob():
    """Each knob is typed as its readers use it: no ``int(...typed(...))`` / ``str(...typed(...))`` and no
    ``Profile.get`` left in the package (a cast would hide a knob typed too loosely)."""
    import re
    from pathlib import Path

    import relreason_dagster

    cast = re.compile(r"(int|str)\(.*typed\(")
    found = [
        f"{path.name}:{number}"
        for path in Path(relreason_dagster.__file__).parent.rglob("*.py")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if cast.search(line) or "profile.get(" in line or "Profile.get" in line
    ]
    assert found == []


def test_generation_is_read_typed_and_only_where_a_family_declares_it():
    from relreason_dagster.benchmarks.base import study_generation

    assert study_generation(profiles.get_profile("paper", "flenqa")) == {"temperature": 0, "top_p": 0}
    assert study_generation(profiles.get_profile("smoke", "flenqa")) is None
    assert study_generation(profiles.get_profile("paper", "kor")) is None  # kor states no decoding
    with pytest.raises(profiles.ConfigError, match=r"p\.kor\.generation: unknown kor knob"):
        profiles._check_section("f.yaml", "p.kor", "kor", {"generation": {"temperature": 0}})


def test_a_null_knob_in_a_file_is_its_default_and_an_unknown_one_still_fails():
    """``data_dir: null`` reads as the declared folder (the knob is ``str`` to its readers, never None);
    a misspelt knob set to null is still an unknown knob, not silently dropped."""
    assert profiles._check_section("f.yaml", "p.kor", "kor", {"data_dir": None}) == {"data_dir": None}
    with pytest.raises(profiles.ConfigError, match=r"p\.kor\.data_dri: unknown kor knob"):
        profiles._check_section("f.yaml", "p.kor", "kor", {"data_dri": None})
    with pytest.raises(profiles.ConfigError, match=r"p\.kor\.data_dir: expected str, got 3"):
        profiles._check_section("f.yaml", "p.kor", "kor", {"data_dir": 3})
