"""Broken 200 replies from a fake OpenAI server: each prompt gets a stored row, the run never raises.

Before: a reply with ``"choices": []`` raised IndexError in the gateway, nothing was stored (not even
the error rows of other prompts) and the model step failed.  Now a reply without a message to store
(no ``choices``, an empty list, a choice without a message) is retried like a 5xx and, once
``max_attempts`` are spent, stored as a ``malformed_reply`` error row; ``content: null`` is an empty
answer stored with its finish reason.  The fake server (named as such: a scripted stand-in for a
provider) decides each reply's shape from (prompt, attempt), so every expectation is exact.
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelSpec
from tests.fakes.openai_server import FakeOpenAIServer, default_answer, prompt_key

pytestmark = pytest.mark.integration

MAX_ATTEMPTS = 3
# Each prompt's script: the shape of its reply at attempt 1, 2, 3 (None: a normal answer).
SCRIPTS: dict[str, tuple[str | None, ...]] = {
    "always_empty": ("empty_choices",) * MAX_ATTEMPTS,
    "always_missing": ("no_choices",) * MAX_ATTEMPTS,
    "always_no_message": ("no_message",) * MAX_ATTEMPTS,
    "empty_then_ok": ("empty_choices", None),
    "missing_then_ok": ("no_choices", "empty_choices", None),
    "null_content": ("null_content",),
    "null_content_no_finish": ("null_content_no_finish",),
    "plain": (None,),
}
N_EACH = 3  # prompts per script


@pytest.fixture(params=["direct", "litellm"])
def transport(request) -> str:
    """Every test here runs on both of the gateway's transports (llm/direct_transport.py)."""
    return request.param


def _prompts() -> list[dict]:
    return [
        {
            "prompt_id": f"{name}-{i}",
            "messages": [{"role": "user", "content": f"{name} question {i}"}],
            "max_tokens": 16,
            "benchmark": "toy",
        }
        for name in SCRIPTS
        for i in range(N_EACH)
    ]


def _script_of(prompt_id: str) -> str:
    return prompt_id.rsplit("-", 1)[0]


def test_malformed_replies_become_rows_and_the_run_goes_on(duck, store, monkeypatch, transport):
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    prompts = _prompts()
    script_by_key = {prompt_key(p["messages"]): SCRIPTS[_script_of(p["prompt_id"])] for p in prompts}

    def malformed(key: str, attempt: int) -> str | None:
        script = script_by_key[key]
        return script[attempt - 1] if attempt <= len(script) else None

    with FakeOpenAIServer(malformed=malformed) as server:
        spec = ModelSpec(
            name="fake-malformed",
            litellm_model="openai/fake-model",
            api_base=server.api_base,
            api_key_env="RELREASON_FAKE_KEY",
            transport=transport,
            concurrency=4,
            max_attempts=MAX_ATTEMPTS,
            timeout_s=120,
        )
        stats = run_model(store, spec, prompts, backoff_base_s=0.001, backoff_cap_s=0.01)
        log = server.entries()

    rows = duck.execute(
        "SELECT prompt_id, content, finish_reason, error, attempts FROM raw.responses"
        " WHERE model = 'fake-malformed'"
    ).fetchall()
    by_id = {r[0]: r for r in rows}
    assert len(rows) == len(prompts) and set(by_id) == {p["prompt_id"] for p in prompts}

    broken = {"always_empty", "always_missing", "always_no_message"}
    for p in prompts:
        pid, name = p["prompt_id"], _script_of(p["prompt_id"])
        _, content, finish, error, attempts = by_id[pid]
        if name in broken:
            assert error is not None and error.startswith("malformed_reply: "), (pid, error)
            assert content is None and attempts == MAX_ATTEMPTS, (pid, attempts)
        elif name.startswith("null_content"):
            # An empty answer, not an error: the parsers give it a parse status like any answer.
            assert (content, error, attempts) == ("", None, 1), by_id[pid]
            assert finish == ("length" if name == "null_content" else "stop")
        else:
            assert error is None and content == default_answer(p["messages"]), by_id[pid]
            assert attempts == len(SCRIPTS[name]), (pid, attempts)

    assert stats.called == len(prompts)
    assert stats.errors == len(broken) * N_EACH
    assert stats.error_kinds == {"malformed_reply": len(broken) * N_EACH}
    # Retried within max_attempts, never beyond: the server saw exactly the scripted requests.
    expected_requests = (
        sum(MAX_ATTEMPTS if name in broken else len(script) for name, script in SCRIPTS.items()) * N_EACH
    )
    assert len(log) == expected_requests


def test_a_run_again_asks_only_the_malformed_ones(duck, store, monkeypatch, transport):
    """Error rows are re-asked by the next run like any provider error; stored answers are not."""
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    prompts = _prompts()[: 2 * N_EACH]  # always_empty and always_missing
    with FakeOpenAIServer(
        malformed=lambda _key, attempt: "empty_choices" if attempt == 1 else None
    ) as server:
        spec = ModelSpec(
            name="fake-malformed-once",
            litellm_model="openai/fake-model",
            api_base=server.api_base,
            api_key_env="RELREASON_FAKE_KEY",
            transport=transport,
            concurrency=2,
            max_attempts=1,
            timeout_s=120,
        )
        first = run_model(store, spec, prompts)
        assert first.errors == len(prompts)
        server.reset_log()
        second = run_model(store, spec, prompts)
        assert second.errors == 0 and second.called == len(prompts)
        assert len(server.entries()) == len(prompts)
        server.reset_log()
        third = run_model(store, spec, prompts)
        assert third.skipped == len(prompts) and server.entries() == []
    latest = duck.execute(
        "SELECT count(*) FROM raw.responses WHERE model = 'fake-malformed-once' AND error IS NULL"
    ).fetchall()
    assert latest == [(len(prompts),)]
