"""The gateway against a faulty OpenAI-compatible server: retries, Retry-After, resume, ordering.

The fake server decides every fault, as a pure function of (seed, prompt,
attempt): the test knows in advance which prompts must succeed, after how
many requests, and which must end as stored errors.  No fault depends on a
client timeout racing a slow machine: dropped connections stand for network
faults, and the client timeout is far above anything the server takes, so a
busy machine changes how long the test takes, never what it sees.  (The one
test of client timeouts uses a server that never answers at all.)
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from tests.fakes.openai_server import DROP, FakeOpenAIServer, default_answer, prompt_key

N_PROMPTS = 500
RETRY_AFTER_S = 1
MAX_ATTEMPTS = 4
# Generous: the fake answers at once, so only a stalled machine could reach it, and then the
# test is slow rather than wrong.
TIMEOUT_S = 120.0


@pytest.fixture(params=["direct", "litellm"])
def transport(request) -> str:
    """Every test here runs on both of the gateway's transports (llm/transports/)."""
    return request.param


@pytest.fixture
def server():
    with FakeOpenAIServer(
        rate_limit_fraction=0.20,
        server_error_fraction=0.05,
        drop_fraction=0.02,
        retry_after_s=RETRY_AFTER_S,
        seed=7,
    ) as srv:
        yield srv


def _prompts() -> list[dict]:
    return [
        {
            "prompt_id": f"q{i:04d}",
            "messages": [
                {"role": "system", "content": "Answer briefly."},
                {"role": "user", "content": f"What is {i} + {i}?"},
            ],
            "max_tokens": 16,
        }
        for i in range(N_PROMPTS)
    ]


def test_faults_retries_and_resume(duck, store, server, monkeypatch, transport):
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    spec = ModelEntry(
        name="fake-gpt",
        litellm_model="openai/fake-model",
        params={"temperature": 0, "seed": 0},
        concurrency=64,
        api_base=server.api_base,
        api_key_env="RELREASON_FAKE_KEY",
        transport=transport,
        timeout_s=TIMEOUT_S,
        max_attempts=MAX_ATTEMPTS,
    )
    prompts = _prompts()
    key_of = {p["prompt_id"]: prompt_key(p["messages"]) for p in prompts}
    expected = {pid: server.outcome(key, MAX_ATTEMPTS) for pid, key in key_of.items()}
    expected_errors = {pid for pid, (ok, _) in expected.items() if not ok}
    assert 0 < len(expected_errors) < 20, "fault mix should leave a few prompts in error"

    stats = run_model(store, spec, prompts, backoff_base_s=0.05, backoff_cap_s=0.5, seed=3)
    log = server.entries()

    # Every prompt has exactly one row: an answer, or an error after the last attempt.
    rows = duck.execute(
        "SELECT prompt_id, content, error, attempts FROM raw.responses WHERE model = 'fake-gpt'"
    ).fetchall()
    assert len(rows) == N_PROMPTS and len({r[0] for r in rows}) == N_PROMPTS
    by_id = {r[0]: r for r in rows}
    errors = {pid for pid, r in by_id.items() if r[2] is not None}
    assert errors == expected_errors
    assert stats.errors == len(errors) and stats.called == N_PROMPTS
    for pid, (ok, n_requests) in expected.items():
        _, content, error, attempts = by_id[pid]
        assert attempts == n_requests, (pid, attempts, n_requests)
        if ok:
            assert error is None
            prompt = next(p for p in prompts if p["prompt_id"] == pid)
            assert content == default_answer(prompt["messages"])
        else:
            assert content is None
            assert error.split(":")[0] in {"rate_limit", "server_error", "connection_error"}, error

    # The server saw exactly the predicted requests, and no prompt was answered twice.
    per_key: dict[str, list] = defaultdict(list)
    for entry in log:
        per_key[entry.key].append(entry)
    assert {key_of[pid] for pid in key_of} == set(per_key)
    for pid, (_ok, n_requests) in expected.items():
        assert len(per_key[key_of[pid]]) == n_requests
    assert all(sum(e.status == 200 for e in entries) <= 1 for entries in per_key.values())
    statuses = server.status_counts()
    assert statuses[429] > 50 and statuses[500] > 5 and statuses[DROP] > 2 and statuses[None] == 0

    # Retry-After was honoured: the next request of a 429'd prompt came >= Retry-After later.
    gaps = []
    for entries in per_key.values():
        entries.sort(key=lambda e: e.t)
        for earlier, later in zip(entries, entries[1:], strict=False):
            if earlier.status == 429:
                gaps.append(later.t - earlier.t)
    # (a lower bound: a slow machine only makes the gaps longer).
    assert gaps and min(gaps) >= RETRY_AFTER_S - 0.005, min(gaps)

    # A second run re-asks only the prompts that ended in error.
    server.reset_log()
    again = run_model(store, spec, prompts, backoff_base_s=0.05, backoff_cap_s=0.5, seed=4)
    asked = {entry.key for entry in server.entries()}
    assert asked == {key_of[pid] for pid in expected_errors}
    assert again.skipped == N_PROMPTS - len(expected_errors)
    assert again.called == len(expected_errors)
    total_rows = duck.execute("SELECT count(*) FROM raw.responses").fetchone()[0]
    assert total_rows == N_PROMPTS


