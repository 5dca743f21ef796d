"""KOR-Bench assets: self-correction rounds (§6.2) and the data-quality checks of its items.

* ``kor_self_correction[model]``: every zero-shot KOR question the model got wrong is sent back with
  the official follow-up ("Your answer is incorrect, ...") for up to ``self_correction_rounds``
  rounds, stopping at the first correct answer.  Each round is a stored prompt (benchmark ``kor``,
  kind ``self_correction``: model-specific because it contains the model's own earlier answers, and
  never parsed as a test answer) and a ``raw.kor_rounds`` row linked to the round before.  When the
  conversation would exceed ``context_tokens`` only the original question, the last answer and the
  follow-up are re-sent —
  the study's "extraction of the previous round's response for re-input".
* Checks on ``samples``: every generated gold passes our scorer against itself; rules × questions
  per category are what the profile asks for; the answer-format distribution (reported, warn only).
"""

import json
import sys
from collections import Counter
from typing import Any

import dagster as dg
import pandas as pd

from data_quality import suites
from relreason_dagster.benchmarks.base import Sample, stable_hash
from relreason_dagster.benchmarks.kor import prompts as kor_prompts
from relreason_dagster.benchmarks.kor.family import (
    BENCHMARK,
    MAX_SELF_CORRECTION_ROUNDS,
    MIXED_TASK,
    KorFamily,
    item_of,
    pool,
)
from relreason_dagster.benchmarks.kor.scoring import score_robust
from relreason_dagster.defs.assets import parsed_answers, samples
from relreason_dagster.defs.checks import check_result
from relreason_dagster.defs.partitions import DUCKDB_POOL, family_tag, models_partitions
from relreason_dagster.defs.resources import DuckDBFile, RunSettings
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.gateway import ProgressPrinter, run_model
from relreason_dagster.llm.registry import get_model, require_api_key
from relreason_dagster.llm.tokenizer import DEFAULT_TOKENIZER, count_tokens
from relreason_dagster.storage.duckdb_io import fetch_dicts, replace_rows, upsert_rows
from relreason_dagster.storage.responses import ResponseStore
from relreason_dagster.storage.schema import SELF_CORRECTION_KIND, ensure_schema

# Hashed into every round's prompt id (the benchmark name these prompts had before the kind column),
# so the ids, and with them the stored answers, stay what they were.
_ROUND_ID_TAG = "kor_selfcorrect"


def _round_row(model: str, sample: Sample, k: int, prompt_id: str, parent: str | None) -> dict[str, Any]:
    return {
        "model": model,
        "sample_id": sample.sample_id,
        "round": k,
        "prompt_id": prompt_id,
        "parent_prompt_id": parent,
        "task": sample.task,
        "split": sample.split,
        "rule_id": sample.variant.get("rule_id"),
    }


def _next_messages(
    messages: list[dict[str, str]], answer: str, limit: int
) -> tuple[list[dict[str, str]], str]:
    """The conversation of the next round, and whether it is the full history or the last answer only."""
    full = [
        *messages,
        {"role": "assistant", "content": answer},
        {"role": "user", "content": kor_prompts.FOLLOW_UP},
    ]
    if count_tokens(full) <= limit:
        return full, "full"
    return [messages[0], full[-2], full[-1]], "last"


