"""A model entry's ``max_cost``, ``rpm`` and ``tpm``, against the fake OpenAI server's request log.

The server is a scripted stand-in for a provider.  The budget test serves it under the name
``openai/gpt-4o-mini``, a model LiteLLM's offline cost map prices, so every call has a real cost.
The rate test shrinks the limiter's one-minute window to a fraction of a second (the same code, a
smaller clock) so it runs in seconds; it checks only what the server saw, never how fast it went.
"""

from __future__ import annotations

import pytest

from relreason_dagster.errors import ConfigError
from relreason_dagster.llm import rate_limits
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.litellm_overhead import call_cost
from relreason_dagster.llm.rate_limits import RateLimiter
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer

PRICED = "openai/gpt-4o-mini"


def _prompts(n: int) -> list[dict]:
    # Same number of words each, so every call has the same token counts and the same cost.
    return [
        {
            "prompt_id": f"p{i:02d}",
            "messages": [{"role": "user", "content": f"question q{i:02d}"}],
            "max_tokens": 8,
        }
        for i in range(n)
    ]


def _spec(server: FakeOpenAIServer, **kw) -> ModelEntry:
    return ModelEntry(
        name="budgeted", litellm_model=PRICED, api_base=server.api_base, params={"temperature": 0}, **kw
    )


def test_max_cost_stops_cleanly_keeps_rows_and_a_higher_budget_resumes(
    duck, store: ResponseStore, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    per_call = call_cost(PRICED, 2, 3)  # the fake server's usage: 2 prompt words, "answer to <key>"
    assert per_call is not None and per_call > 0
    with FakeOpenAIServer() as server:
        first = run_model(store, _spec(server, max_cost=2.5 * per_call, concurrency=1), _prompts(10))
        assert (first.called, first.budget_stopped, first.errors) == (3, 7, 0)
        assert len(server.entries()) == 3
        assert "stopped at its max_cost" in first.summary()
        assert duck.execute("SELECT count(*), sum(cost_usd) FROM raw.responses").fetchone() == (
            3,
            pytest.approx(3 * per_call),
        )
        # The same budget again: already spent, nothing is asked.
        again = run_model(store, _spec(server, max_cost=2.5 * per_call, concurrency=1), _prompts(10))
        assert (again.called, again.skipped, again.budget_stopped) == (0, 3, 7)
        # A higher budget resumes where it stopped; the stored answers are not asked again.
        more = run_model(store, _spec(server, max_cost=100 * per_call, concurrency=1), _prompts(10))
        assert (more.called, more.skipped, more.budget_stopped) == (7, 3, 0)
        assert len(server.entries()) == 10
        assert len({e.key for e in server.entries()}) == 10


def test_max_cost_without_a_price_is_a_config_error(store: ResponseStore, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    with FakeOpenAIServer() as server:
        spec = ModelEntry(
            name="u", litellm_model="openai/unpriced-fake", api_base=server.api_base, max_cost=1.0
        )
        with pytest.raises(ConfigError, match="max_cost needs a price"):
            run_model(store, spec, _prompts(2))
        assert server.entries() == []


def _most_in_any_window(times: list[float], window: float) -> int:
    times = sorted(times)
    most, start = 0, 0
    for end, t in enumerate(times):
        while t - times[start] >= window:
            start += 1
        most = max(most, end - start + 1)
    return most


@pytest.mark.parametrize(("rpm", "n"), [(3, 8), (6, 14)])
def test_rpm_holds_in_every_window_of_the_servers_log(store: ResponseStore, monkeypatch, rpm, n):
    """rpm over a 2-second "minute": no window of the server's arrival log as long as the limiter's
    own holds more than rpm requests, however late the requests arrive after we send them.

    A request keeps its place until its answer is back (the provider has counted it by then), so
    arrival delays on a busy machine cannot put a second burst within a window of the first; without
    the limiter all n requests arrive at once.
    """
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setattr(rate_limits, "WINDOW_S", 2.0)
    with FakeOpenAIServer() as server:
        spec = ModelEntry(
            name="limited", litellm_model="openai/fake-rpm", api_base=server.api_base, rpm=rpm, concurrency=8
        )
        stats = run_model(store, spec, _prompts(n))
        times = [e.t for e in server.entries()]
    assert (stats.called, stats.errors, len(times)) == (n, 0, n)
    assert _most_in_any_window(times, 2.0) <= rpm


def _slot(ends: float, tokens: int = 0) -> rate_limits.Slot:
    slot = rate_limits.Slot(tokens)
    slot.ends = ends
    return slot


def test_tpm_waits_for_the_window_to_hold_the_tokens():
    limiter = RateLimiter(rpm=None, tpm=100, window_s=60.0)
    limiter.slots.extend([_slot(0.0, 40), _slot(1.0, 40)])
    assert limiter._wait(2.0, 10) == 0.0  # 90 of 100: fits
    assert limiter._wait(2.0, 30) == pytest.approx(58.0)  # must wait for the first to leave the window
    assert limiter._wait(61.5, 30) == 0.0
    big = RateLimiter(rpm=2, tpm=None, window_s=10.0)
    big.slots.extend([_slot(0.0), _slot(3.0)])
    assert big._wait(4.0, 0) == pytest.approx(6.0)
    assert big._wait(10.5, 0) == 0.0


def test_a_request_in_flight_holds_its_place_until_it_answers():
    """The window of a request starts when its answer is back, not when it was sent: the provider may
    count it at any moment in between."""
    limiter = RateLimiter(rpm=2, tpm=None, window_s=10.0)
    in_flight = rate_limits.Slot(0)
    limiter.slots.extend([_slot(0.0), in_flight])
    assert limiter._wait(4.0, 0) == pytest.approx(6.0)  # the answered one leaves first
    limiter.slots.append(rate_limits.Slot(0))
    assert limiter._wait(100.0, 0) == float("inf")  # two in flight: wait for an answer
    tpm = RateLimiter(rpm=None, tpm=50, window_s=10.0)
    tpm.slots.append(rate_limits.Slot(40))
    assert tpm._wait(500.0, 20) == float("inf")


def test_release_starts_the_window_after_the_answer_plus_a_margin(monkeypatch):
    import asyncio

    clock = [100.0]
    monkeypatch.setattr(rate_limits.time, "monotonic", lambda: clock[0])
    limiter = RateLimiter(rpm=1, tpm=None, window_s=60.0)

    async def scenario() -> float:
        slot = await limiter.acquire()
        clock[0] = 103.0  # answered three seconds after it was sent
        limiter.release(slot)
        return limiter._wait(clock[0], 0)

    assert asyncio.run(scenario()) == pytest.approx(60.0 + rate_limits.MARGIN_S)
