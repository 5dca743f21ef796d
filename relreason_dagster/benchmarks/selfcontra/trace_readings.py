"""Which referent a reasoning model's trace reaches, beside the one its answer names.

``selfcontra_trace_readings[model]`` (a step after the model, asking nothing): for every Self-Contra
response of one model, the candidate its reasoning trace (``raw.responses.reasoning``) settles on,
read by :func:`parsing.trace_referent` (the trace's last explicit referent statement), stored beside
the candidate the scored answer names (``raw.parsed_answers``).  ``marts.selfcontra_trace_vs_answer``
counts the responses whose trace reaches one referent and whose answer names the other: a
contradiction the answer alone cannot show.

The trace reading is for that comparison only: it never scores anything, and an answer is never
taken from the thinking (a response whose answer is unreadable stays N/A however clear its trace).
Rows exist only when the knob ``reasoning_source`` reads the trace (``trace``, ``both``, or ``auto``
for a model with traces); a response without a trace is a row with ``has_trace`` false that reaches
nothing.  Reading is a few regular expressions per sentence, so it is redone on every run.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from relreason_dagster.benchmarks import reasoning_source
from relreason_dagster.benchmarks.base import ANSWERS_JOIN, Profile, Reply, Sample, Step, StepRows
from relreason_dagster.benchmarks.selfcontra import parsing
from relreason_dagster.benchmarks.selfcontra.family import BENCHMARK, item_of
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs

RESPONSES_SQL = f"""
SELECT a.prompt_id, a.setting, a.parse_status, a.correct, CAST(a.parsed AS VARCHAR) AS parsed, r.reasoning,
       s.benchmark, s.task, s.sample_id, s.split, s.n, s.variant, s.input, s.gold, s.label,
       s.seed, s.generator_version
{ANSWERS_JOIN}
WHERE a.model = ? AND a.benchmark = ? AND r.error IS NULL
ORDER BY a.prompt_id
"""


def _answer_index(row: dict[str, Any]) -> int | None:
    """The candidate index the scored answer names (None when it is N/A)."""
    if row["parse_status"] != "ok" or row["parsed"] is None:
        return None
    value = json.loads(row["parsed"])
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def reading(row: dict[str, Any], model: str) -> dict[str, Any]:
    """One response's ``raw.selfcontra_trace_readings`` row."""
    item = item_of(Sample.from_row(row))
    trace = row.get("reasoning") or ""
    has_trace = bool(trace.strip())
    index = parsing.trace_referent(trace, item) if has_trace else None
    answer = _answer_index(row)
    return {
        "prompt_id": row["prompt_id"],
        "model": model,
        "dataset": row["task"],
        "setting": row["setting"],
        "has_trace": has_trace,
        "trace_index": index,
        "trace_referent": None if index is None else item.candidates[index],
        "trace_correct": None if index is None else index == item.gold,
        "answer_index": answer,
        "answer_status": row["parse_status"],
        "correct": None if answer is None else bool(row["correct"]),
    }


class TraceReadings(Step):
    """The referent each Self-Contra response's trace reaches, beside its answer's (no model asked)."""

    name = "selfcontra_trace_readings"
    description = (
        "The referent each Self-Contra response's reasoning trace reaches, beside the one its answer "
        "names (raw.selfcontra_trace_readings; read only, never scored)."
    )
    table = "selfcontra_trace_readings"
    stage = "per_model"

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        return {"responses": (RESPONSES_SQL, [model, BENCHMARK])}

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        responses = stored["responses"]
        has_traces = reasoning_source.has_traces(r.get("reasoning") for r in responses)
        reads_trace = reasoning_source.TRACE in reasoning_source.sources(
            profile.typed(Knobs).reasoning_source, has_traces
        )
        rows = [reading(r, model) for r in responses] if reads_trace else []
        found = Counter(
            "no_trace" if not r["has_trace"] else ("none" if r["trace_index"] is None else "referent")
            for r in rows
        )
        return StepRows(
            rows=rows,
            replace_where="model = ?",
            replace_params=[model],
            summary={"responses": len(responses), "rows": len(rows), **dict(sorted(found.items()))},
        )