@dg.asset(
    group_name="model_output",
    deps=[parsed_answers],
    partitions_def=models_partitions,
    tags=family_tag(BENCHMARK),
    description="KOR-Bench self-correction: wrong zero-shot answers re-asked with the official follow-up, "
    "up to 5 rounds (raw.kor_rounds).",
)
def kor_self_correction(context: dg.AssetExecutionContext, duckdb: DuckDBFile, run_settings: RunSettings):
    model = context.partition_key
    profile = run_settings.profile_for(BENCHMARK)
    rounds = int(profile.get("self_correction_rounds", 0))
    if not 0 <= rounds <= MAX_SELF_CORRECTION_ROUNDS:  # generate() already refused it; the UI may not
        raise ConfigError(f"kor self_correction_rounds must be 0..{MAX_SELF_CORRECTION_ROUNDS}, got {rounds}")
    limit = int(profile.get("context_tokens", 4096))
    family = KorFamily()
    store = ResponseStore.default()
    # DuckDB is opened only for short reads and writes; the rounds' model calls write the lake.
    with duckdb.get_connection() as con:
        ensure_schema(con)
        base = fetch_dicts(
            con,
            """
            SELECT a.prompt_id, a.parse_status, a.correct, a.detail, r.content, p.messages, p.max_tokens,
                   s.benchmark, s.task, s.sample_id, s.split, s.n, s.variant, s.input, s.gold, s.label,
                   s.seed, s.generator_version
            FROM raw.parsed_answers a
            JOIN raw.responses r USING (prompt_id, model)
            JOIN raw.prompts p USING (prompt_id)
            JOIN raw.samples s ON s.sample_id = a.sample_id
            WHERE a.model = ? AND a.benchmark = ? AND a.setting = ? AND s.task <> ?
            ORDER BY a.prompt_id
            """,
            [model, BENCHMARK, kor_prompts.ZERO_SHOT, MIXED_TASK],
        )
    rows: list[dict[str, Any]] = []
    open_: list[dict[str, Any]] = []
    for b in base:
        sample = Sample.from_row(b)
        detail = json.loads(b["detail"]) if isinstance(b["detail"], str) else (b["detail"] or {})
        rows.append(
            _round_row(model, sample, 0, b["prompt_id"], None)
            | {
                "parse_status": b["parse_status"],
                "correct": b["correct"],
                "reason": detail.get("reason"),
                "history": "none",
            }
        )
        if rounds and b["parse_status"] != "error" and not b["correct"] and b["content"] is not None:
            open_.append(
                {
                    "sample": sample,
                    "messages": json.loads(b["messages"]),
                    "answer": b["content"],
                    "prompt_id": b["prompt_id"],
                    "max_tokens": b["max_tokens"],
                }
            )
    n_wrong = len(open_)
    calls = 0
    spec = None
    for k in range(1, rounds + 1):
        if not open_:
            break
        if spec is None:
            spec = get_model(run_settings.models_path(), model)
            require_api_key(spec)
        todo, prompt_rows = [], []
        for state in open_:
            messages, history = _next_messages(state["messages"], state["answer"], limit)
            sample = state["sample"]
            pid = stable_hash(_ROUND_ID_TAG, model, sample.sample_id, k, messages)
            state |= {"next": messages, "next_id": pid, "history": history}
            prompt_rows.append(
                {
                    "prompt_id": pid,
                    "sample_id": sample.sample_id,
                    "benchmark": BENCHMARK,
                    "kind": SELF_CORRECTION_KIND,
                    "task": sample.task,
                    "split": sample.split,
                    "setting": f"round{k}",
                    "messages": json.dumps(messages),
                    "template_version": kor_prompts.TEMPLATE_VERSION,
                    "max_tokens": state["max_tokens"],
                    "input_tokens": count_tokens(messages),
                    "tokenizer": DEFAULT_TOKENIZER,
                }
            )
            todo.append(
                {
                    "prompt_id": pid,
                    "benchmark": BENCHMARK,
                    "messages": messages,
                    "max_tokens": state["max_tokens"],
                }
            )
        with duckdb.get_connection() as con:
            upsert_rows(con, "prompts", prompt_rows)
        progress = ProgressPrinter(log=lambda line: (context.log.info(line), print(line, file=sys.stderr)))
        stats = run_model(store, spec, todo, progress=progress)
        calls += stats.called
        stored = store.latest(model, [s["next_id"] for s in open_])
        replies = {pid: (row["content"], row["error"]) for pid, row in stored.items()}
        still_open = []
        for state in open_:
            sample = state["sample"]
            content, error = replies.get(state["next_id"], (None, "no response stored"))
            row = _round_row(model, sample, k, state["next_id"], state["prompt_id"]) | {
                "history": state["history"]
            }
            if error is not None or content is None:
                rows.append(row | {"parse_status": "error", "correct": None, "reason": str(error)[:200]})
                continue
            parsed = family.parse(sample, kor_prompts.ZERO_SHOT, content)
            rows.append(
                row
                | {
                    "parse_status": parsed.parse_status,
                    "correct": parsed.correct,
                    "reason": parsed.detail.get("reason"),
                }
            )
            if not parsed.correct:
                state |= {"messages": state["next"], "answer": content, "prompt_id": state["next_id"]}
                still_open.append(state)
        open_ = still_open
    with duckdb.get_connection() as con:
        replace_rows(con, "kor_rounds", rows, "model = ?", [model])
    corrected = Counter(r["round"] for r in rows if r["round"] > 0 and r["correct"])
    return dg.MaterializeResult(
        metadata={
            "questions": len(base),
            "wrong_at_round_0": n_wrong,
            "rounds": rounds,
            "model_calls": calls,
            "corrected_per_round": dg.MetadataValue.json({str(k): v for k, v in sorted(corrected.items())}),
        }
    )


