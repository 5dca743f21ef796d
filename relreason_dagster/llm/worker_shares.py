"""How a run is shared out among its ``workers:`` processes: requests, concurrency, rate limits, budget.

Why a module of its own: the shares must add up to the model's own limits (at most ``concurrency``
requests in flight, ``rpm``/``tpm`` and what is left of ``max_cost`` in all), whatever the number of
processes; that is arithmetic on a spec, apart from the processes (``llm/workers.py``) and the runner
that drives them (``llm/gateway.py``).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from relreason_dagster.llm.draw_plan import Work
from relreason_dagster.llm.rate_limits import share
from relreason_dagster.llm.registry import ModelEntry


def worker_spec(spec: ModelEntry, n: int, k: int, spent: float) -> ModelEntry:
    """Worker ``k`` of ``n``'s spec: its share of the concurrency, the rate limits and the budget left."""
    total = spec.concurrency
    return spec.model_copy(
        update={
            "concurrency": total // n + (1 if k < total % n else 0),
            "workers": 1,
            "rpm": share(spec.rpm, n, k),
            "tpm": share(spec.tpm, n, k),
            # Each process gets an equal share of what is left of the budget.
            "max_cost": None if spec.max_cost is None else max(spec.max_cost - spent, 0.0) / n,
        }
    )


def slice_payloads(
    to_call: Sequence[list[Work]],
    n: int,
    *,
    spec: ModelEntry,
    spent: float,
    common: Mapping[str, Any],
    benchmarks: Mapping[str, str],
    unknown_benchmark: str,
    rng: random.Random,
) -> list[dict[str, Any]]:
    """One payload per worker (``gateway.run_slice`` lists its keys): every n-th request, its spec share.

    A request is the draws it answers (one, or several asked with ``n``: ``draw_plan.bundle``).

    ``common`` is what every worker gets alike; each gets its own jitter seed, drawn from ``rng``
    in worker order.
    """
    payloads = []
    for k in range(n):
        works = to_call[k::n]
        payloads.append(
            {
                **common,
                "spec": worker_spec(spec, n, k, spent),
                "works": works,
                "benchmarks": {
                    pid: benchmarks.get(pid, unknown_benchmark)
                    for request in works
                    for work in request
                    for pid in work.prompt_ids
                },
                "seed": rng.randrange(2**32),
            }
        )
    return payloads
