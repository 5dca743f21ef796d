"""The study's Appendix C-D probes as steps: evidence missing (App. D), POV reasoning and its diagnostic
(App. C).  Each is off unless the knob ``appendix_probes`` names it (the ``paper-s3`` profile names all
three), since each asks a model several prompts per response.

* ``selfcontra_evidence_probe`` (after every model, asks the ``judge``): the question's sentence cut into
  evidence segments, one prompt per segment asking whether the reasoning mentions it
  (:func:`detection.em_prompts`), on the annotated responses the Detection step judges and on our own
  responses' answers; ``raw.selfcontra_em_probes`` → ``marts.selfcontra_evidence_missing``.
* ``selfcontra_pov`` (per model, asks the run's model): on annotated WinoBias responses, Table 13's
  three-turn POV reasoning for the right-answer ones (good reasoning: RR without a finer-grained
  category; bad: the rest), and Table 11's diagnostic scoring each annotated reasoning, in both orders
  and (diagnostic) both variants; ``raw.selfcontra_pov`` → ``marts.selfcontra_pov`` and
  ``marts.selfcontra_pov_diagnostic``.  The study ran POV on 60 right-answer responses of its
  knowledge-enhanced WinoBias runs (15 good, 45 bad), which it did not release, so the annotated §2-§3
  responses stand in for them (``pov_limit`` bounds how many).

Plain functions of stored rows and replies, as the other steps: the generic Dagster layer runs them.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

from relreason_dagster.benchmarks.base import Profile, Reply, Step, StepPrompt, StepRows, stable_hash
from relreason_dagster.benchmarks.selfcontra import detection, pov
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs

EM = "em"
POV = "pov"
POV_DIAGNOSTIC = "pov_diagnostic"
EM_ID_TAG = "selfcontra_em_probe"
POV_ID_TAG = "selfcontra_pov"
POV_KIND = "pov"

POV_ANNOTATIONS_SQL = """
SELECT annotation_id, dataset, split, model, setting, question, response, correct, self_contra, type,
       CAST(categories AS VARCHAR) AS categories
FROM raw.annotations
WHERE dataset = 'winobias'
ORDER BY source, row_number
"""


def enabled(profile: Profile, probe: str) -> bool:
    """Whether the profile's ``appendix_probes`` names ``probe``."""
    return probe in (profile.typed(Knobs).appendix_probes or [])


# What the evidence probe judges is what the Detection step judges (steps.py): its stored-row queries for a
# profile, and its targets from those rows.  steps.py hands them in, so this module does not import it.
JudgedReads = Callable[[Profile], dict[str, tuple[str, list[Any]]]]
JudgedTargets = Callable[
    [dict[str, list[dict[str, Any]]], Profile], list[tuple[dict[str, Any], detection.DetectionTarget]]
]


