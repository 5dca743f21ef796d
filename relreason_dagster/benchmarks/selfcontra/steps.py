"""Self-Contra's steps beside its test prompts: imported human annotations and the judge's verdicts.

* ``selfcontra_annotations`` (before any model): the annotation CSVs the profile names, into
  ``raw.annotations``; an unreadable file is skipped with its reason, the others are stored.
* ``selfcontra_detections_<method>`` (after every model), one per detection method (iro, binary, fge):
  its judge (the profile's ``judges`` for the method, else ``judge``; a run's ``--judge`` for all)
  labels annotated responses and our own selfcontra responses with that method. One step per method
  because the study judged them with different models (§4.1: GPT-4, binary GPT-4-turbo), and a step asks
  one model: a method whose judge has no key is left out alone, in one line (launch_plan.py).
  ``selfcontra_detections`` (after them, asks nothing) counts what ``raw.detections`` holds, per method
  and judge: the asset the marts read the table through. The judge's prompts are ordinary
  ``raw.prompts`` rows of kind ``judge`` (never parsed as test answers), asked once and cached like
  every call; identical texts share one prompt. Our own responses are judged on their answer, their
  reasoning trace, or both (the knob ``reasoning_source``): on the trace the judge sees the trace as the
  reasoning beside the same answer (a prompt of its own, hence its own request), and a response with no
  trace is a verdict row of status ``empty`` that asks nothing. Annotated responses are read on their
  answer only: the human label is of that text.
* ``selfcontra_trace_readings`` (after each model): the referent each response's trace reaches
  (``trace_readings.py``), for ``marts.selfcontra_trace_vs_answer``.

Plain functions of stored rows and replies: the generic Dagster layer runs them, tests call them.
"""

from __future__ import annotations

import datetime as dt
import glob
import json
from pathlib import Path
from typing import Any

from relreason_dagster import paths
from relreason_dagster.benchmarks import reasoning_source
from relreason_dagster.benchmarks.base import (
    ANSWERS_JOIN,
    Profile,
    Reply,
    Sample,
    Step,
    StepPrompt,
    StepRows,
    stable_hash,
)
from relreason_dagster.benchmarks.selfcontra import detection, parsing, prompts
from relreason_dagster.benchmarks.selfcontra.annotation_store import annotation_rows
from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_files
from relreason_dagster.benchmarks.selfcontra.family import BENCHMARK, item_of, order_of
from relreason_dagster.benchmarks.selfcontra.probe_steps import EvidenceProbe, PovChains
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs
from relreason_dagster.benchmarks.selfcontra.trace_readings import TraceReadings
from relreason_dagster.benchmarks.selfcontra.wording import Wording
from relreason_dagster.errors import ConfigError

JUDGE_KIND = "judge"
EMPTY = "empty"  # the verdict status of a trace that is empty: nothing was asked
# Hashed into every judge prompt's id (the benchmark name these prompts had before the kind column),
# so the ids, and with them the stored verdicts, stay what they were.
JUDGE_ID_TAG = "selfcontra_judge"

ANNOTATIONS_SQL = """
SELECT annotation_id, source, dataset, model, setting, question, response, correct
FROM (SELECT *, row_number() OVER (PARTITION BY source ORDER BY row_number) AS k FROM raw.annotations)
WHERE CAST(? AS INTEGER) IS NULL OR k <= CAST(? AS INTEGER)
ORDER BY source, row_number
"""
RESPONSES_SQL = f"""
SELECT a.prompt_id, a.model, a.setting, a.parse_status, a.correct, r.content, r.reasoning,
       s.benchmark, s.task, s.sample_id, s.split, s.n, s.variant, s.input, s.gold, s.label,
       s.seed, s.generator_version
{ANSWERS_JOIN}
WHERE a.benchmark = ? AND r.error IS NULL AND r.content IS NOT NULL
ORDER BY a.model, a.prompt_id
"""


def annotation_paths(patterns: list[str]) -> list[Path]:
    """Files matching the profile's patterns; relative ones are under RELREASON_REFERENCE_DIR."""
    found: list[Path] = []
    for pattern in patterns:
        full = Path(pattern).expanduser()
        if not full.is_absolute():
            full = paths.reference_dir() / full
        matched = sorted(Path(p) for p in glob.glob(str(full)))
        if not matched:
            raise ConfigError(
                f"no annotation file matches {full}; set RELREASON_REFERENCE_DIR or fix 'annotation_files'"
            )
        found.extend(matched)
    return found


