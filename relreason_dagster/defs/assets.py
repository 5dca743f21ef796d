"""The pipeline's assets: samples -> prompts -> model_responses -> parsed_answers.

Each asset is a thin wrapper: it calls the pure benchmark code or the LLM
gateway and moves rows into DuckDB or the lake.  Those that write the DuckDB
file share the ``duckdb`` pool (one slot); ``model_responses`` only reads it
(briefly) and writes the lake, so models run side by side.
"""

import json
import os
import socket
import sys
import time
from collections import Counter
from typing import Any

import dagster as dg

from relreason_dagster.benchmarks.base import Sample, study_generation
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.common.duckdb_rows import fetch_dicts, markdown_table, replace_rows
from relreason_dagster.common.tokenizer import DEFAULT_TOKENIZER, chat_prompt_tokens_many
from relreason_dagster.defs.partitions import CELERY_QUEUE_TAG, DUCKDB_POOL, MODEL_QUEUE, models_partitions
from relreason_dagster.defs.resources import DuckDBFile, RunSettings
from relreason_dagster.defs.vanished_files import retry_if_lake_files_vanish
from relreason_dagster.launch_plan import spec_record
from relreason_dagster.llm.context_window import context_window, split_too_long
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.run_stats import ProgressPrinter, RunStats
from relreason_dagster.storage import answered, built_from
from relreason_dagster.storage.fingerprints import code_digest
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.parsed_answers import refresh_parsed_answers
from relreason_dagster.storage.parsed_draws import refresh_parsed_draws
from relreason_dagster.storage.prompt_snapshots import (
    current_prompts,
    first_samples,
    snapshot_rows,
    write_snapshot,
)
from relreason_dagster.storage.prompt_tokens import count_for_models, model_tokenizers
from relreason_dagster.storage.responses import ResponseStore
from relreason_dagster.storage.schema import TEST_KIND, ensure_schema
from relreason_dagster.storage.too_long import refresh_too_long, write_left_out


def _in_list(values: list[str]) -> str:
    return ", ".join("?" for _ in values)


