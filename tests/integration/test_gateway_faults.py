"""The gateway against a faulty OpenAI-compatible server: retries, Retry-After, resume.

The fake server's faults are a pure function of (seed, prompt, attempt), so
the test knows in advance which prompts must succeed, after how many
requests, and which must end as stored errors.
"""

from __future__ import annotations

import json
import time
from collections import defaultdict

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelSpec
from tests.fakes.openai_server import FakeOpenAIServer, default_answer, prompt_key

N_PROMPTS = 500
RETRY_AFTER_S = 1
MAX_ATTEMPTS = 4
TIMEOUT_S = 2.0


@pytest.fixture
def server():
    with FakeOpenAIServer(
        rate_limit_fraction=0.20,
        server_error_fraction=0.05,
        hang_fraction=0.02,
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


def _expected(server: FakeOpenAIServer, key: str, first_attempt: int) -> tuple[bool, int]:
    """(succeeds, requests made) for a prompt whose next server-side attempt is ``first_attempt``."""
    for n in range(1, MAX_ATTEMPTS + 1):
        if server.fault_for(key, first_attempt + n - 1) == 200:
            return True, n
    return False, MAX_ATTEMPTS


def test_faults_retries_and_resume(duck, store, server, monkeypatch):
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    spec = ModelSpec(
        name="fake-gpt",
        litellm_model="openai/fake-model",
        params={"temperature": 0, "seed": 0},
        concurrency=64,
        api_base=server.api_base,
        api_key_env="RELREASON_FAKE_KEY",
        timeout_s=TIMEOUT_S,
        max_attempts=MAX_ATTEMPTS,
    )
    prompts = _prompts()
    key_of = {p["prompt_id"]: prompt_key(p["messages"]) for p in prompts}
    expected = {pid: _expected(server, key, 1) for pid, key in key_of.items()}
    expected_errors = {pid for pid, (ok, _) in expected.items() if not ok}
    assert 0 < len(expected_errors) < 20, "fault mix should leave a few prompts in error"

    start = time.monotonic()
    stats = run_model(store, spec, prompts, backoff_base_s=0.05, backoff_cap_s=0.5, seed=3)
    first_seconds = time.monotonic() - start
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
            assert error.split(":")[0] in {"rate_limit", "server_error", "timeout"}, error

    # The server saw exactly the predicted requests, and no prompt was answered twice.
    per_key: dict[str, list] = defaultdict(list)
    for entry in log:
        per_key[entry.key].append(entry)
    assert {key_of[pid] for pid in key_of} == set(per_key)
    for pid, (_ok, n_requests) in expected.items():
        assert len(per_key[key_of[pid]]) == n_requests
    assert all(sum(e.status == 200 for e in entries) <= 1 for entries in per_key.values())
    statuses = server.status_counts()
    assert statuses[429] > 50 and statuses[500] > 5 and statuses[None] > 2

    # Retry-After was honoured: the next request of a 429'd prompt came >= Retry-After later.
    gaps = []
    for entries in per_key.values():
        entries.sort(key=lambda e: e.t)
        for earlier, later in zip(entries, entries[1:], strict=False):
            if earlier.status == 429:
                gaps.append(later.t - earlier.t)
    assert gaps and min(gaps) >= RETRY_AFTER_S - 0.005, min(gaps)
    assert first_seconds < 40, first_seconds

    # A second run re-asks only the prompts that ended in error.
    server.reset_log()
    again = run_model(store, spec, prompts, backoff_base_s=0.05, backoff_cap_s=0.5, seed=4)
    asked = {entry.key for entry in server.entries()}
    assert asked == {key_of[pid] for pid in expected_errors}
    assert again.skipped == N_PROMPTS - len(expected_errors)
    assert again.called == len(expected_errors)
    total_rows = duck.execute("SELECT count(*) FROM raw.responses").fetchone()[0]
    assert total_rows == N_PROMPTS


def test_concurrency_is_bounded_and_used(duck, store, monkeypatch):
    """With a fixed delay, in-flight requests reach but never exceed spec.concurrency."""
    monkeypatch.setenv("RELREASON_FAKE_KEY", "sk-fake")
    with FakeOpenAIServer(delay_s=0.2) as srv:
        spec = ModelSpec(
            name="slow",
            litellm_model="openai/fake-model",
            concurrency=16,
            api_base=srv.api_base,
            api_key_env="RELREASON_FAKE_KEY",
            timeout_s=10,
        )
        prompts = [
            {"prompt_id": f"s{i}", "messages": [{"role": "user", "content": json.dumps(i)}], "max_tokens": 8}
            for i in range(64)
        ]
        start = time.monotonic()
        stats = run_model(store, spec, prompts)
        elapsed = time.monotonic() - start
    assert stats.called == 64 and stats.errors == 0
    # 64 requests / 16 in flight * 0.2 s = 0.8 s ideal; serial would be 12.8 s.
    assert elapsed < 4.0, elapsed
    arrivals = sorted(e.t for e in srv.entries())
    in_window = max(sum(1 for t in arrivals if a <= t < a + 0.19) for a in arrivals)
    assert in_window <= 16, in_window
