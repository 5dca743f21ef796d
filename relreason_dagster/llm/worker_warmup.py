"""Imported by the gateway workers' forkserver, and only there (``llm/workers.py``).

Why: LiteLLM imports ~40 modules on its first call (logging, proxy types, provider
helpers), ~0.1 s that every worker would otherwise pay again at the start of every
run.  One mocked call here (``mock_response``: nothing leaves the process) does it
once in the forkserver, and each worker forked from it starts with them loaded.
"""

from __future__ import annotations

import asyncio

import litellm

import relreason_dagster.llm.gateway  # noqa: F401 - what every worker runs


async def _mocked_call() -> None:
    await litellm.acompletion(
        model="openai/relreason-warmup",
        messages=[{"role": "user", "content": "warm-up"}],
        mock_response="ok",
        api_key="not-used",
        fallbacks=[],
    )


try:
    asyncio.run(_mocked_call())
except Exception:  # noqa: BLE001, S110 - a warm-up only: a worker still works without it, a little slower
    pass
