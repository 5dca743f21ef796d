"""One stored ``responses`` row, typed: the only shape in which the gateway hands an answer to the lake.

Why a module of its own: a row was a 19-value tuple written out in two places (a call's outcome and
a cache copy), where a swapped pair of columns would be stored without a word.  :class:`ResponseRow`
names every column in the lake's order (``storage/lake.RESPONSES_SCHEMA``;
``tests/unit/llm/test_response_row.py`` holds the two together) and, being a tuple, costs the group
commit (``lake_writer.py``, ``storage/responses._table_of``) nothing over the bare tuple it replaces.
Whichever transport sent a request, its rows are built here, so they are the same field by field.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, NamedTuple

from relreason_dagster.llm.draw_plan import Work
from relreason_dagster.llm.replies import Outcome


class ResponseRow(NamedTuple):
    """A ``responses`` row, column for column (``storage/lake.RESPONSES_SCHEMA``)."""

    prompt_id: str
    model: str
    benchmark: str
    request_hash: str
    litellm_model: str
    content: str | None
    finish_reason: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_s: float | None
    attempts: int
    error: str | None
    from_cache: bool
    created_at: datetime
    # False here: the store sets it when the text had to change (``storage/responses.clean_text``).
    sanitized: bool
    reasoning: str | None
    reasoning_tokens: int | None
    sample_index: int
    cost_usd: float | None
    # Who the provider said answered (``replies.Outcome``); null for an error and for older rows.
    served_model: str | None
    system_fingerprint: str | None


# A row made from its values in C: a NamedTuple's own constructor is a Python function with 21
# arguments, ~2 µs per row on a loaded 2-core machine against ~0.4 µs here (the bare tuple it replaced:
# ~0.4), paid on every answer of the direct transport's ~0.3 ms of CPU per request.
_new_row = tuple.__new__


class OutcomeRows:
    """Turns one request's outcome into its rows and hands them to ``add`` (the run's lake writer).

    Built once per run with what every row of the run shares, so storing an answer costs one method
    call and one tuple per prompt id, as the bare tuple did (made by ``_new_row``).
    """

    def __init__(
        self,
        model: str,
        litellm_model: str,
        redact: Callable[[Any], Any],
        add: Callable[[ResponseRow], None],
        unknown_benchmark: str,
    ) -> None:
        self.model = model
        self.unknown_benchmark = unknown_benchmark
        self.litellm_model = litellm_model
        self.redact = redact
        self.add = add

    def store(self, work: Work, outcome: Outcome, benchmarks: dict[str, str], created: datetime) -> None:
        """One row per prompt id the request answered (``benchmarks``: prompt id -> lake partition).

        Every text the provider sent passes ``redact`` (no key is stored).  One call answered every
        prompt id of the request, so the rows after the first are ``from_cache`` (when answered) and
        cost 0.
        """
        redact = self.redact
        content = redact(outcome.content)
        finish_reason = redact(outcome.finish_reason)
        error = redact(outcome.error)
        reasoning = redact(outcome.reasoning)
        served_model = redact(outcome.served_model)
        fingerprint = redact(outcome.system_fingerprint)
        answered = outcome.error is None
        cost = outcome.cost_usd
        for i, prompt_id in enumerate(work.prompt_ids):
            self.add(
                _new_row(
                    ResponseRow,
                    (
                        prompt_id,
                        self.model,
                        benchmarks.get(prompt_id, self.unknown_benchmark),
                        work.request_hash,
                        self.litellm_model,
                        content,
                        finish_reason,
                        outcome.prompt_tokens,
                        outcome.completion_tokens,
                        outcome.latency_s,
                        outcome.attempts,
                        error,
                        i > 0 and answered,
                        created,
                        False,
                        reasoning,
                        outcome.reasoning_tokens,
                        work.sample_index,
                        cost if i == 0 or cost is None else 0.0,
                        served_model,
                        fingerprint,
                    ),
                )
            )


def copied_row(
    prompt_id: str, request_hash: str, hit: dict[str, Any], *, model: str, benchmark: str, created: datetime
) -> ResponseRow:
    """A cache hit (a stored OK row of the same request hash, any model name) stored for ``model``.

    A copy costs nothing: its ``cost_usd`` is 0 where the original's price is known, else null; it
    was changed exactly as its source was (``sanitized``); it made no attempt.  It keeps the
    original's served model and fingerprint: the answer is that model's, whichever entry stores it.
    """
    return ResponseRow(
        prompt_id,
        model,
        benchmark,
        request_hash,
        hit["litellm_model"],
        hit["content"],
        hit["finish_reason"],
        hit["prompt_tokens"],
        hit["completion_tokens"],
        hit["latency_s"],
        0,
        None,
        True,
        created,
        bool(hit.get("sanitized")),
        hit.get("reasoning"),
        hit.get("reasoning_tokens"),
        hit.get("sample_index") or 0,
        None if hit.get("cost_usd") is None else 0.0,
        hit.get("served_model"),
        hit.get("system_fingerprint"),
    )
