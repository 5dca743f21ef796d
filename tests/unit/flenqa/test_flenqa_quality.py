"""The FLenQA data-quality suites (real Great Expectations validations) pass on generated data
and fail on deliberately broken copies: an unbalanced cell, a wrongly padded text, a similar
padding paragraph that names the instance's own entities.

The frames are built the way the Dagster asset checks build them from DuckDB
(``relreason_dagster/defs/checks.py``), from the smoke profile plus a small slice with
*similar* padding; prompt token counts are exact (the local model's tokenizer).
"""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

from data_quality import suites
from relreason_dagster import profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.flenqa.checks import padding_entities
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.flenqa.profile_schema import Knobs
from relreason_dagster.common.tokenizer import DEFAULT_TOKENIZER, count_tokens


@pytest.fixture(scope="module")
def data():
    family = FlenqaFamily()
    smoke = profiles.get_profile("smoke", "flenqa")
    profile = Profile(
        "quality",
        {
            **smoke.params,
            "lengths": [500, 1000],
            "paddings": ["similar", "different"],
            "positions": ["random"],
        },
        knobs=Knobs,
    )
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    prompts = family.build_prompts(samples, profile)
    return family, profile, samples, prompts


def _sample_frame(samples) -> pd.DataFrame:
    rows = [s.row() for s in samples]
    df = pd.DataFrame(rows)
    df["cell"] = [json.loads(r["variant"]).get("cell") for r in rows]
    df["padding"] = [json.loads(r["variant"]).get("padding") for r in rows]
    return df


def _prompt_frame(prompts) -> pd.DataFrame:
    rows = []
    for p in prompts:
        row = p.row()
        row["input_tokens"] = count_tokens(p.messages)
        row["tokenizer"] = DEFAULT_TOKENIZER
        rows.append(row)
    return pd.DataFrame(rows)


def test_label_balance_passes_and_fails_on_an_unbalanced_cell(data):
    _, _, samples, _ = data
    df = _sample_frame(samples)
    good = suites.label_balance(df[["benchmark", "task", "split", "gold_pos", "n_cells", "cell"]])
    assert good.success, good.failures
    assert good.checked == df.groupby(["task", "cell"]).ngroups
    # Drop one False sample of one cell: that cell is 1/1 True, the rest stay 50/50.
    victim = df[(~df["label"].astype(bool)) & (df["cell"] == "1000/similar/random")].index[0]
    broken = suites.label_balance(
        df.drop(index=victim)[["benchmark", "task", "split", "gold_pos", "n_cells", "cell"]]
    )
    assert not broken.success
    assert [(f["task"], f["cell"]) for f in broken.failures] == [
        (df.loc[victim, "task"], "1000/similar/random")
    ]


def test_token_targets_pass_and_fail_on_a_wrongly_padded_copy(data):
    family, profile, samples, prompts = data
    df = _prompt_frame(prompts)
    good = suites.token_targets(df)
    assert good.success, good.failures
    assert good.checked == int(df["target_tokens"].notna().sum()) > 0
    # A wrongly padded copy: one 1000-token sample padded with 30% more text than its target.
    victim = next(s for s in samples if s.variant["length"] == 1000)
    extra = " ".join(victim.input["paragraphs"])[: len(" ".join(victim.input["paragraphs"])) * 3 // 10]
    padded = dataclasses.replace(
        victim, input={**victim.input, "paragraphs": [*victim.input["paragraphs"], extra]}
    )
    bad_prompts = family.build_prompts([padded], profile)
    broken = suites.token_targets(pd.concat([df, _prompt_frame(bad_prompts)], ignore_index=True))
    assert not broken.success
    assert {f["prompt_id"] for f in broken.failures} == {p.prompt_id for p in bad_prompts}


def test_key_text_over_target_is_exempt_not_failing(data):
    _, _, _, prompts = data
    df = _prompt_frame(prompts)
    row = df[df["target_tokens"].notna()].index[0]
    df.loc[row, "input_tokens"] = df.loc[row, "target_tokens"] * 2
    assert not suites.token_targets(df).success
    df.loc[row, "target_exempt"] = True
    result = suites.token_targets(df)
    assert result.success and "1 exempt" in result.name


def test_similar_padding_entities_pass_and_fail_when_an_entity_leaks(data):
    _, _, samples, _ = data
    df = _sample_frame(samples)
    similar = df[df["padding"] == "similar"][["sample_id", "task", "padding", "input"]].reset_index(drop=True)
    assert len(similar) > 0
    good = padding_entities(similar)
    assert good.success, good.failures
    # Leak: a padding paragraph that names the instance's first entity.
    data0 = json.loads(similar.loc[0, "input"])
    name = data0["entities"][0]
    pad_index = next(i for i in range(len(data0["paragraphs"])) if i not in data0["key_index"])
    data0["paragraphs"][pad_index] += f" Later that day {name} went home."
    leaked = similar.copy()
    leaked.loc[0, "input"] = json.dumps(data0)
    broken = padding_entities(leaked)
    assert not broken.success
    assert [f["sample_id"] for f in broken.failures] == [similar.loc[0, "sample_id"]]
