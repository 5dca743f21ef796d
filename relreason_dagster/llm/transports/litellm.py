"""The ``litellm`` transport: ``litellm.acompletion``, for every provider LiteLLM knows.

Why it is the default for all but OpenAI-protocol servers with an ``api_base`` (``direct.py``): LiteLLM
speaks each provider's own API (Anthropic, Gemini, Bedrock, Ollama, ...) and runs the in-process
``local/`` models (``llm/local_provider.py``), at 2–4 ms of CPU per call.  Its own retries are off
(``num_retries=0``, ``max_retries=0``): the gateway counts and bounds every send.  Its per-call
success logging is switched off when nobody listens (``litellm_overhead.quiet_kwargs``), and a model
its cost map cannot price is priced at zero once, so it does not try to on every call.

**Streaming** (``stream: true`` on the entry): ``acompletion(..., stream=True,
stream_options={"include_usage": True})``, its chunks read one at a time, each within
``stall_timeout_s`` and all within ``timeout_s`` (the ceiling, on the loop's clock), then rebuilt into
one ``ModelResponse`` by ``litellm.stream_chunk_builder`` (in 1.110 it keeps the thinking,
``reasoning_content``), with the usage the provider sent in its final chunk as it sent it (the
builder's own fills in a ``reasoning_tokens`` 0 the provider never reported), so ``read`` is still
``read_reply``.  A stall or the ceiling is a ``timeout`` (its text says which); a stream LiteLLM
reports as ended or broken before its ``finish_reason`` is ``malformed_reply``, as on the direct
transport.  A stream whose provider sent no usage stores no token counts (LiteLLM would estimate them
with a tokenizer; an estimate is not what the provider counted).  The in-process ``local/`` provider
does not stream: the registry refuses ``stream: true`` for it.
"""

from __future__ import annotations

import asyncio
import functools
from typing import TYPE_CHECKING, Any

from relreason_dagster.llm import litellm_overhead
from relreason_dagster.llm.provider_errors import MalformedReply, ProviderError, error_kind
from relreason_dagster.llm.replies import read_reply
from relreason_dagster.llm.transports.protocol import Transport
from relreason_dagster.llm.transports.table import LITELLM

if TYPE_CHECKING:
    from relreason_dagster.llm.draw_plan import Work
    from relreason_dagster.llm.registry import ModelEntry

# Slack on top of timeout_s before we abandon a call LiteLLM failed to time out.
_HARD_TIMEOUT_SLACK_S = 5.0


class LiteLLMTransport(Transport):
    """``litellm.acompletion`` with the entry's model string, key, api_base and timeout."""

    name = LITELLM
    # LiteLLM's ModelResponse, read attribute by attribute (``replies.read_reply``).
    read = staticmethod(read_reply)

    def __init__(
        self, spec: ModelEntry, api_key: str | None, extra_kwargs: dict[str, Any] | None = None
    ) -> None:
        super().__init__(spec, api_key, extra_kwargs or {})
        # In-process llama.cpp cannot hang on a network and cannot be interrupted (a cancelled call
        # keeps computing and holds the model's lock), so it gets no hard timeout; remote calls get
        # one in case the client's own fails.
        self.hard_timeout = None if spec.provider == "local" else spec.timeout_s + _HARD_TIMEOUT_SLACK_S
        if spec.stream:  # chosen once: the non-streamed send stays one awaited call
            self.send = self._send_stream  # type: ignore[method-assign]

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
        if self.spec.stream:
            kwargs["stream"] = True
            kwargs["stream_options"] = {"include_usage": True}
        return kwargs

    async def send(self, request: dict[str, Any]) -> Any:
        """One ``acompletion``; LiteLLM's exceptions are classified by ``provider_errors``."""
        return await asyncio.wait_for(
            litellm_overhead.litellm_module().acompletion(**request), self.hard_timeout
        )

    async def _send_stream(self, request: dict[str, Any]) -> Any:
        """One streamed ``acompletion``, each chunk awaited within the stall timeout and the whole
        within ``timeout_s``; the ``ModelResponse`` its chunks make (``stream_chunk_builder``)."""
        litellm = litellm_overhead.litellm_module()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.spec.timeout_s
        chunks: list[Any] = []
        stream: Any = None
        try:
            stream = await self._within(litellm.acompletion(**request), deadline, chunks)
            iterator = aiter(stream)
            while True:
                try:
                    chunk = await self._within(anext(iterator), deadline, chunks)
                except StopAsyncIteration:
                    break
                chunks.append(chunk)
        except ProviderError:
            if stream is not None:
                await _close(stream)
            raise
        except Exception as exc:
            if stream is None:  # before the stream: the provider's error, as without stream
                raise
            # LiteLLM wraps a failure after the stream began in a MidStreamFallbackError.
            cause = getattr(exc, "original_exception", None)
            wrapped = isinstance(exc, litellm.exceptions.MidStreamFallbackError)
            found = cause if wrapped and isinstance(cause, Exception) else exc
            began = bool(chunks) or not getattr(exc, "is_pre_first_chunk", False)
            if began and error_kind(found) == "connection_error":
                raise MalformedReply(
                    f"stream cut after {len(chunks)} chunks, before a finish_reason (a 200 the provider "
                    f"began answering and may have billed): {' '.join(str(found).split())[:300]}"
                ) from exc
            if found is exc:
                raise
            raise found from exc
        if not any(getattr(c, "choices", None) for c in chunks):
            raise MalformedReply(f"stream of {len(chunks)} chunks without a choice")
        response = litellm.stream_chunk_builder(chunks, messages=request["messages"])
        # The usage the provider sent in its final chunk, as it sent it: LiteLLM hands the caller the
        # builder's usage instead, which fills in what the provider left out (reasoning_tokens 0 for a
        # model that reports none) or, with no usage chunk, estimates the counts with a tokenizer;
        # neither is what the provider counted.  The wrapper keeps the provider's chunks in ``chunks``.
        sent = getattr(stream, "chunks", None)
        usage = [c.usage for c in (sent if isinstance(sent, list) else chunks) if getattr(c, "usage", None)]
        response.usage = usage[-1] if usage else None
        return response

    async def _within(self, step: Any, deadline: float, chunks: list[Any]) -> Any:
        """``step`` awaited at most the stall timeout, and not past ``deadline`` (the ceiling)."""
        stall = self.spec.stall_timeout_s
        left = deadline - asyncio.get_running_loop().time()
        try:
            return await asyncio.wait_for(step, max(0.0, min(stall, left)))
        except TimeoutError:
            if stall < left:
                raise ProviderError(
                    "timeout",
                    f"Stream stalled: no chunk for {stall:g} s (stall_timeout_s) from "
                    f"{self.spec.litellm_model} after {len(chunks)} chunks",
                ) from None
            raise ProviderError(
                "timeout",
                f"Request timed out: the stream did not end within {self.spec.timeout_s:g} s (timeout_s, "
                f"the ceiling of a streamed request) from {self.spec.litellm_model}, after {len(chunks)} "
                "chunks",
            ) from None


async def _close(stream: Any) -> None:
    """Release an abandoned stream's connection (a stalled provider keeps it open otherwise)."""
    close = getattr(stream, "aclose", None)
    if close is not None:
        try:
            await close()
        except Exception:  # noqa: BLE001, S110 - best effort: the call has failed already
            pass
