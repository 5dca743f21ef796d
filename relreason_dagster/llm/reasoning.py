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
"""

from __future__ import annotations

import re

# What a models.yaml entry's ``reasoning`` may say.
THINK_TAGS = "think_tags"
REASONING_MODES = (THINK_TAGS, "none")

_OPEN = re.compile(r"^\s*<think>", re.IGNORECASE)
_CLOSE = re.compile(r"</think>", re.IGNORECASE)


def split_reasoning(content: str, mode: str | None = None) -> tuple[str, str | None]:
    """``(answer, thinking)`` of a reply's text; thinking None when there is none to split off.

    ``mode``: the model entry's ``reasoning`` (None: split only a reply that starts with ``<think>``;
    ``think_tags``: also a reply with only the closing tag; ``none``: never split).  An unclosed
    ``<think>`` (the model spent its ``max_tokens`` thinking) is all thinking and an empty answer.
    """
    if mode == "none" or not content:
        return content, None
    opened = _OPEN.match(content)
    if opened is None and mode != THINK_TAGS:
        return content, None
    start = opened.end() if opened else 0
    close = _CLOSE.search(content, start)
    if close is None:
        if opened is None:
            return content, None
        return "", content[start:].strip()
    return content[close.end() :].lstrip(), content[start : close.start()].strip()
