"""A LiteLLM provider ``scripted/<name>`` that answers instantly from Python code.

Tests and benchmarks use it to drive the real gateway (LiteLLM call path,
cache, storage) without a model: answers are deterministic, cost nothing and
every call is counted, so a test can assert "second run made 0 calls".

Usage::

    from tests.fakes.scripted_provider import register_scripted_provider, set_responder, call_count

    register_scripted_provider()                  # idempotent
    set_responder("gold", lambda messages, params: "the answer")
    litellm.completion(model="scripted/gold", messages=[...])
    assert call_count("gold") == 1

A responder gets ``(messages, params)`` and returns the answer text, or a dict
with ``content`` and optionally ``finish_reason``, ``prompt_tokens``,
``completion_tokens``; it may raise a LiteLLM exception (e.g.
``litellm.ContextWindowExceededError``) to script a failure.  Names without
a responder echo :data:`DEFAULT_ANSWER`.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

# LiteLLM fetches its price map from the internet on import unless told not to.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # noqa: E402
from litellm import CustomLLM, ModelResponse, Usage  # noqa: E402

PROVIDER = "scripted"
DEFAULT_ANSWER = "scripted answer"

Responder = Callable[[list[dict[str, Any]], dict[str, Any]], "str | dict[str, Any]"]

_lock = threading.Lock()
_responders: dict[str, Responder] = {}
_calls: Counter[str] = Counter()
_handler: ScriptedLLM | None = None


def set_responder(name: str, responder: Responder | None) -> None:
    """Answer ``scripted/<name>`` with ``responder`` (None restores the default echo)."""
    with _lock:
        if responder is None:
            _responders.pop(name, None)
        else:
            _responders[name] = responder


def clear_responders() -> None:
    with _lock:
        _responders.clear()


def call_count(name: str | None = None) -> int:
    """Calls answered so far for ``name`` (all names when None)."""
    with _lock:
        return sum(_calls.values()) if name is None else _calls[name]


def reset_calls() -> None:
    with _lock:
        _calls.clear()


def _strip(model: str) -> str:
    return model.split("/", 1)[1] if model.startswith(PROVIDER + "/") else model


def _answer(model: str, messages: list[dict[str, Any]], optional_params: dict[str, Any]) -> ModelResponse:
    name = _strip(model)
    with _lock:
        _calls[name] += 1
        responder = _responders.get(name)
    params = dict(optional_params or {})
    result: Any = DEFAULT_ANSWER if responder is None else responder(messages, params)
    if isinstance(result, str):
        result = {"content": result}
    content = str(result.get("content", ""))
    prompt_tokens = result.get("prompt_tokens")
    if prompt_tokens is None:
        prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in messages)
    completion_tokens = result.get("completion_tokens")
    if completion_tokens is None:
        completion_tokens = len(content.split())
    return ModelResponse(
        model=f"{PROVIDER}/{name}",
        created=int(time.time()),
        choices=[
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": result.get("finish_reason", "stop"),
            }
        ],
        usage=Usage(
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
        ),
    )


class ScriptedLLM(CustomLLM):
    """The LiteLLM handler; all work is in :func:`_answer`."""

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:  # type: ignore[override]
        return _answer(model, messages, kwargs.get("optional_params") or {})

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:  # type: ignore[override]
        return _answer(model, messages, kwargs.get("optional_params") or {})


def register_scripted_provider() -> ScriptedLLM:
    """Add the ``scripted`` provider to ``litellm.custom_provider_map`` once per process."""
    global _handler
    with _lock:
        if _handler is None:
            _handler = ScriptedLLM()
        if not any(entry.get("provider") == PROVIDER for entry in litellm.custom_provider_map):
            litellm.custom_provider_map.append({"provider": PROVIDER, "custom_handler": _handler})
    return _handler
