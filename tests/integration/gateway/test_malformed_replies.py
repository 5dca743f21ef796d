"""Broken 200 replies from a fake OpenAI server: each prompt gets a stored row, the run never raises.

Before: a reply with ``"choices": []`` raised IndexError in the gateway, nothing was stored (not even
the error rows of other prompts) and the model step failed.  Now a reply without a message to store
(no ``choices``, an empty list, a choice without a message, a body that is not UTF-8) is sent once
more, never more (a 200 the provider may have billed: ``provider_errors.RETRY_RULES``), then stored
as a ``malformed_reply`` error row; ``content: null`` is an empty answer stored with its finish
reason.  Before issue 53 such a reply was sent ``max_attempts`` times, and a body with invalid UTF-8
was ``server_error`` on LiteLLM.  The fake server (named as such: a scripted stand-in for a
provider) decides each reply's shape from (prompt, attempt), so every expectation is exact.
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from tests.fakes.openai_server import FakeOpenAIServer, default_answer, prompt_key

pytestmark = pytest.mark.integration

MAX_ATTEMPTS = 3
# A malformed reply is sent at most this often, whatever max_attempts says (provider_errors.RETRY_RULES).
MALFORMED_SENDS = 2
# Each prompt's script: the shape of its reply at attempt 1, 2, 3 (None: a normal answer).
SCRIPTS: dict[str, tuple[str | None, ...]] = {
    "always_empty": ("empty_choices",) * MAX_ATTEMPTS,
    "always_missing": ("no_choices",) * MAX_ATTEMPTS,
    "always_no_message": ("no_message",) * MAX_ATTEMPTS,
    "empty_then_ok": ("empty_choices", None),
    "missing_then_ok": ("no_choices", None),
    "null_content": ("null_content",),
    "null_content_no_finish": ("null_content_no_finish",),
    "plain": (None,),
}
N_EACH = 3  # prompts per script


@pytest.fixture(params=["direct", "litellm"])
def transport(request) -> str:
    """Every test here runs on both of the gateway's transports (llm/transports/)."""
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
        spec = ModelEntry(
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
            assert content is None and attempts == MALFORMED_SENDS, (pid, attempts)
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
    # Sent twice at most, never max_attempts times: the server saw exactly these requests.
    expected_requests = (
        sum(MALFORMED_SENDS if name in broken else len(script) for name, script in SCRIPTS.items()) * N_EACH
    )
    assert len(log) == expected_requests


def test_a_run_again_asks_only_the_malformed_ones(duck, store, monkeypatch, transport):
    """Error rows are re-asked by the next run like any provider error; stored answers are not."""
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    prompts = _prompts()[: 2 * N_EACH]  # always_empty and always_missing
    with FakeOpenAIServer(
        malformed=lambda _key, attempt: "empty_choices" if attempt == 1 else None
    ) as server:
        spec = ModelEntry(
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


def test_a_200_with_invalid_utf8_is_one_kind_sent_twice_at_most(duck, store, monkeypatch, transport):
    """A complete answer whose body holds bytes that are not UTF-8: the provider answered (and billed).

    Before: ``malformed_reply`` on the direct transport and ``server_error`` on LiteLLM, each sent
    ``max_attempts`` (5) times.  Now one kind on both and two sends at most: one retry (the next reply
    may be readable), then an error row.
    """
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    prompts = [
        {
            "prompt_id": f"{name}-{i}",
            "messages": [{"role": "user", "content": f"{name} {i}"}],
            "max_tokens": 8,
        }
        for name in ("always_bad", "bad_then_ok")
        for i in range(N_EACH)
    ]
    bad_first = {prompt_key(p["messages"]) for p in prompts if p["prompt_id"].startswith("bad_then_ok")}

    def malformed(key: str, attempt: int) -> str | None:
        return None if key in bad_first and attempt > 1 else "invalid_utf8"

    with FakeOpenAIServer(malformed=malformed) as server:
        spec = ModelEntry(
            name="fake-utf8",
            litellm_model="openai/fake-model",
            api_base=server.api_base,
            api_key_env="RELREASON_FAKE_KEY",
            transport=transport,
            concurrency=2,
            timeout_s=120,
        )
        assert spec.max_attempts == 5  # the default: what the billed reply used to be sent
        stats = run_model(store, spec, prompts, backoff_base_s=0.001, backoff_cap_s=0.01)
        log = server.entries()

    per_prompt: dict[str, int] = {}
    for entry in log:
        per_prompt[entry.key] = per_prompt.get(entry.key, 0) + 1
    assert sorted(per_prompt.values()) == [2] * (2 * N_EACH), per_prompt  # <= 2 sends, here exactly 2
    assert [e.malformed for e in log].count("invalid_utf8") == 3 * N_EACH
    assert stats.error_kinds == {"malformed_reply": N_EACH}, stats.error_kinds
    rows = duck.execute(
        "SELECT prompt_id, content, error, attempts FROM raw.responses WHERE model = 'fake-utf8'"
    ).fetchall()
    for pid, content, error, attempts in rows:
        assert attempts == 2, (pid, attempts)
        if pid.startswith("always_bad"):
            assert content is None and error.startswith("malformed_reply: "), (pid, error)
        else:
            assert error is None and content.startswith("answer to "), (pid, content)
