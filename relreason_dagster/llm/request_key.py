"""The cache key of one request: what determines a model's answer, hashed.

Why a module of its own: the key is the contract between every run and everything stored (a prompt
whose row has this hash is not asked again, under any model name), so it must change only on purpose.
The gateway, the dry run's cost estimate and the tests all compute it here, in one place, and
``tests/unit/llm/test_reasoning_draws.py`` pins a digest computed by the code before any change.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from relreason_dagster.llm.registry import ModelEntry


def effective_params(
    spec: ModelEntry, max_tokens: int | None, study: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The generation params actually sent: ``spec.params``, the study's on top, max_tokens capped.

    ``study`` is what a study states it ran with (a profile's ``generation`` knob, e.g. FLenQA's
    paper profile: temperature 0, top-p 0): it wins over the model's own settings, since the
    protocol is the study's, and being in the params it is part of the cache key.
    The prompt's own ``max_tokens`` wins unless the model's ``params.max_tokens``
    is smaller (a cap), so a small model is not asked for 2048 tokens it
    cannot use, while a big model keeps the benchmark's budget.
    """
    params = {**spec.params, **(study or {})}
    if spec.provider == "local" and spec.context_window and "n_ctx" not in params:
        params["n_ctx"] = spec.context_window  # in-process models load with this context size
    cap = params.get("max_tokens")
    if max_tokens is not None and cap is not None:
        params["max_tokens"] = min(int(max_tokens), int(cap))
    elif max_tokens is not None:
        params["max_tokens"] = int(max_tokens)
    return params


def canonical_messages(messages: Any) -> list[dict[str, Any]]:
    """Messages as a list (raw.prompts stores them as a JSON string)."""
    if isinstance(messages, (str, bytes)):
        messages = json.loads(messages)
    if not isinstance(messages, list):
        raise TypeError(f"messages must be a list of chat messages, got {type(messages).__name__}")
    return messages


# The canonical JSON of a request: json.dumps(payload, sort_keys=True, separators=(",", ":"),
# ensure_ascii=False), with the encoder built once (json.dumps builds one per call with these options).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def hash_payload(
    litellm_model: str, params: dict[str, Any], api_base: str | None, messages: list, sample_index: int = 0
) -> str:
    payload: dict[str, Any] = {
        "model": litellm_model,
        "params": params,
        "api_base": api_base,
        "messages": messages,
    }
    if sample_index:
        # Draw k > 0 of a repeated-sampling run is a request of its own.  Draw 0 hashes exactly as every
        # request did before draws existed, so stored answers (everyone's cache) stay valid at K = 1.
        payload["sample_index"] = int(sample_index)
    text = _CANONICAL.encode(payload)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def request_hash(
    spec: ModelEntry,
    messages: Any,
    max_tokens: int | None,
    study: Mapping[str, Any] | None = None,
    sample_index: int = 0,
) -> str:
    """The cache key of one request: what determines the answer, nothing else.

    The model *name* is deliberately absent: two registry names for the same
    LiteLLM model and params share answers.  ``sample_index`` tells the draws
    of one prompt apart (``--samples K``); draw 0 is the request as it always was.
    """
    return hash_payload(
        spec.litellm_model,
        effective_params(spec, max_tokens, study),
        spec.api_base,
        canonical_messages(messages),
        sample_index,
    )
