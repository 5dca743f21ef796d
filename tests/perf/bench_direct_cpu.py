"""CPU ms per request of ``run_model`` on the direct transport beside plain aiohttp, a few rounds.

Why beside the concurrency section: on a machine shared with other work the fraction of the ideal
rate moves with the load, while CPU time per request (``time.process_time``) moves much less, so
two versions of the gateway are compared by running this from each tree in turn, interleaved::

    for t in OLD NEW OLD NEW; do (cd $t && PYTHONPATH=$t python -m tests.perf.bench_direct_cpu); done

Each round is one level of the concurrency section (``bench_concurrency._level``: 8 × C prompts,
fresh lake, the fake server in a child process answering after 200 ms) and the plain aiohttp client
on the same server right after it; the output is one JSON line with every round's numbers.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from tests.perf import bench_concurrency as bc
from tests.perf._common import isolated_env


def direct_cpu(concurrency: int = 64, rounds: int = 4, delay_s: float = bc.DELAY_S) -> dict[str, Any]:
    """Per round: the direct transport's client CPU ms per request and fraction of ideal, and plain
    aiohttp's, at ``concurrency`` in flight (one warm-up level first)."""
    out: dict[str, Any] = {"concurrency": concurrency, "cpu": [], "frac": [], "raw_cpu": [], "raw_frac": []}
    with isolated_env("direct-cpu") as root:
        os.environ[bc.KEY_ENV] = "sk-bench"
        with bc._serve("child", delay_s) as server:
            (root / "warm").mkdir()
            bc._level(server, root / "warm", "child", 8, delay_s)
            for r in range(rounds):
                (root / f"r{r}").mkdir()
                level = bc._level(server, root / f"r{r}", "child", concurrency, delay_s)
                raw = bc._raw_aiohttp_level(server, "child", concurrency, delay_s)
                out["cpu"].append(level["client_cpu_ms_per_request"])
                out["frac"].append(level["fraction_of_ideal"])
                out["raw_cpu"].append(raw["client_cpu_ms_per_request"])
                out["raw_frac"].append(raw["fraction_of_ideal"])
    return out


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    print(json.dumps(direct_cpu(*args)))
