"""What can be known about a model before a run starts, checked at the door: its provider and, for a
budget, its price.

Why here and not where the call is made: a provider LiteLLM does not know (``--model nosuch/x``), a
provider with no model (``--model openai/``) or a ``max_cost`` on a model LiteLLM cannot price used to
start the whole run, store an error row per prompt (or fail inside the responses step with a Dagster
traceback) and leave a phantom model in the marts.  Each is one line before anything is written.
The checks ask LiteLLM itself (its provider lookup and its offline cost map), so they agree with
what the call would do.  LiteLLM is imported only when its shipped files cannot settle the question
(``llm/litellm_files.py``): a provider prefix it lists is routable, a prefix it does not know with
nothing else LiteLLM could route the name by is not; so a typo is refused in about a second, not
after LiteLLM's 3-8 s import, and a run of ``openai/...`` pays that import only where it calls.

The context window too (:func:`check_window`): a launch whose prompts plus ``max_tokens`` cannot fit a
model's window stops here, before any prompt is generated, instead of sending prompts that are paid
and refused or silently cut.  What a family's prompts need is known from its profile for a family
whose prompts are long by design (FLenQA's ``prompt_budgets``: per length); every other family's
prompts are short and are checked one by one at the model step, once they exist
(``llm/context_window.split_too_long``), where a prompt that does not fit is left out and counted.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from relreason_dagster.errors import ConfigError
from relreason_dagster.llm import litellm_files, litellm_overhead
from relreason_dagster.llm.context_window import context_window
from relreason_dagster.llm.registry import ModelEntry

# The in-process llama.cpp provider (llm/local_provider.py): relreason's own, registered on first call.
LOCAL_PROVIDER = "local"


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else type(exc).__name__).removeprefix("litellm.BadRequestError: ")


# Providers whose LiteLLM lookup does more than name them: it authenticates (chatgpt, github_copilot:
# a device-code login over the network) or checks the model path's form (ragflow/chat/ID/MODEL).
# LiteLLM is asked for these, as before; tests/unit/llm/test_litellm_files.py finds any new one.
LOOKUP_DOES_MORE = frozenset({"chatgpt", "github_copilot", "ragflow"})


def _cannot_route(spec: ModelEntry, reason: str) -> ConfigError:
    return ConfigError(
        f"model {spec.name!r}: LiteLLM cannot route {spec.litellm_model!r} ({reason}); write "
        "PROVIDER/MODEL with a provider LiteLLM knows, e.g. openai/gpt-4o-mini, "
        "anthropic/claude-3-5-haiku-20241022 or ollama/llama3.1 (with --api-base or -M api_base=URL)"
    )


def routable_from_files(model: str, api_base: str | None) -> bool | None:
    """Whether LiteLLM routes ``model``, as far as its shipped files settle it; None: ask LiteLLM.

    True for ``PROVIDER/...`` with a provider LiteLLM lists.  False only for ``PREFIX/...`` where
    ``PREFIX`` is no provider and nothing else in LiteLLM's lookup could claim the name: no
    ``api_base`` (matched against OpenAI-compatible endpoints), not a name of its cost map (its model
    lists), no ``:`` (Replicate's version ids), no routing rule matching.  Once LiteLLM is imported a
    user may have registered providers in it, so it is always asked then.
    """
    if "litellm" in sys.modules:
        return None
    providers = litellm_files.provider_names()
    names = litellm_files.cost_map_names()
    rules = litellm_files.routing_patterns()
    if providers is None or names is None or rules is None:
        return None
    prefix, slash, _rest = model.partition("/")
    if not slash:
        return None  # a bare name: LiteLLM's model lists decide
    if prefix in LOOKUP_DOES_MORE:
        return None
    if prefix in providers:
        return True
    if api_base or ":" in model or model.lower() in names or any(rule.search(model) for rule in rules):
        return None
    return False


def check_provider(spec: ModelEntry) -> None:
    """One line unless LiteLLM can route ``spec``: a known provider (or a registered custom one) and a
    model name after it."""
    model = spec.litellm_model
    provider, slash, rest = model.partition("/")
    if slash and not rest.strip():
        raise ConfigError(
            f"model {spec.name!r}: {model!r} names the provider {provider!r} but no model after it; "
            f"write {provider}/MODEL, e.g. openai/gpt-4o-mini"
        )
    if provider == LOCAL_PROVIDER and slash:
        return
    verdict = routable_from_files(model, spec.api_base)
    if verdict is True:
        return
    if verdict is False:
        raise _cannot_route(spec, f"LiteLLM knows no provider {provider!r}")
    litellm = litellm_overhead.litellm_module()
    if slash and any(entry.get("provider") == provider for entry in litellm.custom_provider_map):
        return  # a custom provider registered in this process (LiteLLM routes it by the map)
    try:
        litellm.get_llm_provider(model=model, api_base=spec.api_base)
    except Exception as exc:  # noqa: BLE001 - LiteLLM's BadRequestError, or whatever its lookup raises
        raise _cannot_route(spec, _first_line(exc)) from None


def check_budget_priced(spec: ModelEntry) -> None:
    """One line when ``spec`` has a ``max_cost`` that LiteLLM's cost map cannot price (no price, no
    budget: the spend would stay at zero and the budget would never stop anything)."""
    if spec.max_cost is None:
        return
    if not litellm_overhead.priced(spec.litellm_model):
        raise ConfigError(
            f"model {spec.name!r}: max_cost needs a price, and LiteLLM's cost map has none for "
            f"{spec.litellm_model}; remove max_cost or use a model LiteLLM can price"
        )


def check_at_the_door(spec: ModelEntry) -> None:
    """Every check of a model that needs no call: its provider, then its budget's price."""
    check_provider(spec)
    check_budget_priced(spec)


