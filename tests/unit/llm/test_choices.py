"""Several draws in one request (``llm/choices.py``): choices read in order, usage divided, ``n`` refusals.

Pure functions on hand-built replies: the request's counts must add up over its draws exactly, the
longer choice must get the larger share, and a refused ``n`` must be told from other refusals.
"""

from __future__ import annotations

from types import SimpleNamespace

from relreason_dagster.llm.choices import _divide, choice_views, refuses_n, split_usage
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.replies import read_body, read_reply

SPEC = ModelEntry(name="m", litellm_model="openai/fake-choices", api_base="http://127.0.0.1:9/v1")


def _body(*texts: str, index_order: list[int] | None = None) -> dict:
    order = index_order or list(range(len(texts)))
    return {
        "choices": [
            {"index": i, "message": {"role": "assistant", "content": texts[i]}, "finish_reason": "stop"}
            for i in order
        ],
        "usage": {
            "prompt_tokens": 11,
            "completion_tokens": 9,
            "completion_tokens_details": {"reasoning_tokens": 4},
        },
    }


def test_choices_are_read_in_index_order_each_like_a_one_choice_reply():
    body = _body("first", "second answer", "third", index_order=[2, 0, 1])
    outcomes = [read_body(v, 0.1, 1, SPEC) for v in choice_views(body)]
    assert [o.content for o in outcomes] == ["first", "second answer", "third"]
    assert all(o.prompt_tokens == 11 and o.completion_tokens == 9 for o in outcomes)


def test_litellm_replies_are_split_the_same_way():
    def choice(i: int, text: str) -> SimpleNamespace:
        return SimpleNamespace(index=i, message=SimpleNamespace(content=text), finish_reason="stop")

    usage = SimpleNamespace(prompt_tokens=5, completion_tokens=6, completion_tokens_details=None)
    reply = SimpleNamespace(choices=[choice(1, "b"), choice(0, "a")], usage=usage)
    outcomes = split_usage([read_reply(v, 0.1, 1, SPEC) for v in choice_views(reply)])
    assert [o.content for o in outcomes] == ["a", "b"]
    assert [o.prompt_tokens for o in outcomes] == [5, 0]
    assert sum(o.completion_tokens for o in outcomes) == 6


def test_usage_is_divided_and_its_totals_kept():
    body = _body("a", "a much longer answer than the first")
    body["choices"][1]["message"]["reasoning_content"] = "thinking it over"
    outcomes = split_usage([read_body(v, 0.1, 1, SPEC) for v in choice_views(body)])
    assert [o.prompt_tokens for o in outcomes] == [11, 0]
    assert sum(o.completion_tokens for o in outcomes) == 9
    assert outcomes[0].completion_tokens < outcomes[1].completion_tokens
    assert [o.reasoning_tokens for o in outcomes] == [0, 4]  # only the second choice thought
    assert split_usage(outcomes[:1]) == outcomes[:1]


def test_divide_is_whole_proportional_and_exact():
    assert _divide(10, [1, 1, 1]) == [4, 3, 3]
    assert _divide(7, [0, 0]) == [4, 3]
    assert _divide(None, [3, 1]) == [None, None]
    for total in range(0, 40):
        parts = _divide(total, [5, 0, 17, 2])
        assert sum(parts) == total and parts[1] == 0


def test_a_refused_n_is_told_from_other_refusals():
    assert refuses_n("Unsupported parameter: 'n' is not supported with this model.")
    assert refuses_n("openai does not support parameters: ['n'], for model=o1")
    assert refuses_n("n must be 1 when using greedy sampling")
    assert not refuses_n("Unsupported parameter: 'top_p' is not supported with this model.")
    assert not refuses_n("Internal error in the model run")
