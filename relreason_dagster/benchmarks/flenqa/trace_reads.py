"""§7's CoT reads (answer before the reasoning, key-fact coverage) of one response's answer or trace.

Why a module of its own: the parser (``parsing.py`` through ``family.parse``) reads only the answer,
which is what the study's comparisons score; a reasoning model's reasoning is in its trace
(``raw.responses.reasoning``), so the same two reads are asked of the trace too, one row per source
(``benchmarks/reasoning_source.py``).  The functions are the parser's own, under the same ``reading``
(the study's notebook's rules or relreason's), so an answer row here equals what ``parse`` put in the
answer's detail.
"""

from __future__ import annotations

from typing import Any

from relreason_dagster.benchmarks import reasoning_source
from relreason_dagster.benchmarks.flenqa import reading as reading_rules


def cot_reads(
    source: str,
    content: str | None,
    reasoning: str | None,
    key_sentences: list[str],
    reading: str = reading_rules.DEFAULT,
) -> dict[str, Any]:
    """``answer_first`` and ``keys_covered`` of the text ``source`` names (a missing trace: the empty
    text, never the answer), by the rules ``reading`` names (``reading.py``)."""
    text = reasoning_source.text_of(source, content, reasoning)
    return {
        "answer_first": reading_rules.answer_first(text, reading),
        "keys_covered": reading_rules.coverage(text, key_sentences, reading),
        "reading": reading,
    }
