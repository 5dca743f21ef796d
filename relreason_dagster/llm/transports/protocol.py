"""The transport protocol: what the gateway needs from a way of sending requests, and nothing more.

Why this split (the shape of inspect_ai's ``ModelAPI`` providers and lm-evaluation-harness's
``TemplateAPI``, whose ``_create_payload`` / ``model_call`` / ``parse_generations`` each subclass of
``openai_completions.py`` fills in): everything a run shares whatever sends its calls stays in
``llm/gateway.py`` (the request hash and plan, ``concurrency``, ``rpm``/``tpm``, retries by error kind
via ``provider_errors.RETRY_RULES``, ``max_cost``, draws and ``n``, the lake, the sent-requests
ledger); a transport only

1. **opens** what it sends over, inside the run's event loop (a pooled HTTP session; LiteLLM's
   in-process provider and its zero prices), once per process that sends;
2. builds a **request** once per request (a retry sends the same object);
3. **sends** it once, returning the provider's reply or raising an error that
   ``provider_errors.error_kind`` classifies (its own ``ProviderError``/``MalformedReply``, or the
   LiteLLM/OpenAI exceptions it already knows);
4. **reads** one choice of a reply into an :class:`~relreason_dagster.llm.replies.Outcome`, the stored
   row's content (``llm/response_row.py`` makes the row; ``llm/choices.py`` splits a reply of several
   draws into one-choice views first, the same for every transport);
5. **closes** what it opened.

The gateway never asks which transport it holds: a new one is a module with a subclass of
:class:`Transport` and a line in ``table.py`` (or :func:`table.register` from a test or a plugin).

How what comes later fits, without changing the gateway's loop:

* **batch jobs** (issue 54): ``send`` files the request under its ``request_hash`` (``custom_id``) in a
  pending provider job and awaits the future the job's collection resolves; ``open`` picks up jobs a
  killed run left, ``close`` submits or leaves what is pending; the result lines are chat bodies, so
  ``read`` is ``replies.read_body``.  A request that failed in the job raises like a live one, so the
  retry table decides whether it is asked again.
* **streaming**: ``send`` reads the stream as it arrives (a stall timeout between chunks beside the
  total) and returns the assembled body with the final chunk's usage; ``read`` is unchanged.

Per-call cost matters (the direct transport exists because LiteLLM spends 2–4 ms of CPU per call):
``send`` and ``read`` are called by the gateway directly, so a transport whose ``send`` *is* its
HTTP call and whose ``read`` *is* ``replies.read_body`` adds no await and no frame per request.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from relreason_dagster.llm.draw_plan import Work
    from relreason_dagster.llm.registry import ModelEntry
    from relreason_dagster.llm.replies import Outcome
    from relreason_dagster.storage.lake import Lake


class Deferred(Exception):  # noqa: N818 - not an error: an answer that comes later
    """Raised by ``send`` for a request whose answer will come later, in another run (a batch job a
    ``--no-wait`` run leaves running): the gateway counts it as pending and stores nothing for it."""


class Transport:
    """One model's way of sending requests during one run, in one process (see the module docstring).

    ``spec``: the model entry; ``api_key``: its key (or None); ``extra_kwargs``: what goes into every
    request on top of its params but not into the request hash (tests' knobs, ``run_model``'s
    ``extra_kwargs``).  Constructing one sends nothing and may raise ``ValueError`` for an entry it
    cannot serve.
    """

    # The name a models.yaml entry's ``transport`` gives (``table.py``), shown in the run's summary.
    name: ClassVar[str]
    # Whether the entry's ``rpm``/``tpm`` bound this transport's sends (a batch job's lines are not
    # live calls: the provider's batch queue has limits of its own).
    rate_limited: ClassVar[bool] = True
    # The run's lake, set by the gateway before :meth:`open`: where a transport keeps what must outlive
    # its process (a batch transport's job ids, ``storage/batch_jobs.py``).
    lake: Lake | None = None

    def __init__(self, spec: ModelEntry, api_key: str | None, extra_kwargs: dict[str, Any]) -> None:
        self.spec = spec
        self.api_key = api_key
        self.extra_kwargs = extra_kwargs

    def in_flight(self) -> int:
        """How many requests may wait on :meth:`send` at once: the entry's ``concurrency`` for a live
        transport; a batch transport takes every request of the run at once."""
        return self.spec.concurrency

    def processes(self) -> int:
        """How many processes may share the run's sends (the entry's ``workers``)."""
        return self.spec.workers

    async def open(self) -> None:
        """Get ready to send, inside the run's event loop (before its first request; once)."""

    def request(self, work: Work, n: int) -> Any:
        """What :meth:`send` sends for ``work`` asking ``n`` choices (``n`` > 1: several draws in one
        request; not part of the request hash).  Built once: a retry sends the same object."""
        raise NotImplementedError

    async def send(self, request: Any) -> Any:
        """Send ``request`` once; the provider's reply, or an error ``provider_errors.error_kind``
        knows.  Bounded in time by the transport itself (the entry's ``timeout_s``)."""
        raise NotImplementedError

    @staticmethod
    def read(reply: Any, latency: float, attempts: int, spec: ModelEntry | None = None) -> Outcome:
        """The outcome of a one-choice reply (``replies.read_reply``'s contract: ``MalformedReply``
        when it carries no message to store)."""
        raise NotImplementedError

    async def close(self) -> None:
        """Release what :meth:`open` (or a send) took; the run's calls are over."""
