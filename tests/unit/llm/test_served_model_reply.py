"""The served model and fingerprint as the two reply readers take them (issue 55, item 4).

Hand-built replies: a chat.completion body for ``read_body`` and LiteLLM's own ``ModelResponse`` for
``read_reply``, including one whose ``.model`` a router rewrote to the alias after LiteLLM recorded
what the provider said (``_hidden_params["provider_response_model"]``).
"""

from __future__ import annotations

from datetime import datetime

import litellm
import pytest

from relreason_dagster.llm.choices import choice_views, split_usage
from relreason_dagster.llm.draw_plan import Work
from relreason_dagster.llm.replies import Outcome, read_body, read_reply, served_text
from relreason_dagster.llm.response_row import OutcomeRows, ResponseRow, copied_row


def _body(**top) -> dict:
    return {
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "True"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1},
        **top,
    }


def test_the_direct_reader_keeps_the_body_model_and_fingerprint():
    outcome = read_body(_body(model="gpt-x-2025-06-01", system_fingerprint="fp_1a2b"), 0.1, 1)
    assert (outcome.served_model, outcome.system_fingerprint) == ("gpt-x-2025-06-01", "fp_1a2b")
    bare = read_body(_body(), 0.1, 1)
    assert (bare.served_model, bare.system_fingerprint) == (None, None)
    blank = read_body(_body(model="", system_fingerprint=None), 0.1, 1)
    assert (blank.served_model, blank.system_fingerprint) == (None, None)


@pytest.mark.parametrize(
    "value,stored", [(None, None), ("", None), ("  ", None), (True, None), (7, "7"), ("m", "m")]
)
def test_served_text(value, stored):
    assert served_text(value) == stored


def _model_response(model: str | None, fingerprint: str | None = None, n: int = 1) -> litellm.ModelResponse:
    return litellm.ModelResponse(
        model=model,
        system_fingerprint=fingerprint,
        choices=[
            {"index": i, "message": {"role": "assistant", "content": f"answer {i}"}, "finish_reason": "stop"}
            for i in range(n)
        ],
        usage=litellm.Usage(prompt_tokens=4, completion_tokens=2 * n, total_tokens=4 + 2 * n),
    )


def test_the_litellm_reader_prefers_what_the_provider_said_over_a_rewritten_model():
    response = _model_response("snap-1", "fp_9")
    outcome = read_reply(response, 0.1, 1)
    assert (outcome.served_model, outcome.system_fingerprint) == ("snap-1", "fp_9")
    response._hidden_params["provider_response_model"] = "snap-1"
    response.model = "gpt-x"  # what a router does: the alias the client asked for
    assert read_reply(response, 0.1, 1).served_model == "snap-1"
    assert read_reply(_model_response(None), 0.1, 1).served_model is None


def test_each_choice_of_one_reply_keeps_its_served_model():
    """Several draws in one request (``n``) are read one choice at a time, on views of the reply."""
    reply = _model_response("snap-2", "fp_2", n=3)
    reply._hidden_params["provider_response_model"] = "snap-2"
    outcomes = split_usage([read_reply(v, 0.1, 1) for v in choice_views(reply)])
    assert [(o.content, o.served_model, o.system_fingerprint) for o in outcomes] == [
        (f"answer {i}", "snap-2", "fp_2") for i in range(3)
    ]
    body = _body(model="snap-3", system_fingerprint="fp_3")
    body["choices"].append({"index": 1, "message": {"content": "False"}, "finish_reason": "stop"})
    assert {read_body(v, 0.1, 1).served_model for v in choice_views(body)} == {"snap-3"}


def test_rows_carry_it_redacted_and_a_cache_copy_keeps_the_original():
    rows: list[ResponseRow] = []
    maker = OutcomeRows(
        "m", "openai/x", lambda t: None if t is None else t.replace("sk-1", "[k]"), rows.append, "?"
    )
    outcome = Outcome("a", "stop", 3, 2, 0.5, 1, None, served_model="snap-sk-1", system_fingerprint="fp_7")
    maker.store(Work("h", [], {}, ["p1", "p2"]), outcome, {"p1": "kor"}, datetime(2026, 1, 1))
    assert {(r.served_model, r.system_fingerprint) for r in rows} == {("snap-[k]", "fp_7")}
    copy = copied_row("p", "h", rows[0]._asdict(), model="m2", benchmark="kor", created=datetime(2026, 1, 2))
    assert (copy.model, copy.served_model, copy.system_fingerprint) == ("m2", "snap-[k]", "fp_7")
    older = copied_row(
        "p",
        "h",
        {
            "litellm_model": "x",
            "content": "a",
            "finish_reason": None,
            "prompt_tokens": 1,
            "completion_tokens": 1,
            "latency_s": 0.1,
        },
        model="m3",
        benchmark="kor",
        created=datetime(2026, 1, 2),
    )
    assert (older.served_model, older.system_fingerprint) == (None, None)  # a row stored before the columns
