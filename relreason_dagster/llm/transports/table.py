"""The name → transport table: a models.yaml entry's ``transport`` picks its class here.

Why names of modules and not the classes: ``llm/registry.py`` reads :func:`names` to check an entry
(``transport: fast`` is one error line naming the choices), and the transports' modules read the
registry's ``ModelEntry``; the built-in classes are therefore loaded on first use, by name, which also
keeps checking models.yaml from loading aiohttp or LiteLLM.  A transport defined elsewhere (a test's
scripted one, a plugin) is added with :func:`register` and is then as good a name as the built-ins.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from relreason_dagster.llm.registry import ModelEntry
    from relreason_dagster.llm.transports.protocol import Transport

DIRECT = "direct"
LITELLM = "litellm"
BATCH = "batch"

# name -> the class, or "module:Class" until it is first used.
_TABLE: dict[str, Any] = {
    DIRECT: "relreason_dagster.llm.transports.direct:DirectTransport",
    LITELLM: "relreason_dagster.llm.transports.litellm:LiteLLMTransport",
    BATCH: "relreason_dagster.llm.transports.batch:BatchTransport",
}


def names() -> tuple[str, ...]:
    """Every transport an entry may name, built-ins first."""
    return tuple(_TABLE)


def register(name: str, cls: type[Transport]) -> None:
    """Add (or replace) the transport ``name``; an entry's ``transport: name`` then sends through it."""
    _TABLE[name] = cls


def unregister(name: str) -> None:
    """Remove a transport :func:`register` added (a test's, when it ends); the built-ins stay."""
    if name in (DIRECT, LITELLM, BATCH):
        raise ValueError(f"{name!r} is a built-in transport")
    _TABLE.pop(name, None)


def transport_class(name: str) -> type[Transport]:
    """The class registered as ``name`` (``KeyError`` for a name not in the table)."""
    entry = _TABLE[name]
    if isinstance(entry, str):
        module, _, attr = entry.partition(":")
        entry = _TABLE[name] = getattr(importlib.import_module(module), attr)
    return entry


def transport_for(spec: ModelEntry, api_key: str | None, extra_kwargs: dict[str, Any]) -> Transport:
    """The transport that sends ``spec``'s requests in this run (its ``transport_used``)."""
    return transport_class(spec.transport_used)(spec, api_key, extra_kwargs)
