"""Recognising a provider's refusal of a generation parameter (llm/rejected_params.py)."""

from __future__ import annotations

import litellm
import pytest

from relreason_dagster.llm import rejected_params
from relreason_dagster.llm.provider_errors import classify_error


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Error code: 400 - Unsupported parameter: 'top_p' is not supported with this model.", ["top_p"]),
        (
            "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) "
            "value is supported.",
            ["temperature"],
        ),
        ("`temperature` and `top_p` cannot both be specified for this model.", ["temperature", "top_p"]),
        ("Unrecognized request argument supplied: top_k", ["top_k"]),
        ("Incorrect API key provided", []),
        ("This model's maximum context length is 4096 tokens", []),
    ],
)
def test_refused_names_are_read_off_the_providers_text(text, names):
    assert rejected_params.rejected_params(text) == names


def test_litellms_own_refusal_is_recognised():
    """LiteLLM refuses before sending (UnsupportedParamsError, a 400 BadRequestError)."""
    exc = litellm.UnsupportedParamsError(
        message="openai does not support parameters: ['top_p', 'seed'], for model=o1. To drop these, "
        "set `litellm.drop_params=True`",
        llm_provider="openai",
        model="o1",
    )
    kind, retryable = classify_error(exc)
    assert (kind, retryable) == ("bad_request", False)
    assert rejected_params.rejected_params(str(exc)) == ["top_p", "seed"]
    new_kind, error = rejected_params.relabel(
        kind, "bad_request: ...", str(exc), "o1", {"seed": 1}, {"top_p": 0}
    )
    assert new_kind == rejected_params.KIND
    assert error.startswith("rejected_param: model 'o1' rejected the generation parameters 'top_p', 'seed': ")
    assert "`generation` knob sends top_p=0" in error and "remove seed from the params of model 'o1'" in error


def test_where_the_param_came_from():
    msg = "Unsupported parameter: 'temperature' is not supported with this model."
    model = {"temperature": 0.7}
    # The model's own value went out: models.yaml.
    assert "in models.yaml" in rejected_params.explain(msg, "m", model, {"temperature": 0.7})
    # The profile's value won over the model's: the profile.
    assert "`generation` knob sends temperature=0" in rejected_params.explain(
        msg, "m", model, {"temperature": 0}
    )
    # Nobody set it (a provider default): say so.
    assert "neither models.yaml nor the profile" in rejected_params.explain(msg, "m", {}, {})
    limit = (
        "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens'"
    )
    assert "answer budget" in rejected_params.explain(limit, "m", {}, {"max_tokens": 64})
    assert rejected_params.explain("rate limited", "m", model, model) is None
    assert rejected_params.relabel("rate_limit", "rate_limit: x", "rate limited", "m", {}, {}) == (
        "rate_limit",
        "rate_limit: x",
    )
