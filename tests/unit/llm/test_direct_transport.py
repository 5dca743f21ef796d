"""The direct transport's pure parts: the entry's ``transport`` field, status → error kind, reading a body.

The transport against a server is tested in ``tests/integration/gateway/test_transport_equivalence.py``
(beside LiteLLM, row by row) and in the gateway's fault, malformed-reply and redaction tests, which
run on both transports.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.provider_errors import (
    MalformedReply,
    classify_error,
    retry_after_seconds,
    status_error,
)
from relreason_dagster.llm.registry import parse_registry
from relreason_dagster.llm.replies import read_body
from relreason_dagster.llm.transports.direct import wire_model

CONTEXT_BODY = b'{"error": {"message": "This model\'s maximum context length is 4096 tokens"}}'


def _entry(**kw) -> dict:
    return {"models": [{"name": "m", "litellm_model": "openai/x", **kw}]}


def test_transport_is_checked_in_models_yaml():
    spec = parse_registry(_entry(api_base="http://h:8000/v1"), "models.yaml")["m"]
    assert (spec.transport, spec.transport_used) == (None, "direct")
    spec = parse_registry(_entry(api_base="http://h:8000/v1", transport="litellm"), "models.yaml")["m"]
    assert spec.transport_used == "litellm"
    expected = r"models\[0\]\.transport: expected 'direct', 'litellm' or 'batch', got 'fast'"
    with pytest.raises(ConfigError, match=expected):
        parse_registry(_entry(transport="fast"), "models.yaml")
    with pytest.raises(ConfigError, match=r"transport: 'direct' speaks the OpenAI protocol to an api_base"):
        parse_registry(_entry(transport="direct"), "models.yaml")  # no api_base


@pytest.mark.parametrize(
    "status,body,kind,retryable",
    [
        (400, CONTEXT_BODY, "context_length_exceeded", False),
        (400, b'{"error": {"message": "bad value"}}', "bad_request", False),
        (401, b'{"error": {"message": "Incorrect API key provided"}}', "authentication", False),
        (403, b"{}", "permission_denied", False),
        (404, b'{"detail": "Not Found"}', "not_found", False),
        (408, b"", "timeout", True),
        (422, b'{"detail": "field required"}', "bad_request", False),
        (429, b'{"error": {"message": "slow down"}}', "rate_limit", True),
        (500, b'{"error": {"message": "boom"}}', "server_error", True),
        (502, b"<html><h1>502 Bad Gateway</h1></html>", "server_error", True),
        (503, b"upstream unavailable", "server_error", True),
    ],
)
def test_a_status_gets_the_kind_litellm_gives_it(status, body, kind, retryable):
    error = status_error(status, body, {})
    assert classify_error(error) == (kind, retryable)
    assert str(error).startswith(f"HTTP {status}: ")


def test_the_providers_message_and_retry_after_are_kept():
    error = status_error(429, b'{"error": {"message": "rate limited (fake)"}}', {"Retry-After": "7"})
    assert str(error) == "HTTP 429: rate limited (fake)" and retry_after_seconds(error) == 7.0
    page = status_error(502, b"<html>\n<h1>Bad   Gateway</h1>\n</html>", {})
    assert str(page) == "HTTP 502: <html> <h1>Bad Gateway</h1> </html>"


def test_a_body_is_read_as_litellm_reads_it():
    body = {
        "choices": [{"message": {"content": "True", "reasoning": "thinking"}, "finish_reason": "abort"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": "n/a"},
    }
    outcome = read_body(body, 0.1, 1)
    assert (outcome.content, outcome.reasoning, outcome.finish_reason) == ("True", "thinking", "stop")
    assert (outcome.prompt_tokens, outcome.completion_tokens) == (3, None)
    tagged = read_body({"choices": [{"message": {"content": "<think>\nhm\n</think>\n\nFalse"}}]}, 0.1, 1)
    assert (tagged.content, tagged.reasoning) == ("False", "\nhm\n")  # as LiteLLM keeps the block's text
    for broken in ([], {"choices": []}, {"usage": {}}, {"choices": [{"finish_reason": "stop"}]}):
        with pytest.raises(MalformedReply):
            read_body(broken, 0.1, 1)
    assert wire_model("hosted_vllm/Qwen/Qwen3-8B") == "Qwen/Qwen3-8B"


def test_an_unpriced_model_is_known_as_such_without_importing_litellm():
    code = (
        "import sys\n"
        "from relreason_dagster.llm.litellm_overhead import price_known\n"
        "assert not price_known('openai/my-own-finetune-7b')\n"
        "assert 'litellm' not in sys.modules, 'LiteLLM was imported'\n"
        "assert price_known('openai/gpt-4o-mini')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