class Annotations(Step):
    """Human Self-Contra annotations from the CSV files the profile names (``raw.annotations``)."""

    name = "selfcontra_annotations"
    description = "Human Self-Contra annotations from the CSV files the profile names (raw.annotations)."
    table = "annotations"
    stage = "inputs"

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        files = annotation_paths(list(profile.typed(Knobs).annotation_files))
        batch = read_annotation_files(files, limit=profile.typed(Knobs).annotation_limit)
        if files and not batch.results:
            raise ConfigError(batch.summary_line())
        rows = [row for result in batch.results for row in annotation_rows(result)]
        # Each imported file replaces its own stored rows (an emptied file leaves no stale labels).
        sources = [Path(result.path).name for result in batch.results]
        per_file = []
        for result in batch.results:
            summary = result.summary()
            per_file.append(
                {
                    "file": Path(result.path).name,
                    **{k: summary[k] for k in ("n", "n_correct", "n_self_contra", "skipped")},
                }
            )
        return StepRows(
            rows=rows,
            replace_where=f"source IN ({', '.join('?' for _ in sources)})" if sources else "false",
            replace_params=sources,
            summary={
                "files": len(batch.results),
                "skipped_files": len(batch.skipped),
                "skipped": [f"{name}: {reason}" for name, reason in batch.skipped],
                "summary": batch.summary_line(),
                "per_file": per_file,
            },
        )


def detection_plan(profile: Profile) -> tuple[list[str], int | None]:
    """``(methods, limit)``: the detection methods and annotated rows per file the profile asks for."""
    methods = list(profile.typed(Knobs).detect_methods)
    unknown = [m for m in methods if m not in detection.METHODS]
    if unknown or not methods:
        what = f"{unknown} unknown" if unknown else "is empty"
        raise ConfigError(f"detect_methods {what}; known: {', '.join(detection.METHODS)}")
    limit = profile.typed(Knobs).detect_limit
    return methods, None if limit is None else int(limit)


def judged_settings(profile: Profile) -> tuple[str, ...] | None:
    """The settings of the annotated responses the judge labels (knob ``detect_settings``; None: all).

    Why: Table 6 scores §3's Few-shot (A) responses only, so an F1 over every setting is not its number.
    """
    chosen = profile.typed(Knobs).detect_settings
    if chosen is None:
        return None
    unknown = [s for s in chosen if s not in prompts.SETTINGS]
    if unknown or not chosen:
        what = f"{unknown} unknown" if unknown else "is empty (null judges every setting)"
        raise ConfigError(f"detect_settings {what}; known: {', '.join(prompts.SETTINGS)}")
    return tuple(chosen)


Target = tuple[dict[str, Any], detection.DetectionTarget]


def annotation_targets(rows: list[dict[str, Any]]) -> list[Target]:
    """Annotated responses as detection targets, with what the verdict rows keep of them."""
    out = []
    for r in rows:
        target = detection.target_from_text(
            r["annotation_id"],
            r["question"] or "",
            r["response"] or "",
            order_of(r["setting"] or ""),
            r["correct"],
        )
        meta = {
            "target_kind": "annotation",
            "dataset": r["dataset"],
            "model": r["model"],
            "setting": r["setting"],
        }
        out.append((meta, target))
    return out


# The target kind of a response read on each source (raw.detections keeps the source in the kind).
KIND_OF_SOURCE = {reasoning_source.ANSWER: "response", reasoning_source.TRACE: "trace"}


def response_targets(rows: list[dict[str, Any]], setting: str = reasoning_source.ANSWER) -> list[Target]:
    """Our own selfcontra responses (every model's) as detection targets, on the sources ``setting`` reads.

    On the trace the judged reasoning is the trace (bounded like every text the parser reads) and the
    answer, its candidate and its correctness are the response's own, as on the answer.
    """
    traced = {
        model: reasoning_source.has_traces(r.get("reasoning") for r in rows if r["model"] == model)
        for model in {r["model"] for r in rows}
    }
    out = []
    for r in rows:
        item = item_of(Sample.from_row(r))
        order = order_of(r["setting"])
        answer = parsing.read_answer(r["content"], item, order)
        for source in reasoning_source.sources(setting, traced[r["model"]]):
            reasoning = answer.reasoning
            if source == reasoning_source.TRACE:
                reasoning = parsing.clean_text(r.get("reasoning") or "").strip()
            target = detection.DetectionTarget(
                target_id=r["prompt_id"],
                question=prompts.question_text(item, order),
                candidates=item.candidates,
                pronoun=item.pronoun,
                answer_text=answer.answer_text,
                reasoning=reasoning,
                predicted=answer.index,
                correct=r["correct"] if r["parse_status"] == "ok" else None,
            )
            meta = {
                "target_kind": KIND_OF_SOURCE[source],
                "dataset": r["task"],
                "model": r["model"],
                "setting": r["setting"],
            }
            out.append((meta, target))
    return out