@dg.asset(
    group_name="inputs",
    pool=DUCKDB_POOL,
    description="Generated benchmark samples of every selected family at the run's profile (raw.samples).",
)
def samples(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
    families = run_settings.family_names()
    code = code_digest()
    keys = {
        name: built_from.samples_key(name, run_settings.profile_for(name), run_settings.seed, code)
        for name in families
    }
    with duckdb.get_connection() as con:
        ensure_schema(con)
        kept = built_from.unchanged(
            con, built_from.SAMPLES, keys, "SELECT count(*) FROM raw.samples WHERE benchmark = ?"
        )
        todo = [name for name in families if name not in kept]
        rows: list[dict[str, Any]] = []
        for name in todo:
            generated = get_family(name).generate(run_settings.profile_for(name), run_settings.seed)
            rows.extend(s.row() for s in generated)
        if todo:
            built_from.forget(con, built_from.SAMPLES, todo)
            replace_rows(con, "samples", rows, f"benchmark IN ({_in_list(todo)})", todo)
            built = Counter(r["benchmark"] for r in rows)
            built_from.record(con, built_from.SAMPLES, {name: (keys[name], built[name]) for name in todo})
        summary = fetch_dicts(
            con,
            "SELECT benchmark, task, split, count(*) AS samples FROM raw.samples"
            f" WHERE benchmark IN ({_in_list(families)}) GROUP BY ALL ORDER BY ALL",
            families,
        )
    return dg.MaterializeResult(
        metadata={
            "rows": sum(r["samples"] for r in summary),
            "generated": len(rows),
            "kept": dg.MetadataValue.json(sorted(kept)),
            "profile": run_settings.profile,
            "seed": run_settings.seed,
            "per_task": dg.MetadataValue.md(markdown_table(summary, limit=60)),
        }
    )


@dg.asset(
    group_name="inputs",
    pool=DUCKDB_POOL,
    deps=[samples],
    description="Prompts for every test sample and setting, with input token counts (raw.prompts).",
)
def prompts(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
    families = run_settings.family_names()
    code = code_digest()
    lake = Lake.default()
    rows: list[dict[str, Any]] = []
    with duckdb.get_connection() as con:
        ensure_schema(con)
        sample_keys = built_from.stored_keys(con, built_from.SAMPLES, families)
        keys = {
            name: built_from.prompts_key(name, run_settings.profile_for(name), sample_keys[name][0], code)
            for name in families
            if name in sample_keys
        }
        count_sql = f"SELECT count(*) FROM raw.prompts WHERE benchmark = ? AND kind = '{TEST_KIND}'"
        kept = {
            name
            for name, n in built_from.unchanged(con, built_from.PROMPTS, keys, count_sql).items()
            # Model workers read the lake's snapshot: keep only a family whose snapshot is there too.
            if snapshot_rows(lake, name) == n
        }
        todo = [name for name in families if name not in kept]
        for name in todo:
            family = get_family(name)
            sample_rows = fetch_dicts(con, "SELECT * FROM raw.samples WHERE benchmark = ?", [name])
            built = family.build_prompts(
                [Sample.from_row(r) for r in sample_rows], run_settings.profile_for(name)
            )
            # prompt_id hashes the prompt's content, so a stored count is still exact: tokenize only new ones.
            known = dict(
                con.execute(
                    "SELECT prompt_id, input_tokens FROM raw.prompts WHERE benchmark = ? AND tokenizer = ?",
                    [name, DEFAULT_TOKENIZER],
                ).fetchall()
            )
            new = [p for p in built if p.prompt_id not in known]
            counts = chat_prompt_tokens_many([p.messages for p in new])
            known.update(zip((p.prompt_id for p in new), counts, strict=True))
            for p in built:
                row = p.row()
                row["input_tokens"] = known[p.prompt_id]
                row["tokenizer"] = DEFAULT_TOKENIZER
                row["kind"] = TEST_KIND
                rows.append(row)
        if todo:
            built_from.forget(con, built_from.PROMPTS, todo)
            # Only test prompts are rebuilt here; follow-ups (self-correction, judge) belong to their assets.
            replace_rows(
                con, "prompts", rows, f"kind = '{TEST_KIND}' AND benchmark IN ({_in_list(todo)})", todo
            )
            by_family = {name: [r for r in rows if r["benchmark"] == name] for name in todo}
            for name in todo:  # model workers read these, so model calls never need the DuckDB file
                write_snapshot(lake, name, by_family[name])
            built_from.record(
                con,
                built_from.PROMPTS,
                {name: (keys[name], len(by_family[name])) for name in todo if name in keys},
            )
        # Each run model that names its own tokenizer (models.yaml ``tokenizer:``) gets its counts too.
        own = count_for_models(
            con, model_tokenizers(spec_record(spec) for spec in run_settings.launched_specs()), families
        )
        if own:
            context.log.info(f"prompts counted in the models' own tokenizers: {own}")
        stats = fetch_dicts(
            con,
            "SELECT benchmark, setting, count(*) AS n, max(input_tokens) AS max_tokens,"
            " sum(input_tokens) AS sum_tokens FROM raw.prompts"
            f" WHERE kind = '{TEST_KIND}' AND benchmark IN ({_in_list(families)}) GROUP BY ALL ORDER BY ALL",
            families,
        )
        if rows:
            preview = rows[0]["messages"]
        else:
            first = con.execute(
                f"SELECT messages FROM raw.prompts WHERE kind = '{TEST_KIND}' AND benchmark IN "
                f"({_in_list(families)}) ORDER BY prompt_id LIMIT 1",
                families,
            ).fetchone()
            preview = first[0] if first else ""
    n = sum(r["n"] for r in stats)
    return dg.MaterializeResult(
        metadata={
            "rows": n,
            "built": len(rows),
            "kept": dg.MetadataValue.json(sorted(kept)),
            "per_setting": dg.MetadataValue.json({f"{r['benchmark']}/{r['setting']}": r["n"] for r in stats}),
            "input_tokens_max": max((r["max_tokens"] or 0 for r in stats), default=0),
            "input_tokens_mean": round(sum(r["sum_tokens"] or 0 for r in stats) / n, 1) if n else 0,
            "preview": dg.MetadataValue.md(f"```\n{preview[:1500]}\n```"),
        }
    )


def _asked(run_settings: RunSettings, spec: Any, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The prompts model ``spec`` is asked: a family may choose by the model's kind (models.yaml: chat or
    base) with ``asks(profile, kind, setting)`` (KOR-Bench's paper profile: chat zero-shot, base
    three-shot), and by the model itself with ``prompts_for_model(profile, entry, rows)`` (Self-Contra's
    paper profile: each study model in the wording the study asked it)."""
    kind = spec.kind
    deciders = {}
    for name in {row["benchmark"] for row in rows}:
        asks = getattr(get_family(name), "asks", None)
        if asks is not None:
            deciders[name] = (asks, run_settings.profile_for(name))
    kept = [
        row
        for row in rows
        if row["benchmark"] not in deciders
        or row.get("setting") is None  # a snapshot written before prompts carried their setting
        or deciders[row["benchmark"]][0](deciders[row["benchmark"]][1], kind, row["setting"])
    ]
    return model_prompts(kept, spec_record(spec), run_settings.profile_for)


def model_prompts(
    rows: list[dict[str, Any]], entry: dict[str, Any], profile_for: Any
) -> list[dict[str, Any]]:
    """``rows`` as the model of ``entry`` is asked them: each family with ``prompts_for_model`` picks
    its own rows (``profile_for(family)``: its profile section); the others' rows are kept."""
    out: list[dict[str, Any]] = []
    for name in dict.fromkeys(row["benchmark"] for row in rows):
        mine = [row for row in rows if row["benchmark"] == name]
        pick = getattr(get_family(name), "prompts_for_model", None)
        out.extend(pick(profile_for(name), entry, mine) if pick is not None else mine)
    return out


def _generation_params(run_settings: RunSettings, families: list[str]) -> dict[str, dict[str, Any]]:
    """Per family, the generation params its profile states (the ``generation`` knob: FLenQA's paper
    profile runs at temperature 0 and top-p 0, as the study did); they go on top of the model's."""
    out = {}
    for name in families:
        stated = study_generation(run_settings.profile_for(name))
        if stated:
            out[name] = dict(stated)
    return out


def _fitting(spec: Any, lake: Lake, todo: list[dict[str, Any]], say: Any) -> tuple[list[dict[str, Any]], int]:
    """The prompts of ``todo`` that fit the model's context window with their ``max_tokens`` (all of
    them when the window is unknown), and how many did not; those left out are recorded for the marts
    (storage/too_long.py) and said in one line.  Why here and not only at the door: only FLenQA's
    lengths are known before its prompts exist; every family's prompts are checked here, counted in the
    project's tokenizer."""
    window, source = context_window(spec)
    left: list[tuple[dict[str, Any], int]] = []
    if window is not None:
        todo, left = split_too_long(todo, window, (spec.params or {}).get("max_tokens"))
    write_left_out(lake, spec.name, window, source, left)
    if left:
        say(
            f"relreason: {spec.name}: left out {len(left)} prompts that do not fit its {window:,}-token "
            f"context window ({source}) with their max_tokens (up to {max(n for _, n in left):,} tokens); "
            "counted in the marts (prompts_too_long)"
        )
    return todo, len(left)


@dg.asset(
    group_name="model_output",
    deps=[prompts],
    # Celery: model calls go to the queue every worker serves, also on machines without the DuckDB file.
    op_tags={CELERY_QUEUE_TAG: MODEL_QUEUE},
    partitions_def=models_partitions,
    description="One model's responses to every prompt, through LiteLLM, cached by request "
    "(Parquet lake; the view raw.responses).",
)
def model_responses(context: dg.AssetExecutionContext, run_settings: RunSettings):
    started = time.time()
    spec = run_settings.model(context.partition_key)  # its key checked once: at the launch, or here
    lake = Lake.default()
    families = run_settings.family_names()
    generation = _generation_params(run_settings, families)
    samples = {name: run_settings.samples_for(name) for name in families}
    drawn = {name: k for name, k in samples.items() if k > 1}
    # Progress goes to the run's log (UI) and to stderr (CLI, compute logs).
    progress = ProgressPrinter(log=lambda line: (context.log.info(line), print(line, file=sys.stderr)))
    # More draws (or another --limit) are a pass still to make; otherwise the key is as it always was.
    asked = {**generation, "_samples": drawn} if drawn else generation
    if run_settings.limit:
        asked = {**asked, "_limit": run_settings.limit}
    key = answered.pass_key(lake, spec, families, asked)
    record = answered.read_pass(lake, spec.name) if key is not None else None
    too_long = None  # prompts left out this pass: over the model's context window (None: no pass made)
    if record is not None and record["key"] == key:
        # Nothing changed since a pass that answered every prompt: nothing to ask, nothing to store.
        stats = RunStats(model=spec.name, total=record["prompts"], skipped=record["prompts"])
        progress(stats.done, stats.total, stats)
    else:
        answered.forget_pass(lake, spec.name)
        # The prompts' lake snapshot, not the DuckDB file: this step runs on any worker that sees the lake.
        todo = _asked(run_settings, spec, current_prompts(lake, families))
        if run_settings.limit:
            todo = first_samples(todo, run_settings.limit)
        for row in todo:
            row["messages"] = json.loads(row["messages"])
            if generation.get(row["benchmark"]):
                row["params"] = generation[row["benchmark"]]
            row["samples"] = samples.get(row["benchmark"], 1)
        todo, too_long = _fitting(spec, lake, todo, progress.log)
        # The run's id keeps the requests it sent in the lake too: the launch's count if this step's
        # event is lost (storage/sent_requests.py).
        stats = run_model(
            ResponseStore(lake), spec, todo, progress=progress, key_checked=True, ledger=context.run_id
        )
        if stats.errors == 0 and stats.done == stats.total and not stats.budget_stopped:
            # The listing now holds this pass's writes.
            after = answered.pass_key(lake, spec, families, asked)
            if after is not None:
                answered.write_pass(lake, spec.name, after, stats.total)
    context.log.info(stats.summary())
    return dg.MaterializeResult(
        metadata={
            "prompts": stats.total,
            **({} if too_long is None else {"too_long": too_long}),
            # Requests sent; identical prompts answered by one request are counted apart.
            "model_calls": stats.called,
            "shared_prompts": stats.shared,
            "from_cache": stats.cached,
            "already_stored": stats.skipped,
            "errors": stats.errors,
            "seconds": round(stats.seconds, 2),
            # Waiting for another launch of the same model: how long, and when this run took over
            # (the lake's rows from before are the other launch's calls, not this one's).
            "waited_s": round(stats.waited_s, 2),
            "claimed_at": stats.claimed_at if stats.claimed_at is not None else 0.0,
            "summary": stats.summary(),
            # Where and when it ran: a distributed run's steps can be told apart and their overlap seen.
            "worker": f"{socket.gethostname()}:{os.getpid()}",
            "started_at": started,
            "finished_at": time.time(),
        }
    )


@dg.asset(
    group_name="model_output",
    pool=DUCKDB_POOL,
    deps=[model_responses],
    partitions_def=models_partitions,
    description="Parsed and scored answers of one model to the test prompts (raw.parsed_answers); "
    "never calls a model.",
)
def parsed_answers(context: dg.AssetExecutionContext, duckdb: DuckDBFile):
    with retry_if_lake_files_vanish():  # another model's run may compact its files meanwhile
        return _parse_answers(context.partition_key, duckdb)


def _parse_answers(model: str, duckdb: DuckDBFile) -> dg.MaterializeResult:
    code = code_digest()
    with duckdb.get_connection() as con:
        ensure_schema(con)
        too_long = refresh_too_long(con, Lake.default(), model)  # prompts over its window, counted
        now, rows = built_from.parsed_key(con, model, code)
        if built_from.stored_keys(con, built_from.PARSED, [model]).get(model) == (now, rows):
            counts = {"rows": rows, "parsed": 0, "kept": rows, "deleted": 0}  # nothing a refresh would change
        else:
            built_from.forget(con, built_from.PARSED, [model])
            counts = refresh_parsed_answers(con, model)
            draws = refresh_parsed_draws(con, model)
            if draws["rows"] or draws["deleted"]:
                counts |= {f"draws_{k}": v for k, v in draws.items()}
            built_from.record(con, built_from.PARSED, {model: built_from.parsed_key(con, model, code)})
        status = con.execute(
            "SELECT parse_status, count(*) FROM raw.parsed_answers a JOIN raw.prompts p USING (prompt_id)"
            " WHERE a.model = ? AND p.kind = ? GROUP BY 1 ORDER BY 1",
            [model, TEST_KIND],
        ).fetchall()
    return dg.MaterializeResult(
        metadata={**counts, "too_long": too_long, **{f"parse_status_{k}": v for k, v in status}},
    )
