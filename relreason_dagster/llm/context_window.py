"""A model's context window, and which prompts do not fit it (prompt + ``max_tokens``).

Why: an over-long prompt used to be sent anyway, then paid or refused by the provider, or silently
cut by a self-hosted server, and the run's accuracy at that length was read from what was left.  Now
the window is known before a call: the entry's own ``context_window`` (models.yaml), else LiteLLM's
``max_input_tokens`` for the model from its offline cost map, else unknown (nothing is checked, and
``--dry-run`` says so).  A prompt fits when its tokens plus its reply's ``max_tokens`` fit the window.

Tokens are counted with the project's tokenizer (``common/tokenizer.py``), the same count ``--dry-run``
and the stored ``input_tokens`` use: another model's own tokenizer counts differently, so a prompt
right at the edge of the window may still be refused by the provider, which is then stored as an error
row as before.  Needs no Dagster; LiteLLM's window is read from its cost map file, and LiteLLM is
imported only for a model the file does not settle.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from relreason_dagster.llm import litellm_files, litellm_overhead
from relreason_dagster.llm.registry import ModelEntry

# Where a window came from (said in the door's line and in --dry-run).
FROM_ENTRY = "models.yaml"
FROM_LITELLM = "LiteLLM"
UNKNOWN = "unknown"

# Tokens a chat template may add around a message (role markers, newlines) and around the whole prompt:
# bounds for the quick test that leaves prompts far below the window uncounted.
_TEMPLATE_PER_MESSAGE = 64
_TEMPLATE_PER_PROMPT = 64


def context_window(spec: ModelEntry) -> tuple[int | None, str]:
    """(tokens, where from) of ``spec``'s context window: its entry's ``context_window``, else LiteLLM's
    ``max_input_tokens`` for its model, else ``(None, "unknown")``."""
    if spec.context_window:
        return int(spec.context_window), FROM_ENTRY
    model = spec.litellm_model
    if not litellm_overhead.maybe_mapped(model):
        return None, UNKNOWN  # not in LiteLLM's map: answered without importing LiteLLM (~3 s)
    mapped = _from_cost_map_file(model)
    if mapped is not None:
        return mapped, FROM_LITELLM
    try:
        info = litellm_overhead.litellm_module().get_model_info(model=model)
    except Exception:  # noqa: BLE001 - LiteLLM raises a bare Exception subclass for "not mapped"
        return None, UNKNOWN
    tokens = info.get("max_input_tokens") or None
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
        return tokens, FROM_LITELLM
    return None, UNKNOWN


def _from_cost_map_file(model: str) -> int | None:
    """``max_input_tokens`` of ``model`` read from LiteLLM's cost map file (``llm/litellm_files.py``),
    without importing LiteLLM (the door stays engine-free): the name as given, or without its provider
    prefix where the entry says that provider.  None when the file does not settle it: LiteLLM is asked."""
    table = litellm_files.cost_map()
    if not table:
        return None
    entry = table.get(model)
    if entry is None and "/" in model:
        provider, bare = model.split("/", 1)
        candidate = table.get(bare)
        if isinstance(candidate, dict) and candidate.get("litellm_provider") == provider:
            entry = candidate
    tokens = entry.get("max_input_tokens") if isinstance(entry, dict) else None
    if isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0:
        return tokens
    return None


def _messages(row: dict[str, Any]) -> list[dict[str, Any]]:
    messages = row["messages"]
    return json.loads(messages) if isinstance(messages, str) else list(messages)


def _surely_fits(messages: Sequence[dict[str, Any]], max_tokens: int, window: int) -> bool:
    """True when the prompt fits however it is tokenized: a token is at least one byte of its text, so
    its UTF-8 bytes plus the template's bound are at least its tokens."""
    size = sum(len(str(m.get("content") or "").encode("utf-8")) for m in messages)
    bound = size + _TEMPLATE_PER_MESSAGE * len(messages) + _TEMPLATE_PER_PROMPT
    return bound + max_tokens <= window


def reply_tokens(row: dict[str, Any], cap: Any = None) -> int:
    """The ``max_tokens`` a prompt row is sent with: its own, capped by the model's ``params.max_tokens``
    (as ``request_key.effective_params`` sends it)."""
    own = int(row.get("max_tokens") or 0)
    if cap is None:
        return own
    return min(own, int(cap)) if own else int(cap)


def split_too_long(
    rows: Sequence[dict[str, Any]], window: int, cap: Any = None, *, by_target: bool = False
) -> tuple[list[dict[str, Any]], list[tuple[dict[str, Any], int]]]:
    """``rows`` (prompt rows with ``messages`` and ``max_tokens``) as (those that fit ``window``, and those
    that do not, each with the tokens it needs: its prompt's plus the reply's ``max_tokens``, capped by
    ``cap``, the model's ``params.max_tokens``).  Only prompts long enough to be in doubt are tokenized.

    ``by_target`` (the dry run): a length-controlled prompt (``target_tokens``, FLenQA) is taken at its
    target instead of being tokenized, as the dry run counts its input tokens (counting the long
    profile's 128k-token prompts would take the tokenizer most of an hour); the model step counts
    exactly, so a prompt within 5 % of the window's edge (its token check's tolerance) may be counted
    one way by the dry run and the other by the run.
    """
    from relreason_dagster.common.tokenizer import chat_prompt_tokens_many

    doubtful = [
        i for i, row in enumerate(rows) if not _surely_fits(_messages(row), reply_tokens(row, cap), window)
    ]
    counted: dict[int, int] = {}
    if by_target:
        for i in doubtful:
            target = rows[i].get("target_tokens")
            if target and not rows[i].get("target_exempt"):
                counted[i] = int(target)
    exact = [i for i in doubtful if i not in counted]
    counted.update(zip(exact, chat_prompt_tokens_many([_messages(rows[i]) for i in exact]), strict=True))
    kept: list[dict[str, Any]] = []
    left: list[tuple[dict[str, Any], int]] = []
    for i, row in enumerate(rows):
        if i not in counted:
            kept.append(row)
            continue
        needed = counted[i] + reply_tokens(row, cap)
        if needed > window:
            left.append((row, needed))
        else:
            kept.append(row)
    return kept, left
