"""What a launch's runs did, read from their Dagster events: each run's model calls, baseline trainings,
check results and step failures, added to the launch's ``PipelineReport`` (``results/launch_report.py``).

Why in defs/: the events are Dagster's (materializations, check evaluations, step failures), and the
metadata keys read here are those the assets write (``defs/assets.py``, ``defs/steps.py``,
``defs/baseline_assets.py``); ``pipeline.py`` only hands each finished run's events over.
"""

from __future__ import annotations

from typing import Any

from relreason_dagster.benchmarks.registry import baseline_names
from relreason_dagster.defs.steps import STEP_KIND_META
from relreason_dagster.results.launch_report import PipelineReport, no_calls


def collect(events: list[Any], report: PipelineReport) -> None:
    """Calls, baseline trainings, check results and step failures from one run's DagsterEvents."""
    for event in events:
        if event.event_type_value != "ASSET_MATERIALIZATION":
            continue
        mat = event.event_specific_data.materialization
        key = mat.asset_key.to_user_string()
        meta = {k: v.value for k, v in mat.metadata.items()}
        if key == "model_responses" and mat.partition:
            report.calls[mat.partition] = {
                k: int(meta.get(k, 0))
                for k in ("prompts", "model_calls", "from_cache", "already_stored", "errors")
            }
            report.calls[mat.partition]["shared_prompts"] = int(meta.get("shared_prompts", 0))
            if float(meta.get("waited_s", 0.0)):
                report.waited_s[mat.partition] = float(meta["waited_s"])
            if float(meta.get("claimed_at", 0.0)):
                report.claimed_at[mat.partition] = float(meta["claimed_at"])
        if STEP_KIND_META in meta:  # a follow-up step that asked a model (defs/steps.py)
            kind, calls = str(meta[STEP_KIND_META]), int(meta.get("model_calls", 0))
            if mat.partition:  # asked the partition's model: its calls and errors count with that model's
                counts = report.calls.setdefault(mat.partition, no_calls())
                counts["model_calls"] += calls
                counts["errors"] += int(meta.get("errors", 0))
                counts["from_cache"] += int(meta.get("from_cache", 0))
                shared = int(meta.get("shared_prompts", 0))
                counts["shared_prompts"] = counts.get("shared_prompts", 0) + shared
                counts["follow_ups"] = counts.get("follow_ups", 0) + int(meta.get("prompts", 0))
                counts[f"{kind}_calls"] = counts.get(f"{kind}_calls", 0) + calls
            else:  # a step model (a judge): several steps may ask it (one per method), so they add up
                counts = report.calls.setdefault(f"{meta.get('step_model')} ({kind})", no_calls())
                counts["prompts"] += int(meta.get("prompts", 0))
                counts["model_calls"] += calls
                counts["from_cache"] += int(meta.get("from_cache", 0))
                counts["shared_prompts"] = counts.get("shared_prompts", 0) + int(
                    meta.get("shared_prompts", 0)
                )
                counts["errors"] += int(meta.get("errors", 0))
        baseline = key.removesuffix("_checkpoints")
        if key.endswith("_checkpoints") and baseline in baseline_names() and mat.partition:
            report.baselines.setdefault(baseline, {})[mat.partition] = {
                k: int(meta.get(k, 0)) for k in ("trained", "reused")
            }
    for event in events:
        if event.event_type_value == "ASSET_CHECK_EVALUATION":
            ev = event.event_specific_data
            report.checks.append((ev.check_name, ev.passed, ev.description or ""))
            rows_checked = ev.metadata.get("rows_checked")
            if rows_checked is not None:
                report.check_rows[ev.check_name] = int(rows_checked.value)
            if str(getattr(ev.severity, "value", ev.severity)) == "WARN":
                report.warn_checks.add(ev.check_name)
        if event.is_step_failure:
            report.failures.append(f"{event.step_key}: {root_cause(event.event_specific_data.error)}")


def root_cause(error: Any) -> str:
    """The innermost error of a Dagster error chain as "Type: first line": the wrapper ("Error
    occurred while executing op ...") names no reason, and a full disk is told by the cause."""
    seen = 0
    while error is not None and (error.cause or error.context) is not None and seen < 20:
        error, seen = error.cause or error.context, seen + 1
    if error is None:
        return "failed"
    lines = (error.message or "").strip().splitlines()
    text = lines[0] if lines else ""
    name = error.cls_name or ""
    return text if not name or text.startswith(name) or name in text.split(":")[0] else f"{name}: {text}"
