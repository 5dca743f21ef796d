"""Prompts are deterministic, follow the study's Figure 3/6/2 wording and stay small in smoke."""

from __future__ import annotations

import pytest

from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.registry import FAMILIES, get_family
from relreason_dagster.benchmarks.relational.profile_schema import Knobs
from relreason_dagster.benchmarks.relational.tasks import TASKS
from relreason_dagster.errors import ConfigError
from relreason_dagster.profiles import DEFAULT_SEED, get_profile

FAMILY = get_family("relational")
FIGURE3_ROLE = (
    "You are an agent who determines the relations in a family. I will first show you some examples, "
    "and then I will give you a new question for you to answer. The examples are shown as follows."
)


def _prompts(profile: Profile, seed: int = DEFAULT_SEED):
    samples = FAMILY.generate(profile, seed)
    return samples, FAMILY.build_prompts(samples, profile)


@pytest.fixture(scope="module")
def smoke():
    profile = get_profile("smoke", "relational")
    return (profile, *_prompts(profile))


def _find(prompts, task, setting, split="iid"):
    return next(p for p in prompts if p.task == task and p.setting == setting and p.split == split)


def test_registry():
    assert "relational" in FAMILIES
    family = get_family("relational")
    assert family.name == "relational"
    assert family.tasks == TASKS == (
        "HasFather", "HasSister", "IsGrandparent", "IsUncle", "IsMGUncle",
        "4-Connectivity", "6-Connectivity", "1-Outdegree", "2-Outdegree",
    )  # fmt: skip
    known = "flenqa, kor, relational, selfcontra"
    with pytest.raises(ConfigError, match=rf"unknown benchmark 'nope'; known: {known}$"):
        get_family("nope")


def test_deterministic_for_a_seed(smoke):
    profile, samples, prompts = smoke
    samples2, prompts2 = _prompts(profile)
    assert [s.row() for s in samples] == [s.row() for s in samples2]
    assert [p.row() for p in prompts] == [p.row() for p in prompts2]
    other_samples, _ = _prompts(profile, DEFAULT_SEED + 1)
    assert {s.sample_id for s in samples}.isdisjoint({s.sample_id for s in other_samples})


def test_ids_unique_and_counts(smoke):
    profile, samples, prompts = smoke
    per_task = (
        max(profile.values().n_fewshot, profile.values().n_fewshot_cot)
        + profile.values().n_iid
        + profile.values().n_ood
    )
    assert len(samples) == len(TASKS) * per_task
    assert len({s.sample_id for s in samples}) == len(samples)
    tests = [s for s in samples if s.split in ("iid", "ood")]
    per_split = profile.values().split_settings
    expected = sum(len(per_split.get(s.split, profile.values().settings)) for s in tests)
    assert len(prompts) == expected
    assert len({p.prompt_id for p in prompts}) == len(prompts)
    for p in prompts:
        assert p.max_tokens == profile.values().max_tokens
        assert p.messages[0]["role"] == "user" and len(p.messages) == 1
    for s in samples:
        assert s.n == (profile.values().n_ood_nodes if s.split == "ood" else profile.values().n_train_nodes)


def test_larger_profile_keeps_earlier_samples():
    smoke_samples, _ = _prompts(get_profile("smoke", "relational"))
    paper = get_profile("paper", "relational")
    paper_samples = FAMILY.generate(paper, DEFAULT_SEED)
    assert {s.sample_id for s in smoke_samples} <= {s.sample_id for s in paper_samples}


def test_nl_prompt_has_figure3_phrases(smoke):
    _, samples, prompts = smoke
    text = _find(prompts, "HasSister", "nl").messages[0]["content"]
    assert text.startswith(FIGURE3_ROLE)
    assert (
        "Question: For a family tree containing 10 family members, which is depicted with 4 kinds of " in text
    )
    assert "relations: father, mother, son, daughter. The relations are: P" in text
    assert (
        "For a new relation sister, given the above-given facts, who has the relation sister? "
        "You must give the final answer in this format: Who has sister." in text
    )
    assert "\nAnswer: P" in text and " has sister" in text
    assert "Now this is the question for you to answer.\nQuestion: " in text
    assert text.count("Question: ") == 2  # one example (smoke) plus the test question
    assert "Answer:" not in text.rsplit("Question: ", 1)[1]  # the test question comes without its answer
    uncle = _find(prompts, "IsUncle", "nl", "ood").messages[0]["content"]
    assert "containing 20 family members" in uncle
    assert (
        "who is whose uncle? Please answer by listing all the pairs that satisfied. "
        "You must answer in this format: Who is Whose uncle." in uncle
    )
    graph = _find(prompts, "4-Connectivity", "nl").messages[0]["content"]
    assert "there is an edge between P" in graph and "Who and Who are 4-connected." in graph


def test_cot_and_tv_prompts(smoke):
    _, samples, prompts = smoke
    cot = _find(prompts, "HasSister", "nl_cot").messages[0]["content"]
    assert "You must give the reasoning process and you must give the final answer in this format" in cot
    assert "For P" in cot and ": Since P" in cot and "Therefore, we can derive that P" in cot
    assert "Final answer: P" in cot
    tv = _find(prompts, "HasSister", "tv").messages[0]["content"]
    for name in ("IsFather", "IsMother", "IsSon", "IsDaughter"):
        assert f"\n{name} = [[" in tv
    assert "\nAnswer: HasSister = [" in tv
    tv_graph = _find(prompts, "IsUncle", "tv", "iid").messages[0]["content"]
    assert "a Python list of 10 lists of 10 values" in tv_graph


def test_paper_fewshot_counts():
    paper = get_profile("paper", "relational")
    profile = Profile(name="t", params={**paper.params, "n_iid": 1, "n_ood": 0}, knobs=Knobs)
    samples = FAMILY.generate(profile, 3)
    prompts = FAMILY.build_prompts(samples, profile)
    for p in prompts:
        expected = (paper.values().n_fewshot_cot if p.setting == "nl_cot" else paper.values().n_fewshot) + 1
        assert p.messages[0]["content"].count("Question: ") == expected


def test_smoke_prompts_stay_modest(smoke):
    _, _, prompts = smoke
    tokens = [len(p.messages[0]["content"]) / 4 for p in prompts]
    assert max(tokens) < 3000, max(tokens)


def test_unknown_setting_is_config_error(smoke):
    profile, samples, _ = smoke
    bad = Profile(name="bad", params={**profile.params, "settings": ["nl", "latex"]}, knobs=Knobs)
    with pytest.raises(ConfigError, match="latex"):
        FAMILY.build_prompts(samples, bad)
    with pytest.raises(ConfigError, match="family_tree_variant"):
        FAMILY.generate(
            Profile(name="bad", params={**profile.params, "family_tree_variant": "x"}, knobs=Knobs), 1
        )
