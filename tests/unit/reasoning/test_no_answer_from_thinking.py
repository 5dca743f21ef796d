"""No answer is taken from the thinking (issue 47, item 5; acceptance 4).

A scripted reasoning model (hand-built replies, named as such) whose ``<think>`` never closes and whose
thinking holds each family's gold answer, rendered as the family's own parser reads it: read by both
transports' reply readers and parsed by the pipeline's ``parse_response_row``, every answer of every
family (KOR, FLenQA, Self-Contra, relational) is N/A and none is correct.  The control reads the same
thinking as if it were the answer and finds it right, so the N/A is the rule at work, not an
unreadable script.
"""

from __future__ import annotations

from types import SimpleNamespace as Obj
from typing import Any

import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.llm.reasoning import reply_mode, split_reasoning, thinking_disabled
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.replies import read_body, read_reply
from relreason_dagster.storage.parsed_answers import incomplete_answer, parse_response_row

FAMILIES = ("kor", "flenqa", "selfcontra", "relational")
PER_FAMILY = 6  # prompts per family: enough to cover its settings at the smoke profile's first samples


def _prompts(name: str) -> list[tuple[Any, Any]]:
    family = get_family(name)
    profile = profiles.get_profile("smoke", name)
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    prompts = family.build_prompts(samples, profile)
    settings: dict[str, list[Any]] = {}
    for p in prompts:
        settings.setdefault(p.setting, []).append(p)
    picked = [p for group in settings.values() for p in group[:2]][:PER_FAMILY]
    return [(p, by_id[p.sample_id]) for p in picked]


def _row(prompt: Any, sample: Any, content: str, reasoning: str | None, finish: str | None) -> dict[str, Any]:
    return {
        **sample.row(),
        "prompt_id": prompt.prompt_id,
        "setting": prompt.setting,
        "content": content,
        "error": None,
        "reasoning": reasoning,
        "finish_reason": finish,
    }


def _reads(thinking: str, spec: ModelEntry) -> list[tuple[str | None, str | None, str | None]]:
    """``(content, reasoning, finish_reason)`` of the unclosed block as each transport reads it."""
    opened = f"<think>\nLet me work it out.\n{thinking}"
    body = {"choices": [{"message": {"content": opened}, "finish_reason": "length"}], "usage": {}}
    litellm = Obj(choices=[Obj(message=Obj(content=opened), finish_reason="length")], usage=None)
    # A think_tags model: the template opened the block, the reply has neither tag.
    tagged = ModelEntry(name="t", litellm_model="openai/t", reasoning="think_tags")
    template = {"choices": [{"message": {"content": thinking}, "finish_reason": "length"}], "usage": {}}
    # The thinking in its own field and no answer at all (content null): an o-series cut at max_tokens.
    message = {"content": None, "reasoning_content": thinking}
    field = {"choices": [{"message": message, "finish_reason": "stop"}]}
    outcomes = [
        read_body(body, 0.1, 1, spec),
        read_reply(litellm, 0.1, 1, spec),
        read_body(template, 0.1, 1, tagged),
        read_body(field, 0.1, 1, spec),
    ]
    return [(o.content, o.reasoning, o.finish_reason) for o in outcomes]


@pytest.mark.parametrize("name", FAMILIES)
def test_an_unclosed_think_holding_the_gold_answer_is_na_on_every_family(name):
    family = get_family(name)
    spec = ModelEntry(name="scripted-unclosed", litellm_model="openai/scripted-unclosed")
    statuses: set[str] = set()
    checked = 0
    for prompt, sample in _prompts(name):
        gold = family.render_gold(sample, prompt.setting)
        # Control: the thinking, read as an answer, is right (a valid-looking answer for this family).
        assert family.parse(sample, prompt.setting, gold).correct, (name, prompt.setting)
        for content, reasoning, finish in _reads(gold, spec):
            assert content == "" and reasoning and gold.strip() in reasoning
            row = parse_response_row("scripted-unclosed", _row(prompt, sample, content, reasoning, finish))
            assert row["parse_status"] == "na" and row["correct"] is False, (name, prompt.setting, row)
            assert "incomplete" in row["detail"]
            statuses.add(row["parse_status"])
            checked += 1
    assert checked >= 4 and statuses == {"na"}


def test_an_answer_after_a_closed_block_is_still_parsed():
    family = get_family("flenqa")
    prompt, sample = _prompts("flenqa")[0]
    gold = family.render_gold(sample, prompt.setting)
    outcome = read_body(
        {"choices": [{"message": {"content": f"<think>maybe not</think>\n{gold}"}, "finish_reason": "stop"}]},
        0.1,
        1,
    )
    read = (outcome.content, outcome.reasoning, outcome.finish_reason)
    row = parse_response_row("m", _row(prompt, sample, *read))
    assert row["parse_status"] == "ok" and row["correct"] is True


@pytest.mark.parametrize(
    ("content", "reasoning", "finish", "incomplete"),
    [
        ("", "thinking", "stop", True),  # all reasoning
        ("  \n", "thinking", "length", True),
        ("", None, "length", True),  # cut at max_tokens before a word of answer
        ("", None, "stop", False),  # an empty answer the model chose: the family says what it is
        ("True", "thinking", "length", False),  # an answer after the thinking, however cut: parsed
        (None, "", None, False),
    ],
)
def test_incomplete_answer(content, reasoning, finish, incomplete):
    assert (incomplete_answer(content, reasoning, finish) is not None) is incomplete


@pytest.mark.parametrize(
    ("params", "disabled"),
    [
        ({}, False),
        ({"chat_template_kwargs": {"enable_thinking": False}}, True),
        ({"chat_template_kwargs": {"enable_thinking": True}}, False),
        ({"extra_body": {"chat_template_kwargs": {"enable_thinking": False}}}, True),
        ({"extra_body": "not a mapping"}, False),
    ],
)
def test_thinking_switched_off_in_params(params, disabled):
    assert thinking_disabled(params) is disabled
    assert reply_mode("think_tags", params) == (None if disabled else "think_tags")
    assert reply_mode(None, params) is None


def test_a_think_tags_model_with_thinking_off_keeps_its_plain_answer():
    """With ``enable_thinking: false`` the template opens no block: the plain reply is the answer."""
    off = ModelEntry(
        name="q",
        litellm_model="openai/q",
        reasoning="think_tags",
        params={"chat_template_kwargs": {"enable_thinking": False}},
    )
    on = ModelEntry(name="q", litellm_model="openai/q", reasoning="think_tags")
    body = {"choices": [{"message": {"content": "True"}, "finish_reason": "stop"}]}
    assert (read_body(body, 0.1, 1, off).content, read_body(body, 0.1, 1, off).reasoning) == ("True", None)
    assert (read_body(body, 0.1, 1, on).content, read_body(body, 0.1, 1, on).reasoning) == ("", "True")
    assert split_reasoning("True", "think_tags") == ("", "True")


def test_a_think_tags_model_whose_server_split_the_thinking_keeps_its_answer():
    """A reasoning parser on the server (vLLM, SGLang) sends the thinking apart: the text is the answer."""
    tagged = ModelEntry(name="q", litellm_model="openai/q", reasoning="think_tags")
    body = {"choices": [{"message": {"content": "True", "reasoning_content": "hm"}, "finish_reason": "stop"}]}
    outcome = read_body(body, 0.1, 1, tagged)
    assert (outcome.content, outcome.reasoning) == ("True", "hm")
    assert reply_mode("think_tags", {}, split_by_server=True) is None