def _nothing_to_judge(meta: dict[str, Any], target: detection.DetectionTarget) -> bool:
    """A response read on its trace that has none: a row saying so, no judge call."""
    return meta["target_kind"] == "trace" and not target.reasoning.strip()


def judge_of(profile: Profile, method: str) -> str | None:
    """The judge the profile names for ``method``: its entry in ``judges``, else ``judge``."""
    knobs = profile.typed(Knobs)
    return (knobs.judges or {}).get(method) or knobs.judge  # type: ignore[call-overload]


def _annotated_targets(profile: Profile) -> list[Target]:
    """The annotated responses the judge would label, read from the profile's files (no DuckDB): what a
    dry run counts before anything is imported (the same rows, per file and limit, as ANNOTATIONS_SQL)."""
    _, limit = detection_plan(profile)
    patterns = list(profile.typed(Knobs).annotation_files)
    if limit == 0 or not patterns:
        return []
    try:
        files = annotation_paths(patterns)
    except ConfigError:
        return []
    batch = read_annotation_files(files, limit=profile.typed(Knobs).annotation_limit)
    settings = judged_settings(profile)
    rows = []
    for result in batch.results:
        kept = annotation_rows(result)[: limit if limit is not None else None]
        rows.extend(r for r in kept if settings is None or r["setting"] in settings)
    return annotation_targets(rows)


