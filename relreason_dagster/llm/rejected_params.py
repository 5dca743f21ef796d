"""Recognise a provider's refusal of one generation parameter, and say in one line how to fix it.

A study's protocol sends its own generation params (a profile's ``generation`` knob: FLenQA's paper
profile temperature 0 and top-p 0) on top of each model's ``params`` from models.yaml.  Some models
refuse some of them: OpenAI's reasoning models answer 400 "Unsupported parameter: 'top_p' ..." or
"Unsupported value: 'temperature' does not support 0 ...", LiteLLM itself raises
``UnsupportedParamsError`` ("... does not support parameters: ['top_p'] ...") before sending, and
Anthropic refuses ``temperature`` and ``top_p`` together.  The provider's text alone leaves the user
to work out where the parameter came from; :func:`explain` names it, says whether models.yaml or the
profile put it there, and what to change.  Pure text functions: the gateway calls :func:`relabel` on
an error it is about to store.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

KIND = "rejected_param"
"""The error kind a recognised refusal is stored and counted under (instead of ``bad_request``)."""

# Each pattern captures the refused parameter's name (group ``name``) or a list of names (``names``).
_PATTERNS: tuple[re.Pattern[str], ...] = (
    # OpenAI: "Unsupported parameter: 'top_p' is not supported with this model."
    re.compile(r"Unsupported parameter:\s*'(?P<name>[A-Za-z_][\w.]*)'"),
    # OpenAI: "Unsupported value: 'temperature' does not support 0 with this model. ..."
    re.compile(r"Unsupported value:\s*'(?P<name>[A-Za-z_][\w.]*)'"),
    # LiteLLM UnsupportedParamsError: "openai does not support parameters: ['top_p'], for model=..."
    re.compile(r"does not support parameters:\s*\[(?P<names>[^\]]*)\]"),
    # Anthropic: "`temperature` and `top_p` cannot both be specified for this model."
    re.compile(r"`?(?P<names>\w+`?\s+and\s+`?\w+)`?\s+cannot both be specified"),
    # Generic OpenAI-compatible servers: "Unrecognized request argument supplied: top_k"
    re.compile(r"Unrecognized request arguments? supplied:\s*(?P<names>[\w, ]+)"),
)


def rejected_params(text: str) -> list[str]:
    """The parameter names a provider's error ``text`` says it refused ([] if it says none)."""
    for pattern in _PATTERNS:
        match = pattern.search(text)
        if match is None:
            continue
        groups = match.groupdict()
        if groups.get("name"):
            return [groups["name"]]
        raw = groups.get("names") or ""
        names = [n.strip(" '\"`") for n in re.split(r",|\band\b", raw)]
        return [n for n in names if n]
    return []


def _origin(name: str, model: str, model_params: Mapping[str, Any], sent: Mapping[str, Any]) -> str:
    """Where ``name`` came from and what to change there.

    ``sent`` is what the request carried: the model's params with the profile's on top, so a value
    that differs from the model's (or that the model does not set) is the profile's.
    """
    ours = name in model_params and (name not in sent or sent[name] == model_params[name])
    if ours:
        return (
            f"remove {name} from the params of model {model!r} in models.yaml (and from a profile "
            "`generation` knob that states it)"
        )
    if name in sent and name == "max_tokens":
        return "max_tokens is the profile's answer budget; cap it with params.max_tokens in models.yaml"
    if name in sent:
        return (
            f"the profile's `generation` knob sends {name}={sent[name]!r}: state `generation` without "
            f"{name} in your own profile (profiles.yaml)"
        )
    return f"neither models.yaml nor the profile sets {name}; check the model's params and the profile"


def explain(message: str, model: str, model_params: Mapping[str, Any], sent: Mapping[str, Any]) -> str | None:
    """One line naming the refused parameter(s) and the fix, or None if ``message`` is no refusal.

    ``model_params`` are the model's models.yaml ``params``; ``sent`` the params the request carried.
    """
    names = rejected_params(message)
    if not names:
        return None
    fixes = "; ".join(_origin(n, model, model_params, sent) for n in names)
    which = ", ".join(repr(n) for n in names)
    plural = "s" if len(names) > 1 else ""
    return f"model {model!r} rejected the generation parameter{plural} {which}: {fixes}"


def relabel(
    kind: str,
    error: str,
    message: str,
    model: str,
    model_params: Mapping[str, Any],
    sent: Mapping[str, Any],
) -> tuple[str, str]:
    """``(kind, error)`` to store for a failed call: a refused parameter becomes kind
    :data:`KIND` with :func:`explain`'s line before the provider's own text; anything else as given."""
    hint = explain(message, model, model_params, sent)
    if hint is None:
        return kind, error
    return KIND, f"{KIND}: {hint} | {error}"
