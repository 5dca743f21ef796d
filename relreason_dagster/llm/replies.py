"""What a 200 reply says: the answer, its thinking, its token counts and its cost, or that it is malformed.

Why a module of its own: providers send the chat-completions reply in more shapes than the protocol
allows (``content: null``, a list of parts, counts that are not numbers, thinking inline or apart);
reading one is a pure function of the reply that the tests call with a hand-built reply.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from relreason_dagster.llm.litellm_overhead import call_cost
from relreason_dagster.llm.provider_errors import MalformedReply
from relreason_dagster.llm.reasoning import reply_mode, split_reasoning
from relreason_dagster.llm.registry import ModelEntry


@dataclass
class Outcome:
    """What became of one request: the answer (or the stored error), its counts, thinking and cost."""

    content: str | None
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float
    attempts: int
    error: str | None
    kind: str | None = None
    reasoning: str | None = None
    reasoning_tokens: int | None = None
    cost_usd: float | None = None
    # The model the provider says answered (the reply's ``model``) and its ``system_fingerprint``;
    # null when the reply names none.  Kept beside the configured name because an alias
    # (``gpt-4o``) moves to a new snapshot without notice, and a re-run would mix two models.
    served_model: str | None = None
    system_fingerprint: str | None = None


def content_text(content: Any) -> str:
    """An answer's text: ``None`` is an empty answer, a list of parts is the text of its parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, (list, tuple)):
        parts = []
        for part in content:
            text = part.get("text") if isinstance(part, dict) else getattr(part, "text", part)
            if text is not None:
                parts.append(text if isinstance(text, str) else json.dumps(text, default=str))
        return "".join(parts)
    return json.dumps(content, default=str)