class Detection(Step):
    """A judge model's Self-Contra verdicts by one method (I+R→O, binary or FGE) on annotated and own
    responses."""

    table = "detections"
    stage = "across_models"
    kind = JUDGE_KIND
    model_knob = "judge"  # the fallback knob (as error lines name it); model_for reads ``judges`` first
    legacy_benchmark = JUDGE_ID_TAG  # its prompts' benchmark name before raw.prompts had a kind
    after: tuple[str, ...] = ("selfcontra_annotations",)

    def __init__(self, method: str | None = None) -> None:
        """One method's step; ``None`` (not registered: a notebook's or a test's) judges every method of
        ``detect_methods`` with one model, as the single judge step did before the per-method judges."""
        if method is not None and method not in detection.METHODS:
            raise ValueError(f"unknown detection method {method!r}; known: {', '.join(detection.METHODS)}")
        self.method = method
        self.name = f"selfcontra_detections_{method or 'all'}"
        self.description = (
            f"A judge model's Self-Contra verdicts by {method or 'every method'} on annotated and own "
            "responses (raw.detections); its judge is the profile's judges entry for the method, else judge."
        )

    def model_for(self, profile: Profile) -> str | None:
        """The judge of this method by the profile (``base.step_model_name`` asks here)."""
        if self.method is None:
            return profile.typed(Knobs).judge
        return judge_of(profile, self.method)

    def _methods(self, profile: Profile) -> list[str]:
        """This step's method when the profile asks for it (``detect_methods``), else none."""
        methods, _ = detection_plan(profile)
        if self.method is None:
            return methods
        return [self.method] if self.method in methods else []

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        _, limit = detection_plan(profile)
        queries = {"responses": (RESPONSES_SQL, [BENCHMARK])}
        if limit != 0:
            queries["annotations"] = (ANNOTATIONS_SQL, [limit, limit])
        return queries

    def _plan(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile
    ) -> list[tuple[dict[str, Any], detection.DetectionTarget, str, dict[str, StepPrompt]]]:
        settings = judged_settings(profile)
        annotated = [r for r in stored.get("annotations", []) if settings is None or r["setting"] in settings]
        source = profile.typed(Knobs).reasoning_source
        targets = annotation_targets(annotated) + response_targets(stored["responses"], source)
        return self._plan_targets(targets, profile)

    def _plan_targets(
        self, targets: list[Target], profile: Profile
    ) -> list[tuple[dict[str, Any], detection.DetectionTarget, str, dict[str, StepPrompt]]]:
        max_tokens = profile.typed(Knobs).judge_max_tokens
        plan = []
        for meta, target in targets:
            for method in self._methods(profile):
                probes = {}
                asked = {} if _nothing_to_judge(meta, target) else detection.judge_prompts(method, target)
                for probe, messages in asked.items():
                    probes[probe] = StepPrompt(
                        prompt_id=stable_hash(JUDGE_ID_TAG, probe, messages, detection.TEMPLATE_VERSION),
                        sample_id=target.target_id,
                        task=method,
                        split=meta["target_kind"],
                        setting=probe,
                        messages=messages,
                        template_version=detection.TEMPLATE_VERSION,
                        max_tokens=max_tokens * (4 if probe == "iro" else 1),
                    )
                plan.append((meta, target, method, probes))
        return plan

    def dry_run_prompts(self, profile: Profile, answers: int) -> tuple[list[StepPrompt], int]:
        """What a dry run lists (``dry_run.step_estimates``): this method's prompts on the annotated
        responses of the profile's files, and how many it asks on ``answers`` responses of the run's
        models (read on their answer; their text is not known before they are answered)."""
        if not self._methods(profile):
            return [], 0
        plan = self._plan_targets(_annotated_targets(profile), profile)
        prompts = list({p.prompt_id: p for *_, probes in plan for p in probes.values()}.values())
        probe = detection.DetectionTarget("dry-run", "", ("a", "b"), None, "", "", None, None)
        per_answer = sum(len(detection.judge_prompts(m, probe)) for m in self._methods(profile))
        return prompts, answers * per_answer

    def prompts(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> list[StepPrompt]:
        return [p for *_, probes in self._plan(stored, profile) for p in probes.values()]

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        methods = self._methods(profile)
        if not methods:  # not asked for (detect_methods): the stored verdicts of this method stay
            summary = {"method": self.method, "asked": False}
            return StepRows(rows=[], replace_where="false", replace_params=[], summary=summary)
        plan = self._plan(stored, profile)
        now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
        rows = []
        for meta, target, method, probes in plan:
            texts = {}
            for probe, p in probes.items():
                reply = replies.get(p.prompt_id)
                texts[probe] = reply.content if reply is not None and reply.error is None else None
            if _nothing_to_judge(meta, target):
                verdict = detection.Verdict(EMPTY, None, None, {})
            else:
                verdict = detection.decide(method, target, texts)
            rows.append(
                {
                    "detection_id": stable_hash(
                        method, model, meta["target_kind"], target.target_id, meta["model"]
                    ),
                    "method": method,
                    "judge": model,
                    **meta,
                    "target_id": target.target_id,
                    "status": verdict.status,
                    "self_contra": verdict.self_contra,
                    "type": verdict.type,
                    "correct": target.correct,
                    "probes": verdict.probes,
                    "created_at": now,
                }
            )
        status: dict[str, int] = {}
        for r in rows:
            key = f"{r['method']}/{r['status']}"
            status[key] = status.get(key, 0) + 1
        for r in rows:
            r["probes"] = json.dumps(r["probes"])
        # This judge's verdicts by this method are replaced; other judges' and methods' rows stay.
        return StepRows(
            rows=rows,
            replace_where=f"judge = ? AND method IN ({', '.join('?' for _ in methods)})",
            replace_params=[model, *methods],
            summary={
                "judge": model,
                "method": self.method or "all",
                "targets": len(plan) // max(len(methods), 1),
                "verdicts": len(rows),
                "status": dict(sorted(status.items())),
            },
        )


def _judged_reads(profile: Profile) -> dict[str, tuple[str, list[Any]]]:
    """The rows Detection judges (its responses and annotations queries), for App. D's evidence probe."""
    _, limit = detection_plan(profile)
    queries = {"responses": (RESPONSES_SQL, [BENCHMARK])}
    if limit != 0:
        queries["annotations"] = (ANNOTATIONS_SQL, [limit, limit])
    return queries


def _judged_targets(stored: dict[str, list[dict[str, Any]]], profile: Profile) -> list[Target]:
    """Detection's targets on their answers (annotated responses of the judged settings, our own responses),
    for App. D's evidence probe."""
    settings = judged_settings(profile)
    annotated = [r for r in stored.get("annotations", []) if settings is None or r["setting"] in settings]
    return annotation_targets(annotated) + response_targets(stored.get("responses", []))


class Detections(Step):
    """What ``raw.detections`` holds after the per-method judges, per method and judge (asks nothing).

    Why a step: the marts read the table through one asset (dbt/sources.yml), which follows every
    method's step, so a method added to ``detection.METHODS`` is a step of its own and nothing else.
    """

    name = "selfcontra_detections"
    description = "Verdict counts of raw.detections per method and judge, after every method's judge step."
    table = "detections"
    stage = "across_models"
    after: tuple[str, ...] = tuple(f"selfcontra_detections_{m}" for m in detection.METHODS)

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        sql = "SELECT method, judge, count(*) AS n FROM raw.detections GROUP BY ALL ORDER BY ALL"
        return {"counts": (sql, [])}

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        counts = {f"{r['method']}/{r['judge']}": int(r["n"]) for r in stored.get("counts", [])}
        return StepRows(rows=[], replace_where="false", replace_params=[], summary={"verdicts": counts})


STEPS = (
    Annotations(),
    *(Detection(method) for method in detection.METHODS),
    Detections(),
    TraceReadings(),
    EvidenceProbe(_judged_reads, _judged_targets),
    PovChains(),
    Wording(),
)
