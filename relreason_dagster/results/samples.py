"""Per-sample results: one model's answer next to its prompt, gold answer, parse status and score.

Everything here reads ``marts.sample_results`` (a dbt view, the one definition of the join), so the
CLI's ``relreason samples``, the HTML report and ``relreason export`` show the same rows.
"""

from __future__ import annotations

import json
from typing import Any

from relreason_dagster.benchmarks.registry import family_module, family_names
from relreason_dagster.errors import ConfigError

VIEW = "marts.sample_results"
# What a researcher filters on: --wrong, --na; "error" (the provider gave no answer) for completeness.
OUTCOMES = ("correct", "wrong", "na", "error")
_FILTERS = ("model", "benchmark", "task", "setting")
_JSON_COLUMNS = ("messages", "gold", "parsed", "detail")


def _decode(value: Any) -> Any:
    """DuckDB returns JSON columns as text; a malformed value stays text rather than raising."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def sample_rows(
    con: Any,
    *,
    model: str | None = None,
    benchmark: str | None = None,
    task: str | None = None,
    setting: str | None = None,
    outcome: str | None = None,
    cut: bool = False,
    limit: int | None = None,
) -> list[dict[str, Any]]:
    """Rows of ``marts.sample_results`` matching the filters, JSON columns decoded.

    Each dict holds ``model, benchmark, task, setting, split, sample_id, prompt_id, messages`` (a list
    of ``{role, content}``; None for a baseline model, which reads the sample, not a prompt),
    ``response`` (the full text, None when the provider failed or for a baseline model),
    ``served_model`` (the model the provider said answered; None for errors and older rows), ``gold,
    parsed, parse_status, correct, tp, fp, fn, f1, outcome`` and a few more (``response_error``,
    ``input_tokens``, ``detail``).
    ``outcome``: None (all), ``correct``, ``wrong`` (readable but not exactly right), ``na`` (unreadable
    or refused) or ``error``.  ``cut``: only answers the token or thinking budget stopped (the view's
    ``cut``, macros/cut.sql), with any outcome: a cut answer is scored as parsed, so it may be na or wrong.
    """
    if outcome is not None and outcome not in OUTCOMES:
        raise ConfigError(f"unknown outcome {outcome!r}; expected one of {', '.join(OUTCOMES)}")
    if limit is not None and limit < 0:
        raise ConfigError(f"limit must be >= 0, got {limit}")
    where: list[str] = []
    params: list[Any] = []
    for column, value in zip(_FILTERS, (model, benchmark, task, setting), strict=True):
        if value is not None:
            where.append(f"{column} = ?")
            params.append(value)
    if outcome is not None:
        where.append("outcome = ?")
        params.append(outcome)
    if cut:
        where.append("cut")
    sql = f"SELECT * FROM {VIEW}"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY model, benchmark, task, setting, split, sample_id, prompt_id"
    if limit is not None:
        sql += f" LIMIT {int(limit)}"
    cur = con.execute(sql, params)
    columns = [d[0] for d in cur.description]
    rows = []
    for values in cur.fetchall():
        row = dict(zip(columns, values, strict=True))
        for column in _JSON_COLUMNS:
            if column in row:
                row[column] = _decode(row[column])
        rows.append(row)
    return rows


def cell_scored() -> set[str]:
    """The families whose per-sample score is F1 over answer cells (``CELL_SCORED`` in their
    ``report.py``): their F1 is shown even when no cell was found or claimed."""
    return {name for name in family_names() if getattr(family_module(name, "report"), "CELL_SCORED", False)}


def score_text(row: dict[str, Any], cells_scored: set[str] | None = None) -> str:
    """The score in words: F1 with its cell counts where the task has cells, else right or wrong."""
    if row.get("outcome") == "error":
        return f"no answer (provider error: {row.get('response_error')})"
    parts = []
    scored = cell_scored() if cells_scored is None else cells_scored
    cells = row.get("benchmark") in scored or any(row.get(k) for k in ("tp", "fp", "fn"))
    if row.get("f1") is not None and cells:
        parts.append(f"F1 {row['f1']:.3g} (tp {row['tp']}, fp {row['fp']}, fn {row['fn']})")
    parts.append("correct" if row.get("correct") else "not correct")
    return "; ".join(parts)


def _show(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


# Characters of a reasoning model's thinking shown before it is collapsed (``samples --json`` has it all).
REASONING_SHOWN = 300


def reasoning_size(row: dict[str, Any]) -> str:
    """``"812 tokens"`` when the provider counted them, else the thinking's length in characters."""
    tokens = row.get("reasoning_tokens")
    return f"{tokens} tokens" if tokens else f"{len(row.get('reasoning') or '')} characters"


def collapse(text: str, shown: int = REASONING_SHOWN) -> str:
    """The start of a long thinking and how much is left out: the answer, not the thinking, is the
    point of a sample, and a reasoning model's thinking runs to thousands of tokens."""
    if len(text) <= shown:
        return text
    return f"{text[:shown].rstrip()} … [{len(text) - shown} more characters; --json shows all]"


def format_sample(row: dict[str, Any]) -> str:
    """One sample as plain text: header, every prompt message, the response, gold, parsed and score.

    Nothing is cut: the point is to read the whole exchange.
    """
    head = (
        f"=== {row['model']} | {row['benchmark']} / {row['task']} / {row['setting']} / {row['split']} | "
        f"sample {row['sample_id']} prompt {row['prompt_id']} | {row['outcome']}"
        f"{' (cut by the budget)' if row.get('cut') else ''} ==="
    )
    lines = [head]
    if row.get("served_model"):  # who answered, as the provider named it (an alias's snapshot)
        lines.append(f"served by {row['served_model']}")
    messages = row.get("messages")
    if isinstance(messages, list):
        for message in messages:
            lines.append(f"--- {message.get('role', '?')} ---")
            lines.append(str(message.get("content", "")))
    else:
        lines.append("--- prompt ---")
        lines.append("(none: a baseline model reads the sample's input itself)")
    if row.get("reasoning"):
        lines.append(f"--- reasoning ({reasoning_size(row)}, not parsed) ---")
        lines.append(collapse(row["reasoning"]))
    lines.append("--- response ---")
    if row.get("response") is not None:
        lines.append(row["response"])
    elif row.get("response_error"):
        lines.append(f"(no response: {row['response_error']})")
    else:
        lines.append("(no text response)")
    lines.append(f"--- gold: {_show(row.get('gold'))}")
    lines.append(f"--- parsed ({row.get('parse_status')}): {_show(row.get('parsed'))}")
    lines.append(f"--- score: {score_text(row)}")
    return "\n".join(lines)