class EvidenceProbe(Step):
    """App. D's evidence-missing probe: per evidence segment, does the reasoning mention it?"""

    def __init__(self, reads: JudgedReads, targets: JudgedTargets) -> None:
        self._reads, self._targets = reads, targets

    name = "selfcontra_evidence_probe"
    description = (
        "Evidence-missing probe (App. D): the judge asked, per evidence segment of the question, whether "
        "the reasoning mentions it (raw.selfcontra_em_probes)."
    )
    table = "selfcontra_em_probes"
    stage = "across_models"
    kind = "judge"
    model_knob = "judge"
    after: tuple[str, ...] = ("selfcontra_annotations",)

    def model_for(self, profile: Profile) -> str | None:
        """The profile's ``judge`` (the probe asks the judge that labels every method without its own)."""
        return profile.typed(Knobs).judge

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        return self._reads(profile) if enabled(profile, EM) else {}

    def _plan(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile
    ) -> list[tuple[dict[str, Any], detection.DetectionTarget, dict[str, StepPrompt]]]:
        if not enabled(profile, EM):
            return []
        targets = self._targets(stored, profile)
        max_tokens = profile.typed(Knobs).judge_max_tokens
        plan = []
        for meta, target in targets:
            probes = {
                probe: StepPrompt(
                    prompt_id=stable_hash(EM_ID_TAG, probe, messages, detection.EM_TEMPLATE_VERSION),
                    sample_id=target.target_id,
                    task=EM,
                    split=meta["target_kind"],
                    setting=probe,
                    messages=messages,
                    template_version=detection.EM_TEMPLATE_VERSION,
                    max_tokens=max_tokens,
                )
                for probe, messages in detection.em_prompts(target).items()
            }
            plan.append((meta, target, probes))
        return plan

    def prompts(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> list[StepPrompt]:
        return [p for *_, probes in self._plan(stored, profile) for p in probes.values()]

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        rows = []
        for meta, target, probes in self._plan(stored, profile):
            texts = {}
            for probe, p in probes.items():
                reply = replies.get(p.prompt_id)
                texts[probe] = reply.content if reply is not None and reply.error is None else None
            verdict = detection.decide_em(texts)
            mentioned = [v for v in verdict.probes.values() if v is not None]
            rows.append(
                {
                    "probe_id": stable_hash(EM, model, meta["target_kind"], target.target_id, meta["model"]),
                    "judge": model,
                    **meta,
                    "target_id": target.target_id,
                    "n_segments": len(probes),
                    "n_mentioned": sum(bool(v) for v in mentioned),
                    "status": verdict.status,
                    "evidence_missing": verdict.self_contra,
                    "correct": target.correct,
                    "probes": json.dumps(verdict.probes),
                    "created_at": now,
                }
            )
        status = Counter(r["status"] for r in rows)
        return StepRows(
            rows=rows,
            replace_where="judge = ?",
            replace_params=[model],
            summary={"judge": model, "targets": len(rows), "status": dict(sorted(status.items()))},
        )


def _categories(row: dict[str, Any]) -> list[str]:
    raw = row.get("categories")
    value = json.loads(raw) if isinstance(raw, str) and raw else (raw or [])
    return [str(c) for c in value]


def pov_targets(rows: list[dict[str, Any]], limit: int | None) -> list[tuple[dict[str, Any], pov.PovTarget]]:
    """Annotated WinoBias responses as POV targets: the candidates and pronoun read off the question, the
    right candidate from the response's answer and its annotated accuracy (a response whose answer names
    no candidate is left out), with what the rows keep (good/bad reasoning, categories)."""
    out = []
    for r in rows:
        target = detection.target_from_text(
            r["annotation_id"], r["question"] or "", r["response"] or "", "answer", r["correct"]
        )
        if (
            target.candidates is None
            or target.predicted is None
            or target.correct is None
            or not target.pronoun
        ):
            continue
        gold = target.predicted if target.correct else 1 - target.predicted
        categories = _categories(r)
        good = bool(target.correct) and not r["self_contra"] and not categories
        meta = {
            "target_id": r["annotation_id"],
            "dataset": r["dataset"],
            "split": r["split"],
            "judged_model": r["model"],
            "setting": r["setting"],
            "correct_answer": target.correct,
            "reasoning": "good" if good else "bad",
            "categories": json.dumps(categories or (["perfect"] if good else [])),
        }
        sentence = pov.sentence_of(target.question)
        out.append(
            (
                meta,
                pov.PovTarget(
                    r["annotation_id"], sentence, target.pronoun, target.candidates, gold, target.reasoning
                ),
            )
        )
        if limit is not None and len(out) >= limit:
            break
    return out


class PovChains(Step):
    """App. C's POV reasoning (Table 13) and diagnostic (Table 11), asked of the run's model."""

    name = "selfcontra_pov"
    description = (
        "POV reasoning and its diagnostic (App. C): three-turn conversations about annotated WinoBias "
        "responses, both orders (raw.selfcontra_pov)."
    )
    table = "selfcontra_pov"
    stage = "per_model"
    kind = POV_KIND
    after: tuple[str, ...] = ("selfcontra_annotations",)

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        if not (enabled(profile, POV) or enabled(profile, POV_DIAGNOSTIC)):
            return {}
        return {"annotations": (POV_ANNOTATIONS_SQL, [])}

    def _chains(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> Iterator[tuple[dict[str, Any], pov.PovTarget, list[StepPrompt], list[str | None]]]:
        """Per target x kind x order x variant: the prompts asked so far and their replies (None: not yet
        answered or failed).  A chain stops at its first turn without a usable reply."""
        kinds = [
            k for k, probe in (("reasoning", POV), ("diagnostic", POV_DIAGNOSTIC)) if enabled(profile, probe)
        ]
        if not kinds:
            return
        max_tokens = profile.typed(Knobs).max_tokens
        annotated = stored.get("annotations", [])
        for meta, target in pov_targets(annotated, profile.typed(Knobs).pov_limit):
            for kind in kinds:
                if kind == "reasoning" and not meta["correct_answer"]:
                    continue  # Table 12: right-answer responses only
                for order in pov.ORDERS:
                    for variant in pov.VARIANTS if kind == "diagnostic" else ("full",):
                        asked: list[StepPrompt] = []
                        got: list[str | None] = []
                        for turn in (1, 2, 3):
                            # The first two turns are the same conversation in both variants (one call).
                            shown = variant if turn == 3 else "full"
                            messages = pov.turn_messages(
                                kind, target, order, turn, [g or "" for g in got], shown
                            )
                            prompt = StepPrompt(
                                prompt_id=stable_hash(POV_ID_TAG, model, messages, pov.TEMPLATE_VERSION),
                                sample_id=target.target_id,
                                task=kind,
                                split=order,
                                setting=f"turn{turn}" + (f"_{variant}" if turn == 3 else ""),
                                messages=messages,
                                template_version=pov.TEMPLATE_VERSION,
                                max_tokens=max_tokens,
                            )
                            asked.append(prompt)
                            reply = replies.get(prompt.prompt_id)
                            text = reply.content if reply is not None and reply.error is None else None
                            got.append(text)
                            if text is None:
                                break
                        yield (
                            meta | {"kind": kind, "pov_order": order, "variant": variant},
                            target,
                            asked,
                            got,
                        )

    def prompts(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> list[StepPrompt]:
        seen: dict[str, StepPrompt] = {}
        for *_, asked, _got in self._chains(stored, profile, model, replies):
            for p in asked:
                seen.setdefault(p.prompt_id, p)
        return list(seen.values())

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        rows = []
        for meta, target, _asked, got in self._chains(stored, profile, model, replies):
            final = got[2] if len(got) == 3 else None
            index = score = None
            if final is None:
                status = "unanswered"
            elif meta["kind"] == "reasoning":
                index = pov.read_final(final, target)
                status = "ok" if index is not None else "unparsed"
            else:
                score = pov.read_score(final)
                status = "ok" if score is not None else "unparsed"
            rows.append(
                {
                    "pov_id": stable_hash(
                        POV, model, meta["kind"], meta["pov_order"], meta["variant"], target.target_id
                    ),
                    "model": model,
                    **meta,
                    "status": status,
                    "final_index": index,
                    "correct": None if index is None else index == target.gold,
                    "score": score,
                    "final_reply": final,
                    "created_at": now,
                }
            )
        status_counts = Counter(f"{r['kind']}/{r['status']}" for r in rows)
        return StepRows(
            rows=rows,
            replace_where="model = ?",
            replace_params=[model],
            summary={"chains": len(rows), "status": dict(sorted(status_counts.items()))},
        )
