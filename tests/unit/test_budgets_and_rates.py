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
from relreason_dagster.llm.registry import ModelSpec
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


def _spec(server: FakeOpenAIServer, **kw) -> ModelSpec:
    return ModelSpec(
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
        spec = ModelSpec(
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


def test_rpm_is_honoured_in_the_servers_log(store: ResponseStore, monkeypatch):
    """rpm 3 over a 3-second "minute": no window of the server's log holds more than 3 requests.

    The check's window is half the limiter's, so the client's send time and the server's arrival
    time may differ by up to 1.5 s (a busy 2-core machine delayed arrivals by more than the 0.2 s a
    1-second window allowed); without the limiter all 8 requests arrive at once.
    """
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    monkeypatch.setattr(rate_limits, "WINDOW_S", 3.0)
    with FakeOpenAIServer() as server:
        spec = ModelSpec(
            name="limited", litellm_model="openai/fake-rpm", api_base=server.api_base, rpm=3, concurrency=8
        )
        stats = run_model(store, spec, _prompts(8))
        times = [e.t for e in server.entries()]
    assert (stats.called, stats.errors, len(times)) == (8, 0, 8)
    assert _most_in_any_window(times, 1.5) <= 3


def test_tpm_waits_for_the_window_to_hold_the_tokens():
    limiter = RateLimiter(rpm=None, tpm=100, window_s=60.0)
    limiter.sent.extend([(0.0, 40), (1.0, 40)])
    assert limiter._wait(2.0, 10) == 0.0  # 90 of 100: fits
    assert limiter._wait(2.0, 30) == pytest.approx(58.0)  # must wait for the first to leave the window
    assert limiter._wait(61.5, 30) == 0.0
    big = RateLimiter(rpm=2, tpm=None, window_s=10.0)
    big.sent.extend([(0.0, 0), (3.0, 0)])
    assert big._wait(4.0, 0) == pytest.approx(6.0)
    assert big._wait(10.5, 0) == 0.0
