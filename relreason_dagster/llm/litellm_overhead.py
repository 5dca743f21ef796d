"""LiteLLM's per-call work that relreason does not use, switched off; and the price of a call.

Why a module of its own: the two switches rest on behaviours of the installed LiteLLM (a registered
price short-cuts its cost lookup; a call with ``fallbacks`` set schedules no success-logging task),
which ``tests/unit/llm/test_gateway_litellm_quiet.py`` checks; the price lookup shares the first switch's
record of which models LiteLLM cannot price, so a stand-in zero is never reported as a price.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
from typing import Any


@functools.cache
def litellm_module() -> Any:
    """LiteLLM, imported on first use and told to stay quiet (no debug banner, no telemetry).

    Why not a top-level import: LiteLLM takes ~3 s to import on 2 cores, more than the rest of the
    definitions together; loading them (every run process, the UI's code location, `relreason
    status`) needs none of it, only a step that calls a model or prices a call does.
    """
    import litellm

    litellm.suppress_debug_info = True
    litellm.telemetry = False
    return litellm


_zero_price_lock = threading.Lock()
_zero_priced: set[str] = set()
# Models LiteLLM's cost map does not know (their zero price above is ours, not a price).
_unpriced: set[str] = set()


def price_known(litellm_model: str) -> bool:
    """Whether LiteLLM's offline cost map has a price for this model (not our stand-in zero).

    A model the map surely cannot price is answered without importing LiteLLM (~3 s on 2 cores):
    a run of a self-hosted model over the direct transport then never imports it.
    """
    if litellm_model in _unpriced:
        return False
    if litellm_model not in _zero_priced and _surely_unpriced(litellm_model):
        with _zero_price_lock:
            _unpriced.add(litellm_model)
        return False
    price_unknown_model_at_zero(litellm_model)
    return litellm_model not in _unpriced


def priced(litellm_model: str) -> bool:
    """Whether LiteLLM's cost map prices the model, asked without registering anything (the launch's
    check of a ``max_cost``: registering a stand-in price makes LiteLLM log a warning line)."""
    if litellm_model in _zero_priced:
        return litellm_model not in _unpriced
    if _surely_unpriced(litellm_model):
        return False
    try:
        litellm_module().get_model_info(model=litellm_model)
    except Exception:  # noqa: BLE001 - LiteLLM raises a bare Exception subclass for "not mapped"
        return False
    return True


def _cost_map_names() -> frozenset[str] | None:
    """The model names of LiteLLM's bundled cost map (lower case), read from its file; None if not found."""
    from relreason_dagster.llm.litellm_files import cost_map_names

    return cost_map_names()


def _surely_unpriced(litellm_model: str) -> bool:
    """True when no name LiteLLM would look the model up by is in its cost map (and LiteLLM is not
    imported: once it is, a user may have registered prices, so LiteLLM itself is asked)."""
    if "litellm" in sys.modules:
        return False
    names = _cost_map_names()
    if names is None:
        return False
    bare = litellm_model.split("/", 1)[-1]
    return not any(n.lower() in names for n in (litellm_model, bare, bare.rsplit("/", 1)[-1]))


def maybe_mapped(litellm_model: str) -> bool:
    """False when LiteLLM's cost map surely has no entry for the model (its context window is then
    unknown too), answered without importing LiteLLM; True when LiteLLM must be asked."""
    return not _surely_unpriced(litellm_model)


def call_cost(litellm_model: str, prompt_tokens: int | None, completion_tokens: int | None) -> float | None:
    """What one call cost in USD by LiteLLM's cost map; None when the price or the counts are unknown.

    Never a made-up zero: a self-hosted or local model has no price, and its cost is null, not 0.
    A model priced per token and nothing else is priced from its two rates, read once
    (:func:`_token_rates`): LiteLLM's own lookup took ~0.1 ms of CPU per answer.
    """
    if prompt_tokens is None or completion_tokens is None or not price_known(litellm_model):
        return None
    rates = _token_rates(litellm_model)
    if rates is not None:
        return prompt_tokens * rates[0] + completion_tokens * rates[1]
    return _litellm_cost(litellm_model, prompt_tokens, completion_tokens)


# The price fields of LiteLLM's model info that leave a call priced at tokens × rate when only prompt and
# completion counts are given (cached-token rates and service tiers apply to details we never pass).
_PLAIN_PRICE_FIELDS = re.compile(
    r"(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|cache_creation_input_token_cost)"
    r"(_batches|_priority|_flex)?|search_context_cost_per_query"
)
# Token counts at which a model's rates are checked against LiteLLM's own price before they are used.
_RATE_PROBES = ((1, 1), (1234, 567), (100_000, 30_000), (7, 0), (0, 9))


@functools.cache
def _token_rates(litellm_model: str) -> tuple[float, float] | None:
    """(USD per prompt token, per completion token) when a call's price is exactly tokens × rate;
    None when the model's price has anything more (tiers above a context size, off-peak hours, ...),
    which LiteLLM is then asked per call.  Checked against LiteLLM's own price at a few counts."""
    litellm = litellm_module()
    try:
        info = litellm.get_model_info(model=litellm_model)
    except Exception:  # noqa: BLE001 - LiteLLM raises a bare Exception subclass for "not mapped"
        return None
    rates = (info.get("input_cost_per_token"), info.get("output_cost_per_token"))
    if not all(isinstance(rate, (int, float)) and not isinstance(rate, bool) for rate in rates):
        return None
    priced = [k for k, v in info.items() if v is not None and ("cost" in k or "pric" in k or "tier" in k)]
    if not all(_PLAIN_PRICE_FIELDS.fullmatch(k) for k in priced):
        return None
    for p, c in _RATE_PROBES:
        if _litellm_cost(litellm_model, p, c) != p * rates[0] + c * rates[1]:
            return None
    return rates[0], rates[1]


def _litellm_cost(litellm_model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """LiteLLM's own price of a call (``cost_per_token``); None when it cannot compute one."""
    litellm = litellm_module()
    try:
        prompt_cost, completion_cost = litellm.cost_per_token(
            model=litellm_model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens
        )
    except Exception:  # noqa: BLE001 - a price LiteLLM cannot compute is an unknown price
        return None
    return float(prompt_cost) + float(completion_cost)


def price_unknown_model_at_zero(litellm_model: str) -> bool:
    """Register a zero price for a model LiteLLM cannot price; True if this call registered it.

    Why: LiteLLM prices every response, and relreason never reads the price (it
    stores token counts).  For a model missing from LiteLLM's cost map (a local
    GGUF, a self-hosted vLLM, the fake test server) each call tried to
    generalise the name to a known model, failed, and recorded the failure:
    the largest single part of LiteLLM's per-call CPU.  Registered at zero, the
    lookup is one dict hit.  A model LiteLLM knows keeps its real price, so
    LiteLLM's own spend tracking (and any callback a user adds) stays right.
    Checked once per model per process; the check itself costs one failed lookup.
    """
    litellm = litellm_module()
    with _zero_price_lock:
        if litellm_model in _zero_priced:
            return False
        _zero_priced.add(litellm_model)
        try:
            litellm.get_model_info(model=litellm_model)
            return False
        except Exception:  # noqa: BLE001 - LiteLLM raises a bare Exception subclass for "not mapped"
            pass
        _unpriced.add(litellm_model)
        provider = litellm_model.split("/", 1)[0] if "/" in litellm_model else "openai"
        litellm.register_model(
            {
                litellm_model: {
                    "input_cost_per_token": 0.0,
                    "output_cost_per_token": 0.0,
                    "litellm_provider": provider,
                    "mode": "chat",
                }
            },
            add_to_provider_model_sets=False,  # a price, not a new name for provider resolution
        )
        return True


def _success_callbacks_registered() -> bool:
    """Whether anyone asked LiteLLM to report successful calls (relreason itself never does)."""
    litellm = litellm_module()
    return bool(litellm.callbacks or litellm.success_callback or litellm._async_success_callback)


def quiet_kwargs() -> dict[str, Any]:
    """Per-call kwargs that switch off LiteLLM's success logging when nobody listens to it.

    Why: after every answer LiteLLM schedules a task that builds its standard
    logging payload (prices the response again, copies the messages) for the
    success callbacks, even when there are none: about a tenth of its per-call
    CPU.  LiteLLM skips that task for a call made with ``fallbacks`` set (so the
    parent of a fallback chain is not logged twice); an empty list changes
    nothing else (``[] or litellm.model_fallbacks`` is the same no-fallback
    route, and ``fallbacks`` is a LiteLLM param, never sent to the provider).
    With a success callback registered (a user's Langfuse, say) nothing is
    switched off.  ``tests/unit/llm/test_gateway_litellm_quiet.py`` checks the
    installed LiteLLM still behaves so.
    """
    return {} if _success_callbacks_registered() else {"fallbacks": []}