def test_concurrency_is_bounded_and_used(duck, store, monkeypatch, transport):
    """In-flight requests reach but never exceed spec.concurrency, as the server counts them.

    The server holds the first requests until 16 are in flight at once, so "reached" is what it
    observed, whatever the machine's speed; "never exceeded" is its running maximum.
    """
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    with FakeOpenAIServer(delay_s=0.05, hold_until_in_flight=16, meet_timeout_s=300) as srv:
        spec = ModelEntry(
            name="slow",
            litellm_model="openai/fake-model",
            concurrency=16,
            api_base=srv.api_base,
            api_key_env="RELREASON_FAKE_KEY",
            transport=transport,
            timeout_s=TIMEOUT_S,
        )
        prompts = [
            {"prompt_id": f"s{i}", "messages": [{"role": "user", "content": json.dumps(i)}], "max_tokens": 8}
            for i in range(64)
        ]
        stats = run_model(store, spec, prompts)
    assert stats.called == 64 and stats.errors == 0
    assert srv.held.is_set(), "the client never had 16 requests in flight"
    assert srv.max_in_flight == 16, srv.max_in_flight


def _ordered_prompts(n: int) -> list[dict]:
    """Prompts whose send order is their index (the gateway sends fresh work sorted by content)."""
    return [
        {"prompt_id": f"o{i:02d}", "messages": [{"role": "user", "content": f"q{i:02d}"}], "max_tokens": 8}
        for i in range(n)
    ]


def test_a_retry_is_sent_before_prompts_not_yet_tried(duck, store, monkeypatch, transport):
    """One worker; the first prompt is told to retry at once (429, Retry-After: 0).

    Its second request must be the server's next one, ahead of every prompt not yet tried.
    (Before retries went first, it queued behind all of them: a 1 s Retry-After cost ~40 s.)
    The order is what the server logged, so no timing is involved.
    """
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    prompts = _ordered_prompts(12)
    first, *rest = [prompt_key(p["messages"]) for p in prompts]

    def faults(key: str, attempt: int) -> int:
        return 429 if key == first and attempt == 1 else 200

    with FakeOpenAIServer(faults=faults, retry_after_s=0) as srv:
        spec = ModelEntry(
            name="one-at-a-time",
            litellm_model="openai/fake-model",
            concurrency=1,
            api_base=srv.api_base,
            api_key_env="RELREASON_FAKE_KEY",
            transport=transport,
            timeout_s=TIMEOUT_S,
            max_attempts=3,
        )
        stats = run_model(store, spec, prompts, backoff_base_s=0.0, seed=1)
    assert stats.errors == 0 and stats.attempts == len(prompts) + 1
    order = [(e.key, e.status) for e in srv.entries()]
    assert order == [(first, 429), (first, 200), *((key, 200) for key in rest)]


def test_a_server_that_never_answers_times_out_into_an_error_row(duck, store, monkeypatch, transport):
    """Client timeouts: every request hangs, so the timeout fires whatever the machine's speed."""
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    with FakeOpenAIServer(hang_fraction=1.0) as srv:
        spec = ModelEntry(
            name="silent",
            litellm_model="openai/fake-model",
            concurrency=2,
            api_base=srv.api_base,
            api_key_env="RELREASON_FAKE_KEY",
            transport=transport,
            timeout_s=1.0,
            max_attempts=2,
        )
        stats = run_model(store, spec, _ordered_prompts(2), backoff_base_s=0.0, seed=1)
        statuses = srv.status_counts()
    assert stats.errors == 2 and stats.error_kinds == {"timeout": 2}
    assert statuses == {None: 4}  # two prompts, two attempts each, none answered
    rows = duck.execute("SELECT error, attempts, content FROM raw.responses WHERE model = 'silent'")
    rows = rows.fetchall()
    assert len(rows) == 2 and all(e.startswith("timeout: ") and a == 2 and c is None for e, a, c in rows)
