"""``raw.prompt_tokens``: each test prompt counted in the own tokenizer of every run model that names one.

Why a table of its own: ``raw.prompts.input_tokens`` is relreason's count (the default tokenizer, the one
FLenQA's targets are met in) and is shared by every model; a model's own count differs per model, so it
is keyed by (prompt, model).  Written by the ``prompts`` asset, for the run's models only, and only for
prompts not yet counted in the model's current tokenizer: a second run counts nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from relreason_dagster.common.duckdb_rows import upsert_rows
from relreason_dagster.common.model_tokenizers import count_many
from relreason_dagster.storage.schema import TEST_KIND


def model_tokenizers(specs: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """``{model: tokenizer}`` of the specs (``ModelEntry.model_dump()``) whose entry names a tokenizer."""
    return {str(s["name"]): str(s["tokenizer"]) for s in specs if s.get("tokenizer")}


def count_for_models(con: Any, tokenizers: Mapping[str, str], families: list[str]) -> dict[str, int]:
    """Count the families' test prompts in each model's tokenizer where not yet counted; new rows per model.

    A model whose entry now names another tokenizer has its old counts replaced.
    """
    added: dict[str, int] = {}
    if not families:
        return added
    for model, tokenizer in sorted(tokenizers.items()):
        con.execute("DELETE FROM raw.prompt_tokens WHERE model = ? AND tokenizer <> ?", [model, tokenizer])
        todo = con.execute(
            "SELECT p.prompt_id, p.messages FROM raw.prompts p WHERE p.kind = ? AND p.benchmark IN "
            "(SELECT unnest(?::VARCHAR[])) AND p.prompt_id NOT IN "
            "(SELECT prompt_id FROM raw.prompt_tokens WHERE model = ?) ORDER BY p.prompt_id",
            [TEST_KIND, families, model],
        ).fetchall()
        if not todo:
            continue
        counts = count_many(tokenizer, [json.loads(messages) for _, messages in todo])
        rows = [
            {"prompt_id": pid, "model": model, "tokenizer": tokenizer, "input_tokens": n}
            for (pid, _), n in zip(todo, counts, strict=True)
        ]
        upsert_rows(con, "prompt_tokens", rows)
        added[model] = len(rows)
    return added
