"""Retry delay: how long a 429'd prompt waits beyond the server's Retry-After before it is re-sent.

Why: the gateway used to queue a retry behind every prompt not yet tried, so
with 20 % 429s and ``Retry-After: 1`` the median retry waited 41.6 s.  Now a
request whose wait has ended goes before fresh work; the target is a 90th
percentile of the retry delay <= Retry-After + 2 s at concurrency 32.

Measured by the fake server itself (``FakeOpenAIServer`` on threads of this
process, like the fault test), from its request log: for each 429 at arrival
``t1`` and the same prompt's next request at ``t2``, the retry delay is
``t2 - t1 - delay_s`` (the time from the 429 leaving the server to the retry
arriving); the part over Retry-After is the queueing the fix removes.  The
server decides the faults (seeded), so each run sees the same 429s.  A
number here, never a test assertion: it depends on the machine's speed.
Run alone: ``.venv/bin/python -m tests.perf.bench_retries``, or
``tests/perf/run_all.py --only retries``.
"""

from __future__ import annotations

import os
import statistics
from typing import Any

from tests.perf._common import Timer, fresh_duckdb, isolated_env

KEY_ENV = "RELREASON_BENCH_KEY"
N_PROMPTS = 2000
CONCURRENCY = 32
DELAY_S = 0.2
RATE_LIMIT_FRACTION = 0.2
RETRY_AFTER_S = 1.0


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def retry_delays(entries: list[Any], delay_s: float) -> list[float]:
    """Seconds from each 429 leaving the server to the same prompt's next request arriving."""
    by_key: dict[str, list[Any]] = {}
    for entry in entries:
        by_key.setdefault(entry.key, []).append(entry)
    out = []
    for requests in by_key.values():
        requests.sort(key=lambda e: e.t)
        for earlier, later in zip(requests, requests[1:], strict=False):
            if earlier.status == 429:
                out.append(later.t - earlier.t - delay_s)
    return out


def bench_retries(
    n_prompts: int = N_PROMPTS,
    concurrency: int = CONCURRENCY,
    delay_s: float = DELAY_S,
    rate_limit_fraction: float = RATE_LIMIT_FRACTION,
    retry_after_s: float = RETRY_AFTER_S,
) -> dict[str, Any]:
    """One run of ``run_model`` against a server that answers 429 + Retry-After to a fraction of requests."""
    from relreason_dagster.llm.gateway import run_model
    from relreason_dagster.llm.registry import ModelEntry
    from tests.fakes.openai_server import FakeOpenAIServer

    with isolated_env("retries") as root:
        os.environ[KEY_ENV] = "sk-bench"
        with FakeOpenAIServer(
            delay_s=delay_s, rate_limit_fraction=rate_limit_fraction, retry_after_s=retry_after_s, seed=11
        ) as server:
            spec = ModelEntry(
                name="retries",
                litellm_model="openai/fake",
                concurrency=concurrency,
                api_base=server.api_base,
                api_key_env=KEY_ENV,
                timeout_s=120.0,
                max_attempts=8,
            )
            prompts = [
                {
                    "prompt_id": f"r{i:05d}",
                    "messages": [{"role": "user", "content": f"retry bench question {i}"}],
                    "max_tokens": 8,
                }
                for i in range(n_prompts)
            ]
            con, store = fresh_duckdb(root / "retries.duckdb")
            try:
                with Timer() as t:
                    stats = run_model(store, spec, prompts, seed=5)
            finally:
                con.close()
            entries = server.entries()
    delays = retry_delays(entries, delay_s)
    p90 = _percentile(delays, 0.9) if delays else 0.0
    return {
        "prompts": n_prompts,
        "concurrency": concurrency,
        "delay_s": delay_s,
        "rate_limit_fraction": rate_limit_fraction,
        "retry_after_s": retry_after_s,
        "seconds": round(t.seconds, 2),
        "requests": len(entries),
        "retries": len(delays),
        "errors": stats.errors,
        "retry_delay_min_s": round(min(delays), 3) if delays else None,
        "retry_delay_median_s": round(statistics.median(delays), 3) if delays else None,
        "retry_delay_p90_s": round(p90, 3),
        "retry_delay_max_s": round(max(delays), 3) if delays else None,
        "target_p90_s": retry_after_s + 2.0,
        "meets_target": bool(delays) and p90 <= retry_after_s + 2.0,
    }


def render(result: dict[str, Any]) -> str:
    r = result
    return "\n".join(
        [
            "## Retries: delay beyond Retry-After",
            "",
            f"`run_model` at concurrency {r['concurrency']} against "
            f"`FakeOpenAIServer(delay_s={r['delay_s']}, rate_limit_fraction={r['rate_limit_fraction']}, "
            f"retry_after_s={r['retry_after_s']})`, "
            f"{r['prompts']} prompts; retry delay = the same prompt's next arrival minus the 429's "
            "departure, from the server's log.  Target: p90 <= Retry-After + 2 s.",
            "",
            "| requests | retries | errors | s | min | median | p90 | max | target p90 | met |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|",
            f"| {r['requests']} | {r['retries']} | {r['errors']} | {r['seconds']} | {r['retry_delay_min_s']} "
            f"| {r['retry_delay_median_s']} | {r['retry_delay_p90_s']} | {r['retry_delay_max_s']} "
            f"| {r['target_p90_s']} | {'yes' if r['meets_target'] else 'NO'} |",
            "",
        ]
    )


if __name__ == "__main__":  # .venv/bin/python -m tests.perf.bench_retries
    import json

    outcome = bench_retries()
    print(json.dumps(outcome, indent=2))
    print(render(outcome))
