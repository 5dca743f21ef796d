"""CPU per call of ``litellm.acompletion`` as the gateway makes it, with and without its LiteLLM tuning.

Why CPU time and not requests/s: on a shared 2-core machine wall-clock rates
swing by a third from one minute to the next, while the process CPU spent per
call is what decides how many requests one core can keep in flight.  The
variants run in alternating short rounds in one process against the same
zero-latency fake server (in a child process, so its CPU is not counted), and
the report gives the lower quartile of the rounds and the ratio to the
untuned call; a plain aiohttp client is the floor.

Variants:

* ``untuned``: the kwargs the gateway sent before (model unknown to LiteLLM's
  cost map, success logging on).
* ``zero_price``: the model registered at zero price (:func:`price_unknown_model_at_zero`).
* ``quiet``: success logging skipped (:func:`litellm_overhead.quiet_kwargs`).
* ``tuned``: both, i.e. what the gateway sends now.
* ``hosted_vllm`` and ``aiohttp_openai``: the same tuned call through the two lighter
  LiteLLM providers for OpenAI-compatible servers (issue 19 asked which the installed
  LiteLLM offers).  ``hosted_vllm/`` is the OpenAI-compatible path without the OpenAI
  SDK's client; ``aiohttp_openai/`` is cheaper still but, in LiteLLM 1.110.2, reports
  zero token usage (relreason stores token counts) and keeps its aiohttp session across
  event loops (a second ``asyncio.run`` fails with "Event loop is closed"), so the
  gateway cannot use it; it is measured here, in one event loop, as the floor LiteLLM
  itself reaches.

* ``direct``: the direct transport (``llm/transports/direct.py``): its encoded body, one pooled
  aiohttp session, the reply read into the stored outcome (``replies.read_body``), as the
  gateway calls it for an OpenAI-compatible ``api_base``.

``run_model_ab`` does the same end to end: ``run_model`` (hashing, storage,
concurrency 8) with the LiteLLM tuning switched off and on, and on the direct transport,
alternating in one process.  ``kor_paper_cpu`` is issue 46's measure: the gateway's whole
per-prompt CPU (request keys, plan, rate limiter, transport, rows, lake writes and the final
merge) for the KOR paper profile's prompts, none of them stored, on each transport.

Run: ``.venv/bin/python -m tests.perf.bench_gateway_cpu [calls_per_round] [rounds]``.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import subprocess
import sys
import time
from typing import Any

from tests.perf._common import REPO_ROOT

_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from tests.fakes.openai_server import FakeOpenAIServer, _Handler
_Handler.disable_nagle_algorithm = True
server = FakeOpenAIServer(delay_s=0.0).start()
print(server.port, flush=True)
sys.stdin.read()
server.stop()
"""


def _kwargs(api_base: str, model: str, i: int, extra: dict[str, Any]) -> dict[str, Any]:
    """What ``_Runner._call_kwargs`` builds for an ``openai/`` spec with a key and an api_base."""
    kwargs: dict[str, Any] = dict(extra)
    kwargs.update(
        temperature=0,
        max_tokens=16,
        model=model,
        messages=[{"role": "user", "content": f"question {i}: what is {i} + 1?"}],
        timeout=30.0,
        num_retries=0,
        max_retries=0,
        api_base=api_base,
        api_key="sk-bench",
    )
    return kwargs


async def _litellm_calls(api_base: str, model: str, extra: dict[str, Any], n: int) -> None:
    import litellm

    for i in range(n):
        response = await litellm.acompletion(**_kwargs(api_base, model, i, extra))
        if not isinstance(response.choices[0].message.content, str):
            raise RuntimeError(f"unexpected answer: {response}")


async def _direct_calls(api_base: str, n: int) -> None:
    from relreason_dagster.llm.draw_plan import Work
    from relreason_dagster.llm.registry import ModelEntry
    from relreason_dagster.llm.transports.direct import DirectTransport

    spec = ModelEntry(
        name="bench-direct", litellm_model="openai/bench-zero-priced", api_base=api_base, timeout_s=30.0
    )
    client = DirectTransport(spec, "sk-bench")
    try:
        for i in range(n):
            body = _kwargs(api_base, "fake", i, {})
            work = Work("", body["messages"], {"temperature": 0, "max_tokens": 16}, [])
            outcome = client.read(await client.send(client.request(work, 1)), 0.0, 1, spec)
            if not outcome.content:
                raise RuntimeError(f"unexpected answer: {outcome}")
    finally:
        await client.close()


