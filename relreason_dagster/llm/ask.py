"""Ask one model a batch of follow-up prompts and get its replies: the one way every step does it.

A follow-up step (KOR self-correction, a judge, a toy family's step) only says *what* to ask
(``benchmarks.base.StepPrompt``); this helper does the rest, in the order that keeps the DuckDB file
free while the model works: count the prompts' input tokens (reusing stored counts: a prompt id
hashes its text), store them in ``raw.prompts``, call the model through the gateway (cached by
request, answers written to the lake), and read the replies back.  No Dagster here: the generic
step assets call it, and so can a notebook.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from relreason_dagster.benchmarks.base import FollowUpStep, Profile, Reply, StepPrompt, StepRows
from relreason_dagster.common.duckdb_rows import upsert_rows
from relreason_dagster.common.tokenizer import DEFAULT_TOKENIZER, chat_prompt_tokens_many
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.run_stats import ProgressFn, RunStats
from relreason_dagster.storage.responses import ResponseStore

# Opens a short DuckDB connection (``DuckDBFile.get_connection`` or ``duckdb_io.duckdb_session``).
Connect = Callable[[], contextlib.AbstractContextManager[Any]]

NO_RESPONSE = "no response stored"


@dataclass
class Asked:
    """The replies to one batch, by prompt id, and the gateway's counts (calls, cache hits, errors)."""

    replies: dict[str, Reply]
    stats: RunStats


def prompt_rows(
    prompts: Sequence[StepPrompt], benchmark: str, kind: str, known_tokens: dict[str, int]
) -> list[dict[str, Any]]:
    """``raw.prompts`` rows of ``prompts`` (one per distinct id), each with its input token count."""
    distinct: dict[str, StepPrompt] = {}
    for p in prompts:
        distinct.setdefault(p.prompt_id, p)
    new = [p for p in distinct.values() if p.prompt_id not in known_tokens]
    counts = chat_prompt_tokens_many([p.messages for p in new])
    counted = dict(zip((p.prompt_id for p in new), counts, strict=True))
    rows = []
    for p in distinct.values():
        row = p.row(benchmark, kind)
        row["input_tokens"] = known_tokens.get(p.prompt_id, counted.get(p.prompt_id))
        row["tokenizer"] = DEFAULT_TOKENIZER
        rows.append(row)
    return rows


def ask_model(
    spec: ModelEntry,
    prompts: Sequence[StepPrompt],
    *,
    benchmark: str,
    kind: str,
    connect: Connect,
    store: ResponseStore,
    progress: ProgressFn | None = None,
    key_checked: bool = False,
    ledger: str | None = None,
) -> Asked:
    """Store ``prompts`` (benchmark ``benchmark``, kind ``kind``), ask ``spec``'s model, return the replies.

    Every prompt gets a reply: a stored answer, the provider's error, or ``no response stored``.
    ``ledger``: the Dagster run whose count of requests sent the gateway keeps (``run_model``).
    """
    ids = list(dict.fromkeys(p.prompt_id for p in prompts))
    if not ids:
        return Asked({}, RunStats(model=spec.name))
    with connect() as con:
        known = dict(
            con.execute(
                "SELECT prompt_id, input_tokens FROM raw.prompts WHERE tokenizer = ? AND prompt_id IN "
                "(SELECT unnest(?::VARCHAR[]))",
                [DEFAULT_TOKENIZER, ids],
            ).fetchall()
        )
        rows = prompt_rows(prompts, benchmark, kind, known)
        upsert_rows(con, "prompts", rows)
    # The model's calls write the lake only; DuckDB is not open meanwhile.
    todo = [{**row, "messages": json.loads(row["messages"])} for row in rows]
    stats = run_model(store, spec, todo, progress=progress, key_checked=key_checked, ledger=ledger)
    stored = store.latest(spec.name, ids)
    replies = {}
    for pid in ids:
        row = stored.get(pid)
        replies[pid] = Reply(None, NO_RESPONSE) if row is None else Reply(row["content"], row["error"])
    return Asked(replies, stats)


def run_step(
    step: FollowUpStep,
    stored: dict[str, list[dict[str, Any]]],
    profile: Profile,
    model: str,
    ask: Callable[[list[StepPrompt]], dict[str, Reply]],
) -> StepRows:
    """Drive ``step`` to its rows: ask what it asks, batch after batch, until it asks nothing new.

    ``ask`` answers one batch (``ask_model`` in the pipeline, a dict lookup in a test).  A
    multi-round step asks its next round once the replies of the last one are in.
    """
    replies: dict[str, Reply] = {}
    while step.kind is not None:
        asked = step.prompts(stored, profile, model, replies)
        new = list({p.prompt_id: p for p in asked if p.prompt_id not in replies}.values())
        if not new:
            break
        replies |= ask(new)
    return step.rows(stored, profile, model, replies)