def token_count(value: Any) -> int | None:
    """A token count as stored (int32), or None when the provider sent something else."""
    if isinstance(value, bool):
        return None
    try:
        count = int(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return count if 0 <= count < 2**31 else None


def served_text(value: Any) -> str | None:
    """A reply's ``model`` or ``system_fingerprint`` as stored: its text, or None when it sent none
    (absent, null, empty or not a name at all)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        value = str(value)
    return value if isinstance(value, str) and value.strip() else None


def served_by(response: Any) -> str | None:
    """The model the provider said answered a LiteLLM ``ModelResponse``.

    LiteLLM (1.110) records the reply's own ``model`` as ``_hidden_params["provider_response_model"]``
    when the call returns, because a router or proxy later rewrites ``.model`` to the alias a client
    asked for; that is read first, ``.model`` otherwise.  For OpenAI-compatible servers, Anthropic
    and Gemini the two are the provider's name; for a provider whose reply carries no model (Bedrock's
    Converse API, Ollama) LiteLLM fills in the requested one, and that is what is stored.
    """
    hidden = getattr(response, "_hidden_params", None)
    carried = (
        hidden.get("provider_response_model")
        if isinstance(hidden, dict)
        else getattr(hidden, "provider_response_model", None)
    )
    return served_text(carried) or served_text(getattr(response, "model", None))


def read_reply(response: Any, latency: float, attempts: int, spec: ModelEntry | None = None) -> Outcome:
    """The outcome of a 200 reply; :class:`MalformedReply` when it carries no message to store.

    ``content: null`` is an empty answer (stored as ``""``); content given as a list of parts
    is stored as the text of its parts; token counts that are not numbers are stored as null.
    A reasoning model's thinking goes to ``reasoning``, never into ``content`` (the answer the
    parsers read): LiteLLM's ``reasoning_content`` when it has one, else a ``<think>`` block
    split off the text (``llm/reasoning.py``).  The served model is :func:`served_by`'s.
    """
    choices = getattr(response, "choices", None)
    if not isinstance(choices, (list, tuple)) or not choices:
        raise MalformedReply(
            "200 reply with no choices" if choices is None else f"200 reply with choices={choices!r:.80}"
        )
    choice = choices[0]
    message = getattr(choice, "message", None)
    if message is None:
        raise MalformedReply("200 reply whose first choice has no message")
    usage = getattr(response, "usage", None)
    details = getattr(usage, "completion_tokens_details", None)
    return _outcome(
        getattr(message, "content", None),
        getattr(message, "reasoning_content", None),
        getattr(choice, "finish_reason", None),
        getattr(usage, "prompt_tokens", None),
        getattr(usage, "completion_tokens", None),
        getattr(details, "reasoning_tokens", None),
        latency,
        attempts,
        spec,
        served_by(response),
        served_text(getattr(response, "system_fingerprint", None)),
    )


# How LiteLLM (1.110) names other servers' finish reasons: these four, every other name (``eos``,
# ``abort``, ``end_turn``, ...) is "stop".  The equivalence test keeps the two transports in step.
_FINISH_NAMES: dict[str, tuple[str, ...]] = {
    "length": (
        "length",
        "max_tokens",
        "MAX_TOKENS",
        "CONTINUATION",
        "compaction",
        "pause_turn",
        "model_context_window_exceeded",
    ),
    "tool_calls": ("tool_calls", "tool_use", "TOOL_CALL"),
    "function_call": ("function_call",),
    "content_filter": (
        "content_filter",
        "content_filtered",
        "refusal",
        "sensitive",
        "guardrail_intervened",
        "ERROR_TOXIC",
        "SAFETY",
        "RECITATION",
        "LANGUAGE",
        "OTHER",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "IMAGE_SAFETY",
        "IMAGE_PROHIBITED_CONTENT",
        "NO_IMAGE",
        "IMAGE_RECITATION",
        "IMAGE_OTHER",
        "ESCALATION",
    ),
}
_FINISH_REASONS = {name: canonical for canonical, names in _FINISH_NAMES.items() for name in names}


# A reply that opens with a thinking block, split as LiteLLM splits it (the block's text kept as sent).
_LEADING_THINKING = re.compile(
    r"<(?:think|thinking|budget:thinking)>(.*?)</(?:think|thinking|budget:thinking)>(.*)", re.DOTALL
)


def read_body(body: Any, latency: float, attempts: int, spec: ModelEntry | None = None) -> Outcome:
    """:func:`read_reply` for the direct transport's parsed JSON body: the same :class:`Outcome`.

    Where LiteLLM normalises a reply before :func:`read_reply` sees it, this does the same: a
    missing or unknown ``finish_reason`` is ``"stop"``, other servers' names for it are mapped as
    LiteLLM maps them, thinking sent as ``reasoning`` (newer vLLM) counts as ``reasoning_content``,
    and a reply that opens with a ``<think>`` block has it split off before ``reasoning.py`` sees
    the text.  The served model and fingerprint are the body's ``model`` and ``system_fingerprint``
    (what LiteLLM keeps of an OpenAI-compatible reply, :func:`served_by`).
    """
    choices = body.get("choices") if isinstance(body, dict) else None
    if not isinstance(body, dict):
        raise MalformedReply(f"200 reply that is not a JSON object: {body!r:.80}")
    if not isinstance(choices, list) or not choices:
        raise MalformedReply(
            "200 reply with no choices" if choices is None else f"200 reply with choices={choices!r:.80}"
        )
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise MalformedReply("200 reply whose first choice has no message")
    usage = body.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    details = usage.get("completion_tokens_details")
    finish = choice.get("finish_reason")
    content = message.get("content")
    # Where LiteLLM finds the thinking: its own field, vLLM's ``reasoning``, else a leading tag block.
    if "reasoning_content" in message:
        reasoning = message["reasoning_content"]
    elif "reasoning" in message:
        reasoning = message["reasoning"]
    else:
        reasoning = None
        tagged = _LEADING_THINKING.match(content) if isinstance(content, str) else None
        if tagged is not None:
            reasoning, content = tagged.group(1), tagged.group(2)
    return _outcome(
        content,
        reasoning,
        _FINISH_REASONS.get(finish, "stop") if isinstance(finish, str) else "stop",
        usage.get("prompt_tokens"),
        usage.get("completion_tokens"),
        details.get("reasoning_tokens") if isinstance(details, dict) else None,
        latency,
        attempts,
        spec,
        served_text(body.get("model")),
        served_text(body.get("system_fingerprint")),
    )


def _outcome(
    raw_content: Any,
    raw_reasoning: Any,
    finish_reason: Any,
    raw_prompt_tokens: Any,
    raw_completion_tokens: Any,
    raw_reasoning_tokens: Any,
    latency: float,
    attempts: int,
    spec: ModelEntry | None,
    served_model: str | None = None,
    system_fingerprint: str | None = None,
) -> Outcome:
    """The stored outcome of a reply's parts, whichever transport read them."""
    content = content_text(raw_content)
    reasoning = content_text(raw_reasoning) if raw_reasoning is not None else None
    mode = reply_mode(spec.reasoning, spec.params, bool(reasoning)) if spec is not None else None
    inline_answer, inline = split_reasoning(content, mode)
    if inline is not None:
        content = inline_answer
        reasoning = inline if not reasoning else f"{reasoning}\n\n{inline}"
    elif reasoning:
        content = content.lstrip()  # LiteLLM's own split of a <think> block leaves its blank lines
    prompt_tokens = token_count(raw_prompt_tokens)
    completion_tokens = token_count(raw_completion_tokens)
    return Outcome(
        content=content,
        finish_reason=None if finish_reason is None else str(finish_reason),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        latency_s=latency,
        attempts=attempts,
        error=None,
        reasoning=reasoning or None,
        reasoning_tokens=token_count(raw_reasoning_tokens),
        cost_usd=call_cost(spec.litellm_model, prompt_tokens, completion_tokens) if spec else None,
        served_model=served_model,
        system_fingerprint=system_fingerprint,
    )