async def _aiohttp_calls(api_base: str, n: int) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        for i in range(n):
            body = _kwargs(api_base, "fake", i, {})
            payload = {k: body[k] for k in ("model", "messages", "temperature", "max_tokens")}
            headers = {"Authorization": "Bearer sk-bench"}
            async with session.post(api_base + "/chat/completions", json=payload, headers=headers) as r:
                answer = await r.json()
            if not isinstance(answer["choices"][0]["message"]["content"], str):
                raise RuntimeError(f"unexpected answer: {answer}")


def run_model_ab(api_base: str, prompts: int = 200, rounds: int = 6, concurrency: int = 8) -> dict[str, Any]:
    """CPU ms per request of ``run_model`` with the LiteLLM tuning off ("untuned") and on ("tuned"),
    and on the direct transport ("direct").

    "Off" swaps the two tuning hooks for no-ops and uses a model name that stays
    unpriced; each round gets fresh prompts and a fresh DuckDB, so every prompt is a call.
    """
    import os

    from relreason_dagster.llm import gateway, litellm_overhead
    from relreason_dagster.llm.registry import ModelEntry
    from tests.perf._common import fresh_duckdb, isolated_env

    os.environ.setdefault("RELREASON_BENCH_KEY", "sk-bench")
    hooks = (litellm_overhead.quiet_kwargs, litellm_overhead.price_unknown_model_at_zero)
    off = (lambda: {}, lambda model: False)
    cpu: dict[str, list[float]] = {"untuned": [], "tuned": [], "direct": []}
    rng = random.Random(1)
    with isolated_env("gateway-cpu") as root:
        try:
            for r in range(rounds + 1):  # round 0 warms up both variants
                order = list(cpu)
                rng.shuffle(order)
                for name in order:
                    litellm_overhead.quiet_kwargs, litellm_overhead.price_unknown_model_at_zero = (
                        off if name == "untuned" else hooks
                    )
                    spec = ModelEntry(
                        name=name,
                        litellm_model=f"openai/bench-{name}",
                        params={"temperature": 0},
                        concurrency=concurrency,
                        api_base=api_base,
                        api_key_env="RELREASON_BENCH_KEY",
                        timeout_s=30.0,
                        transport="direct" if name == "direct" else "litellm",
                    )
                    batch = [
                        {
                            "prompt_id": f"{r}-{i}",
                            "messages": [{"role": "user", "content": f"{name} round {r} question {i}"}],
                            "max_tokens": 16,
                        }
                        for i in range(prompts)
                    ]
                    con, store = fresh_duckdb(root / f"{name}-{r}.duckdb")
                    try:
                        start = time.process_time()
                        stats = gateway.run_model(store, spec, batch)
                        spent = time.process_time() - start
                    finally:
                        con.close()
                    if stats.errors or stats.called != prompts:
                        raise RuntimeError(stats.summary())
                    if r:
                        cpu[name].append(1000 * spent / prompts)
        finally:
            litellm_overhead.quiet_kwargs, litellm_overhead.price_unknown_model_at_zero = hooks
    med = {name: statistics.median(v) for name, v in cpu.items()}
    return {
        "prompts_per_round": prompts,
        "rounds": rounds,
        "concurrency": concurrency,
        "cpu_ms_per_request_median": {name: round(v, 2) for name, v in med.items()},
        "ratio_tuned_to_untuned_median": round(med["tuned"] / med["untuned"], 2),
        "ratio_direct_to_tuned_median": round(med["direct"] / med["tuned"], 2),
    }


