"""A slow answer is paid at most twice, and the run says so: possibly-billed timeouts (issue 54, item 3).

The fake OpenAI server (a scripted stand-in for a provider, ``tests/fakes/openai_server.py``) takes 5 s
per answer and the entry's ``timeout_s`` is 2, so every send times out after it was sent whatever the
machine's speed (the server never answers sooner than 5 s; only the time the test takes changes).
Such a send may be billed (a provider bills a request it finished after the client left), so the
gateway sends it at most ``1 + timeout_retries`` times (default 1: two sends, not ``max_attempts``
5) and counts each send as possibly billed at its estimated cost, which goes into the run's spent
total and its summary line.  The model string is a priced one (``openai/gpt-4o-mini``, LiteLLM's
offline cost map) so the estimate is a number; the requests still go to the fake server's api_base.

Beside it, the other side of the rule: a timeout while *connecting* sent nothing and cannot have
been billed, so it keeps the normal retry rule (``max_attempts`` sends) and counts nothing.  The
server for that is a listening socket whose accept queue is full, so the kernel drops further
connection attempts and every connect times out, deterministically and offline.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.litellm_overhead import call_cost
from relreason_dagster.llm.possibly_billed import estimate_usd
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage import sent_requests
from tests.fakes.openai_server import FakeOpenAIServer, prompt_key

pytestmark = pytest.mark.integration

KEY_ENV = "RELREASON_BILLED_KEY"
PRICED_MODEL = "openai/gpt-4o-mini"
MAX_TOKENS = 64
# The server takes this long per answer; the client waits TIMEOUT_S: every send times out after it
# was sent, however slow the machine (the server is never faster than SLOW_S).
SLOW_S = 5.0
TIMEOUT_S = 2.0


@pytest.fixture(params=["direct", "litellm"])
def transport(request) -> str:
    """Both of the gateway's transports (llm/transports/): each must tell a sent timeout apart."""
    return request.param


def _prompt(i: int = 0) -> dict:
    return {
        "prompt_id": f"slow{i}",
        "messages": [{"role": "user", "content": f"Think for a long time about question {i}."}],
        "max_tokens": MAX_TOKENS,
    }


def _spec(api_base: str, transport: str, **fields) -> ModelEntry:
    return ModelEntry(
        name="slow-thinker",
        litellm_model=PRICED_MODEL,
        api_base=api_base,
        api_key_env=KEY_ENV,
        transport=transport,
        concurrency=2,
        **fields,
    )


