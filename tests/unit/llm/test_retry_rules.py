"""The retry table: one row per error kind, in the code (``provider_errors.RETRY_RULES``) and in the docs.

Before: whether a kind was retried was decided in three places (the direct transport's status table,
LiteLLM's exception list, the gateway's ``max_attempts``), and a 200 reply that could not be read was
sent up to ``max_attempts`` (5) times, each one a reply the provider may have billed.  Now the gateway
asks :func:`sends_allowed` and nothing else, and ``malformed_reply`` costs two sends at most.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from relreason_dagster.llm.provider_errors import (
    MALFORMED_REPLY,
    RETRY_RULES,
    MalformedReply,
    classify_error,
    retry_rule,
    sends_allowed,
    status_error,
)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "pipeline.md"


@pytest.mark.parametrize(
    "kind,max_attempts,sends",
    [
        (MALFORMED_REPLY, 5, 2),  # a billed 200: one more try, never five
        (MALFORMED_REPLY, 1, 1),  # the model's own bound still holds
        ("server_error", 5, 5),
        ("rate_limit", 3, 3),
        ("timeout", 5, 2),  # sent, maybe billed: the first send and timeout_retries (1) more
        ("connect_timeout", 5, 5),  # nothing was sent: the normal rule
        ("connection_error", 2, 2),
        ("authentication", 5, 1),
        ("bad_request", 5, 1),
        ("rejected_param", 5, 1),
        ("context_length_exceeded", 5, 1),
        ("a kind nobody named", 5, 1),  # unknown: not known to be worth a second send
    ],
)
def test_sends_allowed_per_kind(kind, max_attempts, sends):
    assert sends_allowed(kind, max_attempts) == sends


@pytest.mark.parametrize(
    "timeout_retries,max_attempts,sends",
    [(0, 5, 1), (1, 5, 2), (3, 5, 4), (3, 2, 2), (10, 5, 5)],
)
def test_a_timeout_is_sent_at_most_one_plus_timeout_retries_times(timeout_retries, max_attempts, sends):
    assert sends_allowed("timeout", max_attempts, timeout_retries) == sends
    # Other kinds keep their own rule whatever timeout_retries says.
    assert sends_allowed("server_error", max_attempts, timeout_retries) == max_attempts
    assert sends_allowed("rate_limit", max_attempts, timeout_retries) == max_attempts
    assert sends_allowed("connect_timeout", max_attempts, timeout_retries) == max_attempts


def test_only_a_sent_timeout_is_possibly_billed():
    assert {kind for kind, rule in RETRY_RULES.items() if rule.possibly_billed} == {"timeout"}


def test_a_litellm_timeout_names_whether_it_was_sent():
    """LiteLLM's Timeout over httpx's ConnectTimeout (nothing sent) or ReadTimeout (sent)."""
    import httpx
    import litellm

    def timeout_over(cause: BaseException) -> BaseException:
        try:
            try:
                raise cause
            except httpx.TimeoutException as exc:
                raise litellm.Timeout("Request timed out.", model="m", llm_provider="openai") from exc
        except litellm.Timeout as wrapped:
            return wrapped

    assert classify_error(timeout_over(httpx.ConnectTimeout("no connection")))[0] == "connect_timeout"
    assert classify_error(timeout_over(httpx.PoolTimeout("no free connection")))[0] == "connect_timeout"
    assert classify_error(timeout_over(httpx.ReadTimeout("no answer")))[0] == "timeout"
    assert (
        classify_error(litellm.Timeout("Request timed out.", model="m", llm_provider="openai"))[0]
        == "timeout"
    )


def test_every_kind_a_transport_gives_has_a_row():
    kinds = {
        classify_error(status_error(status, b"{}", {}))[0]
        for status in (400, 401, 403, 404, 408, 422, 429, 500)
    }
    kinds.add(classify_error(MalformedReply("200 reply with no choices"))[0])
    assert kinds <= set(RETRY_RULES), kinds - set(RETRY_RULES)
    assert classify_error(MalformedReply("x")) == (MALFORMED_REPLY, True)
    # A classified error's "retryable" is its row's, whichever transport raised it.
    for status in (401, 429, 500):
        error = status_error(status, b"{}", {})
        assert error.retryable == retry_rule(error.kind).retryable


def test_an_undecodable_body_is_a_malformed_reply_whatever_wraps_it():
    try:
        try:
            b'{"choices": "\xff"}'.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RuntimeError("the SDK's wrapper") from exc
    except RuntimeError as wrapped:
        assert classify_error(wrapped) == (MALFORMED_REPLY, True)


def _docs_table() -> dict[str, str]:
    """Kind -> the "sends at most" cell of the retry table in docs/pipeline.md."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("**Retries.**") :]
    section = section[: section.index("\n\n", section.index("| kind |"))]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"\| `([a-z_]+)` \|.*\| ([^|]+) \|$", line)
        if match:
            rows[match.group(1)] = match.group(2).strip()
    return rows


def test_the_docs_table_is_the_codes_table():
    rows = _docs_table()
    assert set(rows) == set(RETRY_RULES), set(rows) ^ set(RETRY_RULES)
    for kind, rule in RETRY_RULES.items():
        if not rule.retryable:
            expected = "1"
        elif rule.possibly_billed:
            expected = "1 + `timeout_retries`"
        elif rule.max_sends is None:
            expected = "`max_attempts`"
        else:
            expected = str(rule.max_sends)
        assert rows[kind] == expected, (kind, rows[kind], expected)
