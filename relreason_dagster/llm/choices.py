"""Several draws in one request (the OpenAI API's ``n``): one stored outcome per choice, usage split.

Why a module of its own: a model entry with ``n: N`` asks up to N draws of a prompt in one request
(``draw_plan.bundle``), and the reply's choices must become rows that look exactly like rows of
single-draw requests, each with its own ``sample_index`` and counts.  A provider reports usage per
request, not per choice, so the counts are divided here, one rule for both transports:

* ``prompt_tokens`` and ``cost_usd`` go to the request's first draw, 0 to the others: the prompt is
  read and paid once (the rule rows of identical prompts answered by one request already follow
  for cost), so summing a column over rows gives what the provider counted and charged;
* ``completion_tokens`` and ``reasoning_tokens`` are divided among the draws in proportion to each
  choice's text (answer plus thinking characters, thinking characters for reasoning tokens), whole
  tokens by largest remainder, evenly when there is no text: each draw's count follows its own
  length (what accuracy against reasoning tokens reads), and the request's totals are kept exactly.

A reply is read one choice at a time by the transport's own reader (``replies.read_body`` /
``read_reply``) on a view of the reply that holds only that choice, so a choice is read exactly as a
single-draw reply is.  A provider that refuses ``n`` (:func:`refuses_n`) or answers fewer choices
than asked is then asked one draw per request (the gateway's fallback).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any

from relreason_dagster.llm.rejected_params import rejected_params
from relreason_dagster.llm.replies import Outcome

# Wordings of a refused ``n`` that rejected_params.py does not parse (servers that allow n = 1 only).
_N_REFUSED = re.compile(
    r"(?:^|[^\w.])['\"`]?n['\"`]?\s+(?:must be 1|must be equal to 1|should be 1|is not supported|"
    r"can only be 1|> ?1 is not supported)|only n ?= ?1|\bn > 1\b.{0,40}not supported",
    re.IGNORECASE,
)


def refuses_n(text: str) -> bool:
    """Whether a provider's error ``text`` says it refused the ``n`` parameter (several choices)."""
    return "n" in rejected_params(text) or bool(_N_REFUSED.search(text))


def choice_views(reply: Any) -> list[Any]:
    """The reply as single-choice replies, in choice ``index`` order (each read like a one-draw reply).

    A reply without a non-empty list of choices is returned as it is, so its reader raises the
    malformed-reply error it raises for one draw.
    """
    if isinstance(reply, dict):
        choices = reply.get("choices")
        if not isinstance(choices, list) or not choices:
            return [reply]
        ordered = _by_index(choices, lambda c: c.get("index") if isinstance(c, dict) else None)
        return [{**reply, "choices": [c]} for c in ordered]
    choices = getattr(reply, "choices", None)
    if not isinstance(choices, (list, tuple)) or not choices:
        return [reply]
    usage = getattr(reply, "usage", None)
    ordered = _by_index(list(choices), lambda c: getattr(c, "index", None))
    # What the reader takes from the reply beside its choice: the usage and who served it.
    shared = {
        "usage": usage,
        "model": getattr(reply, "model", None),
        "system_fingerprint": getattr(reply, "system_fingerprint", None),
        "_hidden_params": getattr(reply, "_hidden_params", None),
    }
    return [SimpleNamespace(choices=[c], **shared) for c in ordered]


def _by_index(choices: list[Any], index: Callable[[Any], Any]) -> list[Any]:
    """Choices sorted by their ``index`` when every one has an integer index, else as sent."""
    keys = [index(c) for c in choices]
    if all(isinstance(k, int) and not isinstance(k, bool) for k in keys):
        return [c for _, c in sorted(zip(keys, choices, strict=True), key=lambda pair: pair[0])]
    return choices


def split_usage(outcomes: Sequence[Outcome]) -> list[Outcome]:
    """The outcomes of one request's choices with its usage divided among them (module docstring).

    Each outcome arrives with the request's whole counts and cost (read from a one-choice view).
    """
    if len(outcomes) <= 1:
        return list(outcomes)
    first = outcomes[0]
    answer_chars = [len(o.content or "") + len(o.reasoning or "") for o in outcomes]
    thinking_chars = [len(o.reasoning or "") for o in outcomes]
    completion = _divide(first.completion_tokens, answer_chars)
    reasoning = _divide(first.reasoning_tokens, thinking_chars)
    out = []
    for i, o in enumerate(outcomes):
        out.append(
            dataclasses.replace(
                o,
                prompt_tokens=o.prompt_tokens if i == 0 or o.prompt_tokens is None else 0,
                completion_tokens=completion[i],
                reasoning_tokens=reasoning[i],
                cost_usd=o.cost_usd if i == 0 or o.cost_usd is None else 0.0,
            )
        )
    return out


def _divide(total: int | None, weights: Sequence[int]) -> list[int | None]:
    """``total`` in whole parts proportional to ``weights`` (largest remainder; equal parts when every
    weight is 0); the parts add up to ``total``.  None stays None for every part."""
    if total is None:
        return [None] * len(weights)
    if sum(weights) <= 0:
        weights = [1] * len(weights)
    whole = sum(weights)
    exact = [total * w / whole for w in weights]
    parts = [int(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - parts[i]), i))
    for i in order[: total - sum(parts)]:
        parts[i] += 1
    return list(parts)
