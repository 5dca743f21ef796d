"""The ``direct`` transport: chat completions to an OpenAI-compatible server over one pooled aiohttp session.

Why not LiteLLM for these: LiteLLM spends 2–4 ms of CPU on every call in every transport it offers
(docs/measured.md), a bare aiohttp call ~0.2 ms.  Against a self-hosted vLLM / SGLang / llama.cpp / TGI
server answering thousands of short prompts at high concurrency, that CPU, not the GPU, set the rate:
0.57 of the ideal at 64 in flight.  A model that speaks the OpenAI protocol to an ``api_base``
(``openai/…`` or ``hosted_vllm/…``, ``ModelEntry.transport_used``) is therefore sent here by default;
every other provider, and any entry with ``transport: litellm``, goes through LiteLLM (``litellm.py``).

Nothing else changes for the user, and the tests hold both transports to it
(``tests/integration/gateway/test_transport_equivalence.py``):

* the same request: the model name after its provider prefix, the messages, the params the gateway
  computed (``request_key.effective_params``: the model's, the profile's generation knobs on top);
  the request hash is computed before the transport is chosen and does not include it, so switching
  transport re-asks nothing;
* the same stored row: the reply is read by ``replies.read_body`` into the same :class:`Outcome`
  LiteLLM's reply gives (``finish_reason`` normalised as LiteLLM does, thinking from
  ``reasoning_content`` or a ``<think>`` block, token counts, cost from LiteLLM's cost map);
* the same error kinds and retries: a non-2xx status becomes :class:`ProviderError` with the kind
  LiteLLM's exception mapping gives that status (429 keeps its ``Retry-After`` headers), a timeout
  ``timeout``, a reset or refused connection ``connection_error``, a body that cannot be decoded
  (not UTF-8, not JSON) or has no message ``malformed_reply`` (sent at most twice:
  ``provider_errors.RETRY_RULES``); the provider's own message stays in the text, so a refused generation
  parameter is still explained (``rejected_params.py``) and a key it echoes still redacted.

One session per run of a model on its event loop (a ``workers:`` process has its own), keep-alive,
at most ``concurrency`` connections; it is closed when the run's calls end.  aiohttp is imported when
the session opens, like LiteLLM on its first call.  Per request this costs what a bare aiohttp call
costs: :meth:`DirectTransport.send` is the POST itself and :attr:`DirectTransport.read` is
``replies.read_body``, called by the gateway with nothing in between (``protocol.py``).

**Streaming** (``stream: true`` on the entry): the request asks ``"stream": true`` with
``stream_options.include_usage``, and :meth:`DirectTransport.send` reads the server-sent events as they
arrive into the ``chat.completion`` they stream (``sse.py``), so ``read`` is still ``read_body`` and the
row is the one a non-streamed call stores.  The session's timeouts say what a stream may take:
``timeout_s`` the whole request (``total``), ``stall_timeout_s`` the wait for the next byte
(``sock_read``, from the request sent to the first byte and between any two).  A stall is a
``timeout`` whose text says "stalled"; an error status before the stream is read as today; a stream
cut short is ``malformed_reply`` (``sse.py`` says why); a server that ignores ``stream`` and answers
JSON is read as JSON.  Which ``send`` a transport uses is chosen once, when it is built, so the
non-streamed call costs what it did.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from relreason_dagster.llm.provider_errors import CONNECT_TIMEOUT, MalformedReply, ProviderError, status_error
from relreason_dagster.llm.replies import read_body
from relreason_dagster.llm.transports.protocol import Transport
from relreason_dagster.llm.transports.sse import EventStream
from relreason_dagster.llm.transports.table import DIRECT

if TYPE_CHECKING:
    from relreason_dagster.llm.draw_plan import Work
    from relreason_dagster.llm.registry import ModelEntry

# The environment variable LiteLLM reads a key from when the entry names none, per provider.
_DEFAULT_KEY_ENV = {"openai": "OPENAI_API_KEY", "hosted_vllm": "HOSTED_VLLM_API_KEY"}
# Idle connections are kept this long, less than servers keep theirs (uvicorn, under vLLM and SGLang:
# 5 s), so a request is not sent on a connection the server is closing.
_KEEPALIVE_S = 4.0
# A request body's JSON: json.dumps(payload, separators=(",", ":")) with the encoder built once.
_BODY = json.JSONEncoder(separators=(",", ":"))


def wire_model(litellm_model: str) -> str:
    """The model name the server is sent: the LiteLLM string without its provider prefix."""
    return litellm_model.split("/", 1)[1] if "/" in litellm_model else litellm_model


class DirectTransport(Transport):
    """One model's pooled HTTP session to ``{api_base}/chat/completions`` (opened inside the run's loop)."""

    name = DIRECT
    # A body is read by the reader LiteLLM's replies are held to (the same Outcome, field by field).
    read = staticmethod(read_body)

    def __init__(
        self, spec: ModelEntry, api_key: str | None, extra_kwargs: dict[str, Any] | None = None
    ) -> None:
        super().__init__(spec, api_key, extra_kwargs or {})
        if not spec.api_base:
            raise ValueError(f"model {spec.name!r}: the direct transport needs an api_base")
        self.url = spec.api_base.rstrip("/") + "/chat/completions"
        self.model = wire_model(spec.litellm_model)
        self.timeout_s = spec.timeout_s
        self.limit = spec.concurrency
        key = api_key or os.environ.get(_DEFAULT_KEY_ENV.get(spec.provider, ""), "") or None
        self.headers = {"Content-Type": "application/json"}
        if key:
            self.headers["Authorization"] = f"Bearer {key}"
        self.session: Any = None
        self.target: Any = None  # self.url as a yarl.URL, once the session is open
        self.marker: Any = None  # transports/sent_marker.py, once the session is open
        self.stream = spec.stream
        self.stall_timeout_s = spec.stall_timeout_s
        if self.stream:  # chosen once: the non-streamed send stays the bare POST
            self.send = self._send_stream  # type: ignore[method-assign]

    def request(self, work: Work, n: int) -> bytes:
        """The request body, encoded once per request (a retry sends the same bytes).

        The params are the work's with ``extra_kwargs`` on top and ``n`` when it asks several choices.
        ``extra_body`` is merged into the body's top level, as the OpenAI SDK (LiteLLM's path) does:
        sent as a field of its own, a server would ignore what it holds (a chat template's
        ``enable_thinking: false`` would leave thinking on).
        """
        payload = {**work.params, **self.extra_kwargs} if self.extra_kwargs else dict(work.params)
        if n > 1:
            payload["n"] = n
        extra = payload.pop("extra_body", None)
        if isinstance(extra, dict):
            payload.update(extra)
        payload["model"] = self.model
        payload["messages"] = work.messages
        if self.stream:
            payload["stream"] = True
            payload["stream_options"] = {"include_usage": True}
        return _BODY.encode(payload).encode("utf-8")

    async def open(self) -> None:
        """The pooled session, in the run's own loop (a ``workers:`` process opens its own)."""
        if self.session is None:
            self._open()

    def _open(self) -> Any:
        import aiohttp
        import yarl

        from relreason_dagster.llm.transports import sent_marker

        self.marker = sent_marker  # imported once with aiohttp: per request, a lookup and no import
        # The URL parsed and the headers given once, for the session (per request they were ~10 % of
        # the call's own CPU, measured against the fake server).
        self.target = yarl.URL(self.url)
        self.session = aiohttp.ClientSession(
            # Marks when a request got its connection: a timeout before it was sent is not billed.
            connector=sent_marker.MarkingConnector(limit=self.limit, keepalive_timeout=_KEEPALIVE_S),
            timeout=aiohttp.ClientTimeout(
                total=self.timeout_s, sock_read=self.stall_timeout_s if self.stream else None
            ),
            cookie_jar=aiohttp.DummyCookieJar(),
            raise_for_status=False,
            headers=self.headers,
        )
        return self.session

    async def send(self, body: bytes) -> Any:
        """POST ``body``; the parsed JSON reply, or :class:`ProviderError` / :class:`MalformedReply`."""
        import aiohttp

        session = self.session or self._open()
        sent_marker = self.marker
        sent_marker.start()
        try:
            async with session.post(self.target, data=body) as response:
                raw = await response.read()
                status = response.status
                if not 200 <= status < 300:
                    raise status_error(status, raw, dict(response.headers))
        except TimeoutError:
            raise self._timed_out(
                sent_marker.connected(), f"Request timed out: no answer within {self.timeout_s:g} s"
            ) from None
        except aiohttp.ClientError as exc:
            raise ProviderError(
                "connection_error", f"Connection error to {self.url}: {type(exc).__name__}: {exc}"
            ) from None
        return _decoded(raw)

    async def _send_stream(self, body: bytes) -> Any:
        """POST ``body`` asking for a stream; the ``chat.completion`` its events carry (``sse.py``).

        The session's ``sock_read`` is the stall timeout and its ``total`` the ceiling; the events are
        read in whatever pieces the socket gives (a line may be longer than any reader's limit).
        """
        import aiohttp

        session = self.session or self._open()
        sent_marker = self.marker
        events = EventStream()
        sent_marker.start()
        try:
            async with session.post(self.target, data=body) as response:
                status = response.status
                if not 200 <= status < 300:
                    raise status_error(status, await response.read(), dict(response.headers))
                if response.content_type != "text/event-stream":
                    return _decoded(await response.read())  # a server that does not stream
                async for data in response.content.iter_any():
                    events.feed(data)
                    if events.done:
                        break
        except aiohttp.ServerTimeoutError:  # sock_read: no byte for stall_timeout_s
            raise ProviderError(
                "timeout",
                f"Stream stalled: no byte for {self.stall_timeout_s:g} s (stall_timeout_s) from {self.url} "
                f"after {events.events} events",
            ) from None
        except TimeoutError:
            raise self._timed_out(
                sent_marker.connected(),
                f"Request timed out: the stream did not end within {self.timeout_s:g} s (timeout_s, the "
                "ceiling of a streamed request)",
                f", after {events.events} events",
            ) from None
        except aiohttp.ClientPayloadError as exc:  # the connection closed mid-stream
            if events.complete:
                return events.body()
            raise MalformedReply(
                f"stream cut after {events.events} events, without [DONE] or a finish_reason "
                f"(a 200 the provider began answering and may have billed): {type(exc).__name__}"
            ) from None
        except aiohttp.ClientError as exc:
            raise ProviderError(
                "connection_error", f"Connection error to {self.url}: {type(exc).__name__}: {exc}"
            ) from None
        return events.body()

    def _timed_out(self, sent: bool, what: str, after: str = "") -> ProviderError:
        """The error of a request ``timeout_s`` ended: ``timeout`` once it was ``sent`` (possibly billed),
        ``connect_timeout`` when it never got a connection (nothing sent: provider_errors.CONNECT_TIMEOUT)."""
        if not sent:
            return ProviderError(
                CONNECT_TIMEOUT,
                f"Connection timed out: no connection within {self.timeout_s:g} s to {self.url}",
            )
        return ProviderError("timeout", f"{what} from {self.url}{after}")

    async def close(self) -> None:
        """Close the session (its connections); a later send would open a new one."""
        if self.session is not None:
            session, self.session = self.session, None
            await session.close()


def _decoded(raw: bytes) -> Any:
    """A 200 body's JSON, or :class:`MalformedReply` saying why it cannot be read."""
    try:
        return json.loads(raw)
    except UnicodeDecodeError as exc:  # bytes that are no encoding JSON allows (RFC 8259: UTF-8)
        shown = raw[:200].decode("utf-8", "replace")
        raise MalformedReply(f"200 reply whose body cannot be decoded ({exc.reason}): {shown!r}") from None
    except ValueError:
        shown = raw[:200].decode("utf-8", "replace")
        raise MalformedReply(f"200 reply whose body is not JSON: {shown!r}") from None
