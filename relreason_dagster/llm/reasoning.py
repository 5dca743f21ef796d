"""A reasoning model's thinking, kept apart from its answer.

Reasoning models hand their thinking over in one of two ways: a field of its own (LiteLLM's
``message.reasoning_content``, with ``usage.completion_tokens_details.reasoning_tokens``: OpenAI
o-series, DeepSeek's API, Claude's extended thinking) or inline, as a ``<think>…</think>`` block before
the answer (DeepSeek-R1 and its distillations, Qwen3 served raw).  Every family's parser reads a window
of the answer's text, so thinking left inline would be parsed as the answer: a "true" weighed in the
thinking could become FLenQA's verdict.  :func:`split_reasoning` is the one place that separates them.

Why both a default and a model-entry switch: a reply that *starts* with ``<think>`` is unambiguous and is
split for every model.  A chat template that opens the ``<think>`` block inside the prompt (Qwen3's,
some R1 distillations') leaves only the closing ``</think>`` in the reply; that is split only for a
model whose entry says ``reasoning: think_tags``, since elsewhere a stray ``</think>`` is just text.

No answer is ever taken from the thinking (issue 47, item 5; the false positives lighteval issue 869 and
lm-evaluation-harness's ``think_end_token`` had to fix): a block that never closes (the model spent its
``max_tokens`` thinking) is all thinking and an empty answer, both when the reply opened it and, for a
``think_tags`` model, when the template did (no ``</think>`` in the reply at all).  An empty answer beside
a trace is an incomplete answer, and ``storage/parsed_answers.py`` scores it N/A without asking the
family's parser.  A ``think_tags`` model whose params switch thinking off (a chat template's
``enable_thinking: false``, as Qwen3's reads it) gets no opened block from its template, so its reply is
read as for a model without the switch.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

# What a models.yaml entry's ``reasoning`` may say.
THINK_TAGS = "think_tags"
REASONING_MODES = (THINK_TAGS, "none")

_OPEN = re.compile(r"^\s*<think>", re.IGNORECASE)
_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def split_reasoning(content: str, mode: str | None = None) -> tuple[str, str | None]:
    """``(answer, thinking)`` of a reply's text; thinking None when there is none to split off.

    ``mode``: the model entry's ``reasoning`` (None: split only a reply that starts with ``<think>``;
    ``think_tags``: the template opened the block, so the reply is thinking up to its ``</think>``;
    ``none``: never split).  A block that never closes (the model spent its ``max_tokens`` thinking)
    is all thinking and an empty answer: for ``think_tags`` that is a reply with no ``</think>``.
    """
    if mode == "none" or not content:
        return content, None
    opened = _OPEN.match(content)
    if opened is None and mode != THINK_TAGS:
        return content, None
    start = opened.end() if opened else 0
    close = _CLOSE.search(content, start)
    if close is None:  # opened (by the reply or by the template) and never closed: no answer
        return "", content[start:].strip()
    return content[close.end() :].lstrip(), content[start : close.start()].strip()


def thinking_disabled(params: Mapping[str, Any]) -> bool:
    """Whether a model's params switch a chat template's thinking off (``enable_thinking: false`` in
    ``chat_template_kwargs``, at the top level or inside ``extra_body``, as vLLM and SGLang read it)."""
    for holder in (params, params.get("extra_body")):
        kwargs = holder.get("chat_template_kwargs") if isinstance(holder, Mapping) else None
        if isinstance(kwargs, Mapping) and kwargs.get("enable_thinking") is False:
            return True
    return False


# Generation params that ask a model to think (LiteLLM's names: OpenAI's and Gemini's
# ``reasoning_effort``, Anthropic's ``thinking``, OpenRouter's and the Responses API's ``reasoning``);
# what reads them: the registry's long default timeout for a reasoning entry.
REASONING_PARAMS = ("reasoning_effort", "thinking", "reasoning")
# Values of those params that ask for no thinking at all.
_NO_THINKING = ("none", "disabled", "off")


def asks_thinking(params: Mapping[str, Any]) -> bool:
    """Whether a model's params turn its thinking on: a :data:`REASONING_PARAMS` key whose value is not
    "none" / ``{"type": "disabled"}`` / false, or a chat template's ``enable_thinking: true``."""
    for key in REASONING_PARAMS:
        if key not in params:
            continue
        value = params[key]
        if isinstance(value, Mapping):
            value = value.get("type", value.get("effort", True))
        if value is None or value is False or (isinstance(value, str) and value.lower() in _NO_THINKING):
            continue
        return True
    for holder in (params, params.get("extra_body")):
        kwargs = holder.get("chat_template_kwargs") if isinstance(holder, Mapping) else None
        if isinstance(kwargs, Mapping) and kwargs.get("enable_thinking") is True:
            return True
    return False


def reply_mode(mode: str | None, params: Mapping[str, Any], split_by_server: bool = False) -> str | None:
    """The split mode a reply's text is read with: ``think_tags`` only while the template opens the
    block in the text.  Not when the entry turns thinking off (its replies have no block), nor when the
    server already sent the thinking in a field of its own (a vLLM or SGLang reasoning parser split it
    off: the text left is the answer); both are read as for no mode."""
    if mode == THINK_TAGS and (split_by_server or thinking_disabled(params)):
        return None
    return mode
