"""The FLenQA step after the models: §7's CoT reads of each response's answer and reasoning trace.

``flenqa_trace_reads[model]``: for every FLenQA true/false response (direct and CoT prompts) of one
model, one ``raw.flenqa_trace_reads`` row per source the profile's ``reasoning_source`` gives that
model (``auto``: the answer only for a model without traces, answer and trace for one with them):
whether the text states true/false before its reasoning and how many key sentences it reproduces, by
the rules the sample's ``variant.reading`` names (the profile's ``reading`` knob, as the parser reads).
The reasoning tokens are counted once for every family, in dbt (``int_reasoning_tokens``).  Asks no
model; a plain function of stored rows the generic Dagster layer runs and tests call.  Reading is a
few regex passes per response, so every run reads the model afresh.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from relreason_dagster.benchmarks import reasoning_source
from relreason_dagster.benchmarks.base import Profile, Reply, Step, StepRows
from relreason_dagster.benchmarks.flenqa import reading, trace_reads
from relreason_dagster.benchmarks.flenqa.generate import BENCHMARK
from relreason_dagster.benchmarks.flenqa.profile_schema import Knobs
from relreason_dagster.benchmarks.flenqa.prompts import REASONING_SETTINGS

RESPONSES_SQL = f"""
SELECT a.prompt_id, a.setting, r.content, r.reasoning, s.input, s.variant
FROM raw.parsed_answers a
JOIN raw.responses r USING (prompt_id, model)
JOIN raw.samples s ON s.sample_id = a.sample_id
WHERE a.model = ? AND a.benchmark = ? AND a.setting IN ({", ".join("?" for _ in REASONING_SETTINGS)})
  AND r.error IS NULL AND r.content IS NOT NULL
ORDER BY a.prompt_id
"""


def _json(value: Any) -> dict[str, Any]:
    return (json.loads(value) if isinstance(value, str) else value) or {}


def _key_sentences(sample_input: Any) -> list[str]:
    return list(_json(sample_input).get("key_sentences") or [])


def read_rows(responses: list[dict[str, Any]], setting: str, model: str) -> list[dict[str, Any]]:
    """The step's rows for one model's ``responses`` under the knob value ``setting``."""
    sources = reasoning_source.sources(
        setting, reasoning_source.has_traces(r["reasoning"] for r in responses)
    )
    out = []
    for r in responses:
        keys = _key_sentences(r["input"])
        rules = reading.of_sample(_json(r.get("variant")))  # the parser's reading of the same sample
        for source in sources:
            out.append(
                {
                    "prompt_id": r["prompt_id"],
                    "model": model,
                    "source": source,
                    "setting": r["setting"],
                    **trace_reads.cot_reads(source, r["content"], r["reasoning"], keys, rules),
                    "has_trace": bool(r["reasoning"] and r["reasoning"].strip()),
                }
            )
    return out


class TraceReads(Step):
    """§7's reads of one model's FLenQA answers and traces (``raw.flenqa_trace_reads``)."""

    name = "flenqa_trace_reads"
    description = (
        "FLenQA §7 reads (answer before the reasoning, key-fact coverage) of one model's answers and "
        "reasoning traces, per the profile's reasoning_source (raw.flenqa_trace_reads)."
    )
    table = "flenqa_trace_reads"
    stage = "per_model"

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        return {"responses": (RESPONSES_SQL, [model, BENCHMARK, *REASONING_SETTINGS])}

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        rows = read_rows(stored["responses"], profile.typed(Knobs).reasoning_source, model)
        per_source = Counter(r["source"] for r in rows)
        return StepRows(
            rows=rows,
            replace_where="model = ?",
            replace_params=[model],
            summary={
                "responses": len(stored["responses"]),
                **{f"rows_{k}": v for k, v in sorted(per_source.items())},
            },
        )


STEPS = (TraceReads(),)
