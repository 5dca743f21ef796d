"""The ``litellm`` transport: ``litellm.acompletion``, for every provider LiteLLM knows.

Why it is the default for all but OpenAI-protocol servers with an ``api_base`` (``direct.py``): LiteLLM
speaks each provider's own API (Anthropic, Gemini, Bedrock, Ollama, ...) and runs the in-process
``local/`` models (``llm/local_provider.py``), at 2–4 ms of CPU per call.  Its own retries are off
(``num_retries=0``, ``max_retries=0``): the gateway counts and bounds every send.  Its per-call
success logging is switched off when nobody listens (``litellm_overhead.quiet_kwargs``), and a model
its cost map cannot price is priced at zero once, so it does not try to on every call.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

from relreason_dagster.llm import litellm_overhead
from relreason_dagster.llm.replies import read_reply
from relreason_dagster.llm.transports.protocol import Transport
from relreason_dagster.llm.transports.table import LITELLM

if TYPE_CHECKING:
    from relreason_dagster.llm.draw_plan import Work
    from relreason_dagster.llm.registry import ModelSpec

# Slack on top of timeout_s before we abandon a call LiteLLM failed to time out.
_HARD_TIMEOUT_SLACK_S = 5.0


class LiteLLMTransport(Transport):
    """``litellm.acompletion`` with the entry's model string, key, api_base and timeout."""

    name = LITELLM
    # LiteLLM's ModelResponse, read attribute by attribute (``replies.read_reply``).
    read = staticmethod(read_reply)

    def __init__(
        self, spec: ModelSpec, api_key: str | None, extra_kwargs: dict[str, Any] | None = None
    ) -> None:
        super().__init__(spec, api_key, extra_kwargs or {})
        # In-process llama.cpp cannot hang on a network and cannot be interrupted (a cancelled call
        # keeps computing and holds the model's lock), so it gets no hard timeout; remote calls get
        # one in case the client's own fails.
        self.hard_timeout = None if spec.provider == "local" else spec.timeout_s + _HARD_TIMEOUT_SLACK_S

    async def open(self) -> None:
        """Register the in-process ``local`` provider when the entry needs it (lazy: llama.cpp is
        heavy), and a zero price for a model LiteLLM cannot price (``litellm_overhead``)."""
        if self.spec.provider == "local":
            from relreason_dagster.llm.local_provider import register_local_provider

            register_local_provider()
        litellm_overhead.price_unknown_model_at_zero(self.spec.litellm_model)

    @functools.cached_property
    def quiet_kwargs(self) -> dict[str, Any]:
        """LiteLLM's switched-off per-call work (asked at the first request: a run with every answer
        stored never imports LiteLLM, ~3 s on 2 cores)."""
        return litellm_overhead.quiet_kwargs()

    def request(self, work: Work, n: int) -> dict[str, Any]:
        """``acompletion``'s kwargs: the work's params, ``extra_kwargs``, then what the entry fixes."""
        kwargs: dict[str, Any] = dict(self.quiet_kwargs)
        kwargs.update(work.params)
        kwargs.update(self.extra_kwargs)
        kwargs.update(
            model=self.spec.litellm_model,
            messages=work.messages,
            timeout=self.spec.timeout_s,
            num_retries=0,
            max_retries=0,
        )
        if self.spec.api_base:
            kwargs["api_base"] = self.spec.api_base
        if self.api_key:
            kwargs["api_key"] = self.api_key
        if n > 1:
            kwargs["n"] = n
        return kwargs

    async def send(self, request: dict[str, Any]) -> Any:
        """One ``acompletion``; LiteLLM's exceptions are classified by ``provider_errors``."""
        return await asyncio.wait_for(
            litellm_overhead.litellm_module().acompletion(**request), self.hard_timeout
        )