SKIP_OPTION = "--skip-too-long"


def window_overflow(spec: ModelEntry, budgets: Mapping[str, Mapping[int, int]]) -> str | None:
    """What of the launch does not fit ``spec``'s context window, as a phrase (None: all fits, or the
    window is unknown).  ``budgets``: per family that states them, per length the most tokens a prompt
    of that length needs with its reply."""
    window, source = context_window(spec)
    if window is None:
        return None
    parts = []
    for family, needs in budgets.items():
        over = {length: need for length, need in sorted(needs.items()) if need > window}
        if over:
            lengths = ", ".join(str(length) for length in over)
            parts.append(f"{family} lengths {lengths} (up to {max(over.values()):,} tokens with max_tokens)")
    if not parts:
        return None
    head = f"model {spec.name!r}: its {window:,}-token context window ({source}) cannot hold "
    return head + "; ".join(parts)


def check_windows(
    specs: tuple[ModelEntry, ...],
    budgets: Mapping[str, Mapping[int, int]],
    skip_too_long: bool,
    dry_run: bool = False,
) -> tuple[str, ...]:
    """One line (a :class:`ConfigError`) naming each model whose window cannot hold the launch's prompts
    and the lengths that do not fit, unless ``skip_too_long``: then the lines that say what each such
    model leaves out (the model step leaves out every prompt that does not fit and counts it).  A dry run
    is not stopped (it is asked what a run would do): it says the run would stop, and counts the prompts
    left out as ``--skip-too-long`` would."""
    overflows = [line for line in (window_overflow(spec, budgets) for spec in specs) if line]
    if not overflows:
        return ()
    if dry_run and not skip_too_long:
        return tuple(f"relreason: a run stops here without {SKIP_OPTION}: {line}" for line in overflows)
    if not skip_too_long:
        families = sorted({family for family in budgets})
        raise ConfigError(
            "; ".join(overflows) + f"; leave those prompts out with {SKIP_OPTION}, or list only lengths "
            f"that fit in the profile's {'/'.join(families)} lengths"
        )
    return tuple(
        f"relreason: {SKIP_OPTION}: {line}; its prompts that do not fit are left out (the model step says "
        "how many) and counted in the marts (prompts_too_long)"
        for line in overflows
    )
