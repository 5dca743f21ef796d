"""Self-Contra assets: imported human annotations, judge detections, and the symbolic relational checker.

* ``selfcontra_annotations``: the annotation CSVs the profile names, into ``raw.annotations``.
* ``selfcontra_detections``: a judge model (any models.yaml entry; ``--judge`` or the profile's
  ``judge``) labels annotated responses and our own selfcontra responses with each detection method;
  the judge's prompts and replies are ordinary ``raw.prompts``/``raw.responses`` rows (benchmark
  ``selfcontra``, kind ``judge``: never parsed as test answers), cached like every other call.
* ``symbolic_checks``: every relational chain-of-thought response of one model, checked step by step
  against its sample's knowledge base (no judge, no labels).
"""

import datetime as dt
import glob
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import dagster as dg

from relreason_dagster import settings
from relreason_dagster.benchmarks.base import Sample, stable_hash
from relreason_dagster.benchmarks.relational.cot_verdict import check_reasoning
from relreason_dagster.benchmarks.selfcontra import detection, parsing, prompts
from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_files
from relreason_dagster.benchmarks.selfcontra.family import BENCHMARK, item_of, order_of
from relreason_dagster.defs.assets import parsed_answers
from relreason_dagster.defs.partitions import DUCKDB_POOL, family_tag, models_partitions
from relreason_dagster.defs.resources import DuckDBFile, RunSettings
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.gateway import ProgressPrinter, run_model
from relreason_dagster.llm.registry import get_model, require_api_key
from relreason_dagster.llm.tokenizer import DEFAULT_TOKENIZER, count_tokens
from relreason_dagster.storage.annotations import store_batch
from relreason_dagster.storage.duckdb_io import fetch_dicts, markdown_table, replace_rows, upsert_rows
from relreason_dagster.storage.responses import ResponseStore
from relreason_dagster.storage.schema import JUDGE_KIND, ensure_schema

# Hashed into every judge prompt's id (the benchmark name these prompts had before the kind column),
# so the ids, and with them the stored verdicts, stay what they were.
_JUDGE_ID_TAG = "selfcontra_judge"


def annotation_paths(patterns: list[str]) -> list[Path]:
    """Files matching the profile's patterns; relative ones are under RELREASON_REFERENCE_DIR."""
    paths: list[Path] = []
    for pattern in patterns:
        full = Path(pattern).expanduser()
        if not full.is_absolute():
            full = settings.reference_dir() / full
        matched = sorted(Path(p) for p in glob.glob(str(full)))
        if not matched:
            raise ConfigError(
                f"no annotation file matches {full}; set RELREASON_REFERENCE_DIR or fix 'annotation_files'"
            )
        paths.extend(matched)
    return paths