def kor_paper_cpu(api_base: str, concurrency: int = 64, limit: int | None = None) -> dict[str, Any]:
    """CPU ms per prompt of ``run_model`` on the KOR paper profile's prompts, every prompt a call.

    One run per transport against the same zero-latency server (in a child process), each into a
    fresh lake: the gateway's whole per-prompt path, from the request keys to the merged files.
    ``limit`` takes the first prompts only (a quick check of the bench).  Skipped without the
    KOR-Bench reference data.
    """
    import os

    from relreason_dagster import profiles
    from relreason_dagster.benchmarks.kor.family import KorFamily, data_dir
    from relreason_dagster.llm import gateway
    from relreason_dagster.llm.registry import ModelEntry
    from tests.perf._common import fresh_duckdb, isolated_env

    paper = profiles.get_profile("paper", "kor")
    if not data_dir(paper).is_dir():
        return {"skipped": f"no KOR-Bench data at {data_dir(paper)} (RELREASON_REFERENCE_DIR)"}
    family = KorFamily()
    built = family.build_prompts(family.generate(paper, profiles.DEFAULT_SEED), paper)[:limit]
    os.environ.setdefault("RELREASON_BENCH_KEY", "sk-bench")
    out: dict[str, Any] = {"prompts": len(built), "concurrency": concurrency}
    with isolated_env("kor-paper-cpu") as root:
        for transport in ("direct", "litellm"):
            spec = ModelEntry(
                name=f"kor-{transport}",
                litellm_model="openai/bench-kor",
                params={"temperature": 0},
                concurrency=concurrency,
                api_base=api_base,
                api_key_env="RELREASON_BENCH_KEY",
                timeout_s=60.0,
                transport=transport,
            )
            rows = [
                {
                    "prompt_id": f"{transport}-{p.prompt_id}",  # fresh per transport: every prompt a call
                    "messages": [{**m, "content": f"{transport}: {m['content']}"} for m in p.messages],
                    "max_tokens": p.max_tokens,
                    "benchmark": "kor",
                }
                for p in built
            ]
            con, store = fresh_duckdb(root / f"kor-{transport}.duckdb")
            try:
                start, wall = time.process_time(), time.perf_counter()
                stats = gateway.run_model(store, spec, rows)
                spent, wall = time.process_time() - start, time.perf_counter() - wall
            finally:
                con.close()
            if stats.errors or stats.called + stats.shared != len(rows):
                raise RuntimeError(stats.summary())
            out["calls"] = stats.called  # identical prompts share one call
            out[transport] = {
                "cpu_ms_per_prompt": round(1000 * spent / len(rows), 3),
                "wall_s": round(wall, 2),
            }
    return out