# --------------------------------------------------------------------------- checks


def _kor_samples(duckdb: DuckDBFile) -> list[Sample]:
    with duckdb.get_connection() as con:
        ensure_schema(con)
        rows = fetch_dicts(
            con, "SELECT * FROM raw.samples WHERE benchmark = ? AND task <> ?", [BENCHMARK, MIXED_TASK]
        )
    return [Sample.from_row(r) for r in rows]


@dg.asset_check(
    name="kor_gold_self_check",
    asset=samples,
    pool=DUCKDB_POOL,
    description="KOR-Bench: every generated item's gold passes the project's own scorer against itself.",
)
def kor_gold_self_check(duckdb: DuckDBFile) -> dg.AssetCheckResult:
    rows = []
    for sample in _kor_samples(duckdb):
        verdict, reason = score_robust(sample.gold, item_of(sample))
        rows.append(
            {
                "sample_id": sample.sample_id,
                "category": sample.task,
                "source": sample.split,
                "rule_id": sample.variant.get("rule_id"),
                "reason": reason,
                "self_ok": verdict,
            }
        )
    df = pd.DataFrame(rows, columns=["sample_id", "category", "source", "rule_id", "reason", "self_ok"])
    return check_result(suites.kor_gold_self(df), dg.AssetCheckSeverity.ERROR)


@dg.asset_check(
    name="kor_item_counts_check",
    asset=samples,
    pool=DUCKDB_POOL,
    description="KOR-Bench: rules x questions per category as the profile configures them.",
)
def kor_item_counts_check(duckdb: DuckDBFile, run_settings: RunSettings) -> dg.AssetCheckResult:
    found = Counter((s.task, s.variant.get("rule_id")) for s in _kor_samples(duckdb))
    expected_rows = []
    if BENCHMARK in run_settings.family_names():
        profile = run_settings.profile_for(BENCHMARK)
        items, skipped = pool(profile, run_settings.seed)
        expected = Counter((p.item.category, p.item.rule_id) for p in items)
        for category, rule_id in sorted(set(expected) | set(found)):
            expected_rows.append(
                {
                    "category": category,
                    "rule_id": rule_id,
                    "expected": expected.get((category, rule_id), 0),
                    "stored": found.get((category, rule_id), 0),
                }
            )
    df = pd.DataFrame(expected_rows, columns=["category", "rule_id", "expected", "stored"])
    return check_result(suites.kor_item_counts(df), dg.AssetCheckSeverity.ERROR)


@dg.asset_check(
    name="kor_answer_formats_check",
    asset=samples,
    pool=DUCKDB_POOL,
    description="KOR-Bench: answer-format distribution (NR/ME/TR/MC/SD) per category and source (reported).",
)
def kor_answer_formats_check(duckdb: DuckDBFile) -> dg.AssetCheckResult:
    counts = Counter((s.task, s.split, s.variant.get("answer_format")) for s in _kor_samples(duckdb))
    df = pd.DataFrame(
        [
            {"category": c, "source": src, "answer_format": f, "n": n}
            for (c, src, f), n in sorted(counts.items())
        ],
        columns=["category", "source", "answer_format", "n"],
    )
    return check_result(suites.answer_formats(df), dg.AssetCheckSeverity.WARN)


KOR_CHECKS = [kor_gold_self_check, kor_item_counts_check, kor_answer_formats_check]
