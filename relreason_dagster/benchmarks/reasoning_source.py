"""Which text a family's chain-of-thought analyses read: the answer, the reasoning trace, or both.

Why: for a reasoning model (DeepSeek-R1, the o-series, Qwen3 thinking, gpt-oss) the answer is a short
final statement and the reasoning lives in the trace (``raw.responses.reasoning``), so an analysis of
the answer alone (Self-Contra's judge, FLenQA's fact coverage, relational's symbolic claims check) sees
nothing.  Each family that has such analyses declares the knob ``reasoning_source`` in its ``Knobs``
with :data:`ReasoningSource`; every analysis row carries a ``source`` column (``answer`` or ``trace``)
so the two readings of one response sit side by side in its marts.

``both`` analyses the answer and the trace, each as its own row.  ``auto`` (the default) is ``answer``
for a model none of whose responses has a trace and ``both`` for a model with traces: a model that
does not reason is not given empty trace rows, and one that does is never read on its answer only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

ANSWER = "answer"
TRACE = "trace"
SOURCES = (ANSWER, TRACE)

ReasoningSource = Literal["auto", "answer", "trace", "both"]
DEFAULT: ReasoningSource = "auto"


def sources(setting: str, model_has_traces: bool) -> tuple[str, ...]:
    """The ``source`` values an analysis produces for one model under the knob ``setting``."""
    if setting == ANSWER:
        return (ANSWER,)
    if setting == TRACE:
        return (TRACE,)
    if setting == "both":
        return SOURCES
    if setting == "auto":
        return SOURCES if model_has_traces else (ANSWER,)
    raise ValueError(f"reasoning_source must be auto, answer, trace or both, not {setting!r}")


def text_of(source: str, answer: str | None, trace: str | None) -> str:
    """The text an analysis reads for ``source``: the answer, or the trace ('' when there is none)."""
    if source == ANSWER:
        return answer or ""
    if source == TRACE:
        return trace or ""
    raise ValueError(f"source must be answer or trace, not {source!r}")


def has_traces(traces: Iterable[str | None]) -> bool:
    """Whether any of a model's responses carries a non-empty trace (what ``auto`` decides on)."""
    return any(t and t.strip() for t in traces)
