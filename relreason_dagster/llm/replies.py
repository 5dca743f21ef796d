"""What a 200 reply says: the answer, its thinking, its token counts and its cost, or that it is malformed.

Why a module of its own: providers send the chat-completions reply in more shapes than the protocol
allows (``content: null``, a list of parts, counts that are not numbers, thinking inline or apart);
reading one is a pure function of the reply that the tests call with a hand-built reply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from relreason_dagster.llm.litellm_overhead import call_cost
from relreason_dagster.llm.provider_errors import MalformedReply
from relreason_dagster.llm.reasoning import split_reasoning
from relreason_dagster.llm.registry import ModelSpec


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


def read_reply(response: Any, latency: float, attempts: int, spec: ModelSpec | None = None) -> Outcome:
    """The outcome of a 200 reply; :class:`MalformedReply` when it carries no message to store.

    ``content: null`` is an empty answer (stored as ``""``); content given as a list of parts
    is stored as the text of its parts; token counts that are not numbers are stored as null.
    A reasoning model's thinking goes to ``reasoning``, never into ``content`` (the answer the
    parsers read): LiteLLM's ``reasoning_content`` when it has one, else a ``<think>`` block
    split off the text (``llm/reasoning.py``).
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
    finish_reason = getattr(choice, "finish_reason", None)
    content = content_text(getattr(message, "content", None))
    reasoning = getattr(message, "reasoning_content", None)
    reasoning = content_text(reasoning) if reasoning is not None else None
    inline_answer, inline = split_reasoning(content, spec.reasoning if spec is not None else None)
    if inline is not None:
        content = inline_answer
        reasoning = inline if not reasoning else f"{reasoning}\n\n{inline}"
    elif reasoning:
        content = content.lstrip()  # LiteLLM's own split of a <think> block leaves its blank lines
    details = getattr(usage, "completion_tokens_details", None)
    prompt_tokens = token_count(getattr(usage, "prompt_tokens", None))
    completion_tokens = token_count(getattr(usage, "completion_tokens", None))
    return Outcome(
        content=content,
        finish_reason=None if finish_reason is None else str(finish_reason),
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        latency_s=latency,
        attempts=attempts,
        error=None,
        reasoning=reasoning or None,
        reasoning_tokens=token_count(getattr(details, "reasoning_tokens", None)),
        cost_usd=call_cost(spec.litellm_model, prompt_tokens, completion_tokens) if spec else None,
    )
