"""§7's CoT reads (answer before the reasoning, key-fact coverage) of one response's answer or trace,
and how many tokens its reasoning took.

Why a module of its own: the parser (``parsing.py`` through ``family.parse``) reads only the answer,
which is what the study's comparisons score; a reasoning model's reasoning is in its trace
(``raw.responses.reasoning``), so the same two reads are asked of the trace too, one row per source
(``benchmarks/reasoning_source.py``).  The functions are the parser's own, so an answer row here equals
what ``parse`` put in the answer's detail.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from relreason_dagster.benchmarks import reasoning_source
from relreason_dagster.benchmarks.flenqa import parsing

PROVIDER = "provider"
TOKENIZER = "tokenizer"


def cot_reads(
    source: str, content: str | None, reasoning: str | None, key_sentences: list[str]
) -> dict[str, Any]:
    """``answer_first`` and ``keys_covered`` of the text ``source`` names (a missing trace: the empty
    text, never the answer)."""
    text = reasoning_source.text_of(source, content, reasoning)
    return {"answer_first": parsing.answer_first(text), "keys_covered": parsing.coverage(text, key_sentences)}


def reasoning_tokens(
    provider_count: int | None, trace: str | None, count: Callable[[str], int]
) -> tuple[int | None, str | None]:
    """The response's reasoning tokens and where the number comes from: the provider's count when it
    gave one, else the trace counted with ``count`` (the profile's tokenizer), else none (no thinking
    seen)."""
    if provider_count is not None:
        return int(provider_count), PROVIDER
    if trace and trace.strip():
        return count(trace), TOKENIZER
    return None, None
