"""Concurrency: requests/s through the gateway against a server with a fixed 200 ms latency.

Why: hosted models are latency-bound, so a run's speed is set by how many
requests the gateway keeps in flight.  With a server that always takes
``delay`` seconds, the ideal rate at concurrency ``c`` is ``c / delay``;
the achieved fraction of it shows where the client side (LiteLLM, the event
loop, DuckDB writes, the one CPU the loop runs on) becomes the limit.

Each level gets its own prompts (the response cache would otherwise answer
them) and a fresh DuckDB.  The server's log gives the peak number of
requests it actually had in flight.
"""

from __future__ import annotations

import os
from typing import Any

from tests.perf._common import Timer, fresh_duckdb, isolated_env

DELAY_S = 0.2
LEVELS = (1, 8, 32, 64)
KEY_ENV = "RELREASON_BENCH_KEY"


def n_prompts_for(concurrency: int) -> int:
    """Enough requests for >= ~8 full waves at high concurrency, >= 40 requests (8 s) at c = 1."""
    return max(40, 8 * concurrency)


def _peak_in_flight(arrivals: list[float], delay_s: float) -> int:
    """Most requests the server held at once, treating each as busy for ``delay_s`` after arrival."""
    events = sorted(
        [(t, 1) for t in arrivals] + [(t + delay_s, -1) for t in arrivals], key=lambda e: (e[0], e[1])
    )
    peak = current = 0
    for _, step in events:
        current += step
        peak = max(peak, current)
    return peak


def bench_concurrency(levels: tuple[int, ...] = LEVELS, delay_s: float = DELAY_S) -> dict[str, Any]:
    """Achieved requests/s at each concurrency level through ``run_model``."""
    from relreason_dagster.llm.gateway import run_model
    from relreason_dagster.llm.registry import ModelSpec
    from tests.fakes.openai_server import FakeOpenAIServer

    rows: list[dict[str, Any]] = []
    with isolated_env("concurrency") as root, FakeOpenAIServer(delay_s=delay_s) as server:
        os.environ[KEY_ENV] = "sk-bench"
        # One warm-up request: LiteLLM builds its HTTP client and imports the provider lazily.
        spec0 = ModelSpec(
            name="warm", litellm_model="openai/fake", api_base=server.api_base, api_key_env=KEY_ENV
        )
        con = fresh_duckdb(root / "warm.duckdb")
        run_model(
            con,
            spec0,
            [{"prompt_id": "w", "messages": [{"role": "user", "content": "warm"}], "max_tokens": 8}],
        )
        con.close()
        for c in levels:
            n = n_prompts_for(c)
            spec = ModelSpec(
                name=f"fake-c{c}",
                litellm_model="openai/fake",
                params={"temperature": 0},
                concurrency=c,
                api_base=server.api_base,
                api_key_env=KEY_ENV,
                timeout_s=30.0,
            )
            prompts = [
                {
                    "prompt_id": f"c{c}-{i:05d}",
                    "messages": [{"role": "user", "content": f"level {c} question {i}: what is {i} + {c}?"}],
                    "max_tokens": 16,
                }
                for i in range(n)
            ]
            con = fresh_duckdb(root / f"c{c}.duckdb")
            server.reset_log()
            try:
                with Timer() as t:
                    stats = run_model(con, spec, prompts)
                stored = con.execute(
                    "SELECT count(*) FROM raw.responses WHERE error IS NULL AND model = ?", [spec.name]
                ).fetchone()[0]
            finally:
                con.close()
            entries = server.entries()
            rate = n / t.seconds
            ideal = c / delay_s
            rows.append(
                {
                    "concurrency": c,
                    "prompts": n,
                    "seconds": round(t.seconds, 2),
                    "requests_per_s": round(rate, 1),
                    "ideal_per_s": round(ideal, 1),
                    "fraction_of_ideal": round(rate / ideal, 3),
                    "server_requests": len(entries),
                    "server_peak_in_flight": _peak_in_flight([e.t for e in entries], delay_s),
                    "errors": stats.errors,
                    "stored_ok": stored,
                }
            )
    return {"delay_s": delay_s, "levels": rows}


def render(result: dict[str, Any]) -> str:
    """Markdown section for the report."""
    d = result["delay_s"]
    lines = [
        "## 2. Concurrency (fake OpenAI-compatible server, fixed latency)",
        "",
        f"`run_model` with `openai/fake` against `FakeOpenAIServer(delay_s={d})` on 127.0.0.1; fresh DuckDB "
        "and distinct prompts per level.  Ideal = concurrency / delay.",
        "",
        "| concurrency | prompts | s | requests/s | ideal/s | fraction of ideal | peak in flight at server "
        "| errors |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in result["levels"]:
        lines.append(
            f"| {r['concurrency']} | {r['prompts']} | {r['seconds']} | {r['requests_per_s']} "
            f"| {r['ideal_per_s']} "
            f"| {r['fraction_of_ideal']:.0%} | {r['server_peak_in_flight']} | {r['errors']} |"
        )
    return "\n".join(lines) + "\n"
