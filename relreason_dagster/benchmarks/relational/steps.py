"""The relational family's step after the models: its chain-of-thought answers checked symbolically.

``symbolic_checks[model]``: every ``nl_cot`` response of one model, checked step by step against
its sample's knowledge base (``cot_verdict.check_reasoning``; no judge model, no labels), one
``raw.cot_checks`` row per response and source: the answer text, the reasoning trace, or both, as the
knob ``reasoning_source`` says (``benchmarks/reasoning_source.py``; ``auto`` reads the trace too when
one of the model's CoT responses has one).  On the trace the answer's correctness still decides the
category (a trace that derives false facts under a right answer is Type2), and a response without a
trace checks the empty text (``unchecked``), never the answer in its place.

A plain function of stored rows: the generic Dagster layer runs it, tests call it.  Checking is the
costly part of a cached re-run, so a stored row is kept while its ``parse_key`` (response, its trace,
parsed answer, sample and the parsing code) is unchanged.  The
parsing code enters through the parsed answer's own ``parse_key`` (``storage/parsed_answers.py``
hashes every registered family's folder into it), so this folder needs no import of storage/.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from relreason_dagster.benchmarks import reasoning_source
from relreason_dagster.benchmarks.base import Profile, Reply, Sample, Step, StepRows
from relreason_dagster.benchmarks.relational.cot_verdict import check_reasoning
from relreason_dagster.benchmarks.relational.generate import BENCHMARK
from relreason_dagster.benchmarks.relational.profile_schema import Knobs

COT_SETTING = "nl_cot"

RESPONSES_SQL = """
SELECT a.prompt_id, a.setting, a.parse_status, a.correct, r.content, r.reasoning,
       CASE WHEN a.parse_key IS NOT NULL
            THEN md5(json_array(a.parse_key, r.content, r.reasoning, a.parse_status, a.correct, s)::VARCHAR)
       END AS parse_key,
       s.benchmark, s.task, s.sample_id, s.split, s.n, s.variant, s.input, s.gold, s.label,
       s.seed, s.generator_version
FROM raw.parsed_answers a
JOIN raw.responses r USING (prompt_id, model)
JOIN raw.samples s ON s.sample_id = a.sample_id
WHERE a.model = ? AND a.benchmark = ? AND a.setting = ?
  AND r.error IS NULL AND r.content IS NOT NULL
"""
CHECKED_SQL = "SELECT * FROM raw.cot_checks WHERE model = ? AND parse_key IS NOT NULL"


class SymbolicChecks(Step):
    """Symbolic Self-Contra of one model's relational CoT responses (``raw.cot_checks``)."""

    name = "symbolic_checks"
    description = (
        "Symbolic Self-Contra of one model's relational CoT responses, on the answer and/or the "
        "reasoning trace: every stated fact checked against the sample's knowledge base (raw.cot_checks)."
    )
    table = "cot_checks"
    stage = "per_model"

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        return {
            "responses": (RESPONSES_SQL, [model, BENCHMARK, COT_SETTING]),
            "checked": (CHECKED_SQL, [model]),
        }

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        rows = []
        checked = {(c["prompt_id"], c["source"]): c for c in stored.get("checked", [])}
        responses = stored["responses"]
        setting = profile.typed(Knobs).reasoning_source
        has_traces = reasoning_source.has_traces(r.get("reasoning") for r in responses)
        for source in reasoning_source.sources(setting, has_traces):
            for r in responses:
                kept = checked.get((r["prompt_id"], source))
                key = r.get("parse_key")
                if kept is not None and key is not None and kept["parse_key"] == key:
                    rows.append(kept)
                    continue
                rows.append(self._check(r, model, source))
        categories = Counter(r["category"] for r in rows)
        return StepRows(
            rows=rows,
            replace_where="model = ?",
            replace_params=[model],
            summary={
                "rows": len(rows),
                "responses": len(responses),
                **{f"category_{k}": v for k, v in sorted(categories.items())},
            },
        )

    @staticmethod
    def _check(r: dict[str, Any], model: str, source: str) -> dict[str, Any]:
        """One response's check on ``source``'s text (the answer, or the trace: '' when it has none)."""
        correct = r["correct"] if r["parse_status"] == "ok" else None
        text = reasoning_source.text_of(source, r["content"], r.get("reasoning"))
        verdict = check_reasoning(Sample.from_row(r), text, correct)
        return {
            "prompt_id": r["prompt_id"],
            "model": model,
            "source": source,
            "task": r["task"],
            "split": r["split"],
            "setting": r["setting"],
            "correct": correct,
            "n_steps": verdict.n_steps,
            "n_claims": len(verdict.claims),
            "n_checked": verdict.n_checked,
            "n_false": len(verdict.false_claims),
            "n_contradictions": len(verdict.contradictions),
            "n_derived": verdict.n_derived,
            "n_false_derived": verdict.n_false_derived,
            "n_unsupported_derived": verdict.n_unsupported_derived,
            "category": verdict.category,
            "self_contra": verdict.self_contra,
            "detail": json.dumps(verdict.detail(), default=str),
            "parse_key": r.get("parse_key"),
        }


STEPS = (SymbolicChecks(),)