def test_a_slow_answer_is_sent_twice_and_counted_possibly_billed(store, monkeypatch, transport):
    monkeypatch.setenv(KEY_ENV, "sk-fake")
    prompt = _prompt()
    with FakeOpenAIServer(delay_s=SLOW_S) as server:
        spec = _spec(server.api_base, transport, timeout_s=TIMEOUT_S)  # max_attempts 5, timeout_retries 1
        stats = run_model(store, spec, [prompt], backoff_base_s=0.0, seed=1, ledger="launch-run-1")
        sends = [entry for entry in server.entries() if entry.key == prompt_key(prompt["messages"])]

    # Two sends of the same request (the first and one retry), not max_attempts (5).
    assert len(sends) == 2, sends
    # The server finished both after the client had left (its log says 200): what a provider bills.
    assert all(entry.status == 200 for entry in sends)
    row = store.latest("slow-thinker")["slow0"]
    assert row["error"].startswith("timeout: ") and row["attempts"] == 2 and row["content"] is None
    assert stats.error_kinds == {"timeout": 1}

    # Both counted possibly billed, at the most a send can cost: prompt chars / 4 at the input price
    # plus max_tokens at the output price of the LiteLLM model string.
    one = estimate_usd(spec, _work(spec, prompt))
    chars = sum(len(m["content"]) for m in prompt["messages"]) + 1
    assert one == call_cost(PRICED_MODEL, chars // 4, MAX_TOKENS)
    assert one is not None and one > 0
    assert stats.possibly_billed == 2
    assert stats.possibly_billed_usd == pytest.approx(2 * one)
    assert stats.spent_usd == pytest.approx(2 * one)  # the run's cost: what max_cost counts
    assert f"2 timed-out sends possibly billed (~${2 * one:.4f} estimated)" in stats.summary()

    # The run's ledger (what `relreason status` shows for the launch) has them too.
    ledger = sent_requests.read_sent(store.lake, ["launch-run-1"])["slow-thinker"]
    assert ledger["possibly_billed"] == 2
    assert ledger["possibly_billed_usd"] == pytest.approx(2 * one)


def test_earlier_estimates_count_against_a_later_runs_max_cost(store, monkeypatch):
    """A later run's max_cost sees the possibly-billed estimate an earlier run left in its ledger."""
    monkeypatch.setenv(KEY_ENV, "sk-fake")
    with FakeOpenAIServer(delay_s=SLOW_S) as server:
        spec = _spec(server.api_base, "direct", timeout_s=TIMEOUT_S, timeout_retries=0)
        first = run_model(store, spec, [_prompt(0)], backoff_base_s=0.0, ledger="earlier-run")
        assert first.possibly_billed == 1 and len(server.entries()) == 1
        # A budget below what the first run may have been billed: the second run asks nothing.
        budget = first.possibly_billed_usd / 2
        capped = _spec(server.api_base, "direct", timeout_s=TIMEOUT_S, timeout_retries=0, max_cost=budget)
        second = run_model(store, capped, [_prompt(1)], backoff_base_s=0.0, ledger="later-run")
        assert len(server.entries()) == 1  # the second prompt was never sent
    assert second.budget_stopped == 1 and second.called == 0
    assert second.spent_usd == pytest.approx(first.possibly_billed_usd)


def _work(spec: ModelEntry, prompt: dict):
    from relreason_dagster.llm.draw_plan import plan_requests

    return next(iter(plan_requests(spec, [prompt]).values()))


@pytest.fixture
def unreachable() -> Iterator[str]:
    """An api_base whose connections never complete: a listener with a full accept queue (the kernel
    drops further SYNs), so every connect times out and no request is ever sent."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = listener.getsockname()[1]
    fillers = []
    for _ in range(4):  # fill the accept queue; connections past it stay half-open
        filler = socket.socket()
        filler.setblocking(False)
        try:
            filler.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        fillers.append(filler)
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        for filler in fillers:
            filler.close()
        listener.close()


def test_a_timeout_while_connecting_is_not_billed(store, monkeypatch, transport, unreachable):
    monkeypatch.setenv(KEY_ENV, "sk-fake")
    spec = _spec(unreachable, transport, timeout_s=1.0, max_attempts=3)
    stats = run_model(store, spec, [_prompt()], backoff_base_s=0.0, seed=1)
    row = store.latest("slow-thinker")["slow0"]
    # Nothing was sent: the normal rule (max_attempts sends), nothing possibly billed.
    assert stats.error_kinds == {"connect_timeout": 1}, row["error"]
    assert row["attempts"] == 3
    assert stats.possibly_billed == 0 and stats.possibly_billed_usd == 0
    assert "possibly billed" not in stats.summary()


def test_worker_processes_possibly_billed_sends_add_up(store, monkeypatch):
    """Two worker processes (``workers: 2``), one slow prompt each: the run counts all four sends."""
    monkeypatch.setenv(KEY_ENV, "sk-fake")
    prompts = [_prompt(0), _prompt(1)]
    with FakeOpenAIServer(delay_s=SLOW_S) as server:
        spec = _spec(server.api_base, "direct", timeout_s=TIMEOUT_S, workers=2)
        stats = run_model(store, spec, prompts, backoff_base_s=0.0, seed=1, ledger="workers-run")
        sends = len(server.entries())
    assert stats.workers == 2 and sends == 4
    one = [estimate_usd(spec, _work(spec, p)) for p in prompts]
    assert stats.possibly_billed == 4
    assert stats.possibly_billed_usd == pytest.approx(2 * sum(one))
    assert "4 timed-out sends possibly billed" in stats.summary()