def bench_gateway_cpu(calls: int = 60, rounds: int = 12, kor_limit: int | None = None) -> dict[str, Any]:
    """Lower-quartile CPU ms per call of each variant over ``rounds`` shuffled rounds of ``calls`` calls;
    ``kor_limit`` (a quick check of the bench) asks only that many KOR prompts."""
    from relreason_dagster.llm import litellm_overhead

    quiet = {"fallbacks": []}
    if litellm_overhead.quiet_kwargs() != quiet:
        raise RuntimeError("a LiteLLM success callback is registered: the quiet variant would not be quiet")
    # Distinct model names so that pricing one at zero leaves the other unknown to LiteLLM.
    untuned_model, tuned_model = "openai/bench-unpriced", "openai/bench-zero-priced"
    vllm_model, aiohttp_model = "hosted_vllm/bench-zero-priced", "aiohttp_openai/bench-zero-priced"
    for model in (tuned_model, vllm_model, aiohttp_model):
        litellm_overhead.price_unknown_model_at_zero(model)
    proc = subprocess.Popen(
        [sys.executable, "-c", _CHILD, str(REPO_ROOT)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        api_base = f"http://127.0.0.1:{int(proc.stdout.readline())}/v1"
        variants = {
            "untuned": lambda n: _litellm_calls(api_base, untuned_model, {}, n),
            "zero_price": lambda n: _litellm_calls(api_base, tuned_model, {}, n),
            "quiet": lambda n: _litellm_calls(api_base, untuned_model, quiet, n),
            "tuned": lambda n: _litellm_calls(api_base, tuned_model, quiet, n),
            "hosted_vllm": lambda n: _litellm_calls(api_base, vllm_model, quiet, n),
            "aiohttp_openai": lambda n: _litellm_calls(api_base, aiohttp_model, quiet, n),
            "direct": lambda n: _direct_calls(api_base, n),
            "plain_aiohttp": lambda n: _aiohttp_calls(api_base, n),
        }
        cpu: dict[str, list[float]] = {name: [] for name in variants}
        # One event loop for every round: aiohttp_openai's session outlives a loop (see above).
        loop = asyncio.new_event_loop()
        try:
            for run in variants.values():  # warm-up: imports, clients, first-call caches
                loop.run_until_complete(run(5))
            rng = random.Random(0)
            for _ in range(rounds):
                order = list(variants)
                rng.shuffle(order)
                for name in order:
                    start = time.process_time()
                    loop.run_until_complete(variants[name](calls))
                    cpu[name].append(1000 * (time.process_time() - start) / calls)
        finally:
            leftover = asyncio.all_tasks(loop)  # LiteLLM's logging worker, as asyncio.run would cancel it
            for task in leftover:
                task.cancel()
            loop.run_until_complete(asyncio.gather(*leftover, return_exceptions=True))
            loop.close()
        end_to_end = run_model_ab(api_base)
        kor = kor_paper_cpu(api_base, limit=kor_limit)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=10)

    def p25(values: list[float]) -> float:
        return sorted(values)[len(values) // 4]

    base = p25(cpu["untuned"])
    return {
        "calls_per_round": calls,
        "rounds": rounds,
        "cpu_ms_per_call_p25": {name: round(p25(v), 2) for name, v in cpu.items()},
        "cpu_ms_per_call_median": {name: round(statistics.median(v), 2) for name, v in cpu.items()},
        "ratio_to_untuned_p25": {name: round(p25(v) / base, 2) for name, v in cpu.items()},
        "run_model": end_to_end,
        "kor_paper": kor,
    }


def render(result: dict[str, Any]) -> str:
    p25 = result["cpu_ms_per_call_p25"]
    ratio = result["ratio_to_untuned_p25"]
    lines = [
        "## Gateway CPU per call",
        "",
        f"CPU ms per `litellm.acompletion` call against a zero-latency server in a child process, lower "
        f"quartile of {result['rounds']} shuffled rounds of {result['calls_per_round']} calls; untuned is "
        "the call before the LiteLLM tuning, tuned is what the gateway sends now; hosted_vllm and "
        "aiohttp_openai are the tuned call through LiteLLM's lighter providers for OpenAI-compatible servers "
        "(aiohttp_openai reports no token usage and cannot outlive an event loop, so the gateway cannot use "
        "it: it shows LiteLLM's own floor); direct is the direct transport's call (its encoded body, the "
        "pooled session, the reply read into the stored outcome); plain_aiohttp is a bare HTTP client.",
        "",
        "| variant | CPU ms / call (p25) | median | ÷ untuned |",
        "|---|---|---|---|",
    ]
    for name, value in p25.items():
        lines.append(f"| {name} | {value} | {result['cpu_ms_per_call_median'][name]} | {ratio[name]} |")
    e2e = result["run_model"]
    med = e2e["cpu_ms_per_request_median"]
    lines += [
        "",
        f"`run_model` end to end ({e2e['prompts_per_round']} prompts, concurrency {e2e['concurrency']}, "
        f"median of {e2e['rounds']} rounds): untuned {med['untuned']} ms CPU per request, tuned "
        f"{med['tuned']} ms ({e2e['ratio_tuned_to_untuned_median']}×), direct transport {med['direct']} ms "
        f"({e2e['ratio_direct_to_tuned_median']}× tuned LiteLLM). One core at this CPU cost serves at most "
        f"~{1000 / med['tuned']:.0f} requests/s through LiteLLM, ~{1000 / med['direct']:.0f} directly.",
    ]
    kor = result.get("kor_paper", {})
    if "skipped" in kor:
        lines += ["", f"KOR paper profile: not measured ({kor['skipped']})."]
    elif kor:
        direct, via = kor["direct"], kor["litellm"]
        lines += [
            "",
            f"KOR paper profile, {kor['prompts']} prompts, {kor['calls']} calls, none stored (concurrency "
            f"{kor['concurrency']}, zero-latency server in a child process): the gateway's CPU per prompt "
            "(request keys, plan, transport, rows, lake writes, final merge) "
            f"**{direct['cpu_ms_per_prompt']} ms** on the direct transport ({direct['wall_s']} s), "
            f"{via['cpu_ms_per_prompt']} ms through LiteLLM ({via['wall_s']} s).",
        ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    print(json.dumps(bench_gateway_cpu(*args), indent=1))