@dg.asset(
    group_name="inputs",
    pool=DUCKDB_POOL,
    tags=family_tag(BENCHMARK),
    description="Human Self-Contra annotations from the CSV files the profile names (raw.annotations).",
)
def selfcontra_annotations(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
    profile = run_settings.profile_for(BENCHMARK)
    paths = annotation_paths(list(profile.get("annotation_files", [])))
    # The CLI's reader: a file it cannot read is skipped with its reason, the others are stored.
    batch = read_annotation_files(paths, limit=profile.get("annotation_limit"))
    if paths and not batch.results:
        raise ConfigError(batch.summary_line())
    for name, reason in batch.skipped:
        context.log.warning(f"annotation file skipped: {name}: {reason}")
    with duckdb.get_connection() as con:
        ensure_schema(con)
        store_batch(con, batch)
    summaries = []
    for result in batch.results:
        summary = result.summary()
        summaries.append(
            {"file": Path(result.path).name, **{k: summary[k] for k in ("n", "accuracy", "scr", "skipped")}}
        )
    return dg.MaterializeResult(
        metadata={
            "files": len(batch.results),
            "rows": batch.rows,
            "skipped_files": len(batch.skipped),
            "summary": batch.summary_line(),
            "per_file": dg.MetadataValue.md(markdown_table(summaries, limit=60)),
        }
    )


def _annotation_targets(
    con: Any, limit: int | None
) -> list[tuple[dict[str, Any], detection.DetectionTarget]]:
    rows = fetch_dicts(
        con,
        """
        SELECT annotation_id, source, dataset, model, setting, question, response, correct
        FROM (SELECT *, row_number() OVER (PARTITION BY source ORDER BY row_number) AS k FROM raw.annotations)
        WHERE CAST(? AS INTEGER) IS NULL OR k <= CAST(? AS INTEGER)
        ORDER BY source, row_number
        """,
        [limit, limit],
    )
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


def _response_targets(con: Any) -> list[tuple[dict[str, Any], detection.DetectionTarget]]:
    rows = fetch_dicts(
        con,
        """
        SELECT a.prompt_id, a.model, a.setting, a.parse_status, a.correct, r.content,
               s.benchmark, s.task, s.sample_id, s.split, s.n, s.variant, s.input, s.gold, s.label,
               s.seed, s.generator_version
        FROM raw.parsed_answers a
        JOIN raw.responses r USING (prompt_id, model)
        JOIN raw.prompts p USING (prompt_id)
        JOIN raw.samples s ON s.sample_id = a.sample_id
        WHERE a.benchmark = ? AND r.error IS NULL AND r.content IS NOT NULL
        ORDER BY a.model, a.prompt_id
        """,
        [BENCHMARK],
    )
    out = []
    for r in rows:
        item = item_of(Sample.from_row(r))
        order = order_of(r["setting"])
        answer = parsing.read_answer(r["content"], item, order)
        target = detection.DetectionTarget(
            target_id=r["prompt_id"],
            question=prompts.question_text(item, order),
            candidates=item.candidates,
            pronoun=item.pronoun,
            answer_text=answer.answer_text,
            reasoning=answer.reasoning,
            predicted=answer.index,
            correct=r["correct"] if r["parse_status"] == "ok" else None,
        )
        meta = {"target_kind": "response", "dataset": r["task"], "model": r["model"], "setting": r["setting"]}
        out.append((meta, target))
    return out


@dg.asset(
    group_name="model_output",
    deps=[parsed_answers, selfcontra_annotations],
    tags=family_tag(BENCHMARK),
    description="A judge model's Self-Contra verdicts (I+R→O, binary, FGE) on annotated and own responses "
    "(raw.detections).",
)
def selfcontra_detections(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
    profile = run_settings.profile_for(BENCHMARK)
    judge = run_settings.judge_model()
    spec = get_model(run_settings.models_path(), judge)
    require_api_key(spec)
    methods, limit = run_settings.detection_plan()
    unknown = [m for m in methods if m not in detection.METHODS]
    if unknown:
        raise ConfigError(f"detect_methods {unknown} unknown; known: {', '.join(detection.METHODS)}")
    max_tokens = int(profile.get("judge_max_tokens", 8))
    with duckdb.get_connection() as con:
        ensure_schema(con)
        targets = [] if limit == 0 else _annotation_targets(con, limit)
        targets += _response_targets(con)
        known = dict(
            con.execute(
                "SELECT prompt_id, input_tokens FROM raw.prompts WHERE kind = ? AND tokenizer = ?",
                [JUDGE_KIND, DEFAULT_TOKENIZER],
            ).fetchall()
        )
    # One prompt row per distinct judge prompt; identical texts share one call.
    prompt_rows: dict[str, dict[str, Any]] = {}
    plan: list[tuple[dict[str, Any], detection.DetectionTarget, str, dict[str, str]]] = []
    for meta, target in targets:
        for method in methods:
            probe_ids: dict[str, str] = {}
            for probe, messages in detection.judge_prompts(method, target).items():
                pid = stable_hash(_JUDGE_ID_TAG, probe, messages, detection.TEMPLATE_VERSION)
                probe_ids[probe] = pid
                prompt_rows[pid] = {
                    "prompt_id": pid,
                    "sample_id": target.target_id,
                    "benchmark": BENCHMARK,
                    "kind": JUDGE_KIND,
                    "task": method,
                    "split": meta["target_kind"],
                    "setting": probe,
                    "messages": json.dumps(messages),
                    "template_version": detection.TEMPLATE_VERSION,
                    "max_tokens": max_tokens * (4 if probe == "iro" else 1),
                    "input_tokens": None,
                    "tokenizer": DEFAULT_TOKENIZER,
                }
            plan.append((meta, target, method, probe_ids))
    for pid, row in prompt_rows.items():
        tokens = known.get(pid)
        row["input_tokens"] = tokens if tokens is not None else count_tokens(json.loads(row["messages"]))
    with duckdb.get_connection() as con:
        upsert_rows(con, "prompts", list(prompt_rows.values()))
    # The judge's calls write the lake only; DuckDB is not open meanwhile.
    todo = [{**row, "messages": json.loads(row["messages"])} for row in prompt_rows.values()]
    progress = ProgressPrinter(log=lambda line: (context.log.info(line), print(line, file=sys.stderr)))
    store = ResponseStore.default()
    stats = run_model(store, spec, todo, progress=progress)
    replies = {
        pid: row["content"]
        for pid, row in store.latest(judge, list(prompt_rows)).items()
        if row["error"] is None
    }
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    rows = []
    for meta, target, method, probe_ids in plan:
        verdict = detection.decide(method, target, {p: replies.get(pid) for p, pid in probe_ids.items()})
        rows.append(
            {
                "detection_id": stable_hash(
                    method, judge, meta["target_kind"], target.target_id, meta["model"]
                ),
                "method": method,
                "judge": judge,
                **meta,
                "target_id": target.target_id,
                "status": verdict.status,
                "self_contra": verdict.self_contra,
                "type": verdict.type,
                "correct": target.correct,
                "probes": json.dumps(verdict.probes),
                "created_at": now,
            }
        )
    # This run's judge and methods define their verdicts; other judges' and methods' rows stay.
    in_methods = ", ".join("?" for _ in methods)
    with duckdb.get_connection() as con:
        replace_rows(con, "detections", rows, f"judge = ? AND method IN ({in_methods})", [judge, *methods])
    status = Counter((r["method"], r["status"]) for r in rows)
    return dg.MaterializeResult(
        metadata={
            "judge": judge,
            "targets": len(targets),
            "judge_prompts": len(todo),
            "verdicts": len(rows),
            "judge_calls": stats.called,
            "from_cache": stats.cached + stats.skipped,
            "errors": stats.errors,
            "status": dg.MetadataValue.json({f"{m}/{s}": c for (m, s), c in sorted(status.items())}),
        }
    )


@dg.asset(
    group_name="model_output",
    pool=DUCKDB_POOL,
    deps=[parsed_answers],
    partitions_def=models_partitions,
    tags=family_tag("relational"),
    description="Symbolic Self-Contra of one model's relational CoT responses: every stated fact checked "
    "against the sample's knowledge base (raw.symbolic_checks).",
)
def symbolic_checks(context: dg.AssetExecutionContext, duckdb: DuckDBFile):
    model = context.partition_key
    with duckdb.get_connection() as con:
        ensure_schema(con)
        joined = fetch_dicts(
            con,
            """
            SELECT a.prompt_id, a.setting, a.parse_status, a.correct, r.content,
                   s.benchmark, s.task, s.sample_id, s.split, s.n, s.variant, s.input, s.gold, s.label,
                   s.seed, s.generator_version
            FROM raw.parsed_answers a
            JOIN raw.responses r USING (prompt_id, model)
            JOIN raw.samples s ON s.sample_id = a.sample_id
            WHERE a.model = ? AND a.benchmark = 'relational' AND a.setting = 'nl_cot'
              AND r.error IS NULL AND r.content IS NOT NULL
            """,
            [model],
        )
        rows = []
        for r in joined:
            verdict = check_reasoning(
                Sample.from_row(r), r["content"], r["correct"] if r["parse_status"] == "ok" else None
            )
            rows.append(
                {
                    "prompt_id": r["prompt_id"],
                    "model": model,
                    "task": r["task"],
                    "split": r["split"],
                    "setting": r["setting"],
                    "correct": r["correct"] if r["parse_status"] == "ok" else None,
                    "n_steps": verdict.n_steps,
                    "n_claims": len(verdict.claims),
                    "n_checked": verdict.n_checked,
                    "n_false": len(verdict.false_claims),
                    "n_contradictions": len(verdict.contradictions),
                    "category": verdict.category,
                    "self_contra": verdict.self_contra,
                    "detail": json.dumps(verdict.detail(), default=str),
                }
            )
        replace_rows(con, "symbolic_checks", rows, "model = ?", [model])
    categories = Counter(r["category"] for r in rows)
    return dg.MaterializeResult(
        metadata={"responses": len(rows), **{f"category_{k}": v for k, v in sorted(categories.items())}}
    )
