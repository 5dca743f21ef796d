"""The local model: throughput through the pipeline's path vs llama-cpp-python called directly.

Why: the default model runs in-process, so any cost the gateway adds
(LiteLLM, the worker thread, tokenizing the prompt for the context check,
DuckDB writes) is paid per call on the same two cores the model computes
on.  Both paths use the same loaded ``Llama`` object, the same prompts in
the same order, greedy decoding and the same ``max_tokens``; the ratio of
their rates is the pipeline's overhead on real work.  Each round alternates
the two paths so drifting machine load hits both alike, and the pipeline
path gets a fresh DuckDB each round so no answer comes from the cache.

How the ratio is estimated, and why: on two shared cores one round of either
path varied by +-20 % with other work on the machine (4.4-7.1 s for the same
eight prompts), so two rounds could show 0.89x or 1.55x for the same code.
Hence more rounds (8), the order inside a round alternates (direct first in
even rounds, pipeline first in odd ones) so neither path always runs right
after the other, and the headline ratio is the median of the per-round ratios
(each round pairs the two paths in time, the median ignores the rounds a load
burst hit); the ratio of the summed rates is reported beside it.  Every prompt
of every round stays in both numbers.

What the pipeline adds is also measured directly, where load noise cannot
hide it: both paths call the same ``Llama.create_chat_completion``, which is
wrapped with a timer for the benchmark (both paths pay the wrapper), so a
path's seconds split into llama.cpp time and everything else (for the
pipeline: LiteLLM, thread hand-offs, lake writes, the run's fixed costs).

Both paths load llama.cpp through ``tokenizer.import_llama_cpp`` (OpenMP
threads sleep between tokens).  Before that, GNU OpenMP's spinning made the
direct path, which calls from the main thread, 3-12x slower than the
pipeline's worker thread whenever the machine was busy, so the ratio below
measured the machine's load, not the pipeline.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from tests.perf._common import Timer, fresh_duckdb, isolated_env

MODEL = "smollm2-135m"
MAX_TOKENS = 48
ROUNDS = 8
SYSTEM = "You are a helpful assistant. Answer briefly."
QUESTIONS = sorted(
    [
        "Alice is Bob's mother. Who is Bob's parent?",
        "Carol is the sister of Dan. Is Dan Carol's brother?",
        "Name three colours of the rainbow.",
        "What is 12 plus 30?",
        "Eve is Frank's grandmother. How many generations separate them?",
        "Write one sentence about rivers.",
        "Is a whale a fish or a mammal?",
        "Gina is older than Hal, and Hal is older than Ian. Who is the youngest?",
    ]
)  # sorted: the gateway sends prompts in content order, the direct path must match it


def _messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]


class _LlamaClock:
    """Seconds spent inside ``llama.create_chat_completion`` (the same object on both paths)."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.seconds = 0.0
        self._inner = llama.create_chat_completion

    def __enter__(self) -> _LlamaClock:
        inner = self._inner

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        self.llama.create_chat_completion = timed  # instance attribute: shadows the method
        return self

    def __exit__(self, *exc: object) -> None:
        del self.llama.create_chat_completion  # the class's method again


def _direct(llama: Any, lock: Any) -> tuple[float, int, list[str]]:
    """Seconds, completion tokens and answers for the questions called straight into llama.cpp."""
    tokens = 0
    answers: list[str] = []
    with Timer() as t:
        for q in QUESTIONS:
            with lock:
                result = llama.create_chat_completion(
                    messages=_messages(q), temperature=0, seed=0, max_tokens=MAX_TOKENS
                )
            tokens += int(result["usage"]["completion_tokens"])
            answers.append(result["choices"][0]["message"]["content"] or "")
    return t.seconds, tokens, answers


def _pipeline(spec: Any, path: Any, tag: str) -> tuple[float, int, list[str], int]:
    """Seconds, completion tokens, answers and model calls for the questions through ``run_model``."""
    from relreason_dagster.llm.gateway import run_model

    prompts = [
        {"prompt_id": f"{tag}-{i}", "messages": _messages(q), "max_tokens": MAX_TOKENS}
        for i, q in enumerate(QUESTIONS)
    ]
    con, store = fresh_duckdb(path)
    try:
        with Timer() as t:
            stats = run_model(store, spec, prompts)
        rows = con.execute(
            "SELECT prompt_id, content, completion_tokens, error FROM raw.responses ORDER BY prompt_id"
        ).fetchall()
    finally:
        con.close()
    errors = [r[3] for r in rows if r[3]]
    if errors:
        raise RuntimeError(f"local model errors: {errors[:3]}")
    by_id = {r[0]: r for r in rows}
    answers = [by_id[p["prompt_id"]][1] or "" for p in prompts]
    return t.seconds, sum(int(r[2] or 0) for r in rows), answers, stats.called


def bench_local_model(rounds: int = ROUNDS) -> dict[str, Any]:
    """Responses/s and tokens/s of both paths over ``rounds`` alternating rounds."""
    from relreason_dagster import paths
    from relreason_dagster.llm.gateway import run_model
    from relreason_dagster.llm.local_provider import get_llama, register_local_provider, warm_up
    from relreason_dagster.llm.registry import get_model
    from relreason_dagster.llm.request_key import effective_params

    spec = get_model(paths.REPO_ROOT / "models.yaml", MODEL)
    params = effective_params(spec, MAX_TOKENS)
    register_local_provider()
    with Timer() as load:
        warm_up(MODEL, params.get("n_ctx"))
        llama, lock, n_ctx = get_llama(MODEL, params.get("n_ctx"))
    out: dict[str, Any] = {
        "model": MODEL,
        "max_tokens": MAX_TOKENS,
        "prompts": len(QUESTIONS),
        "rounds": rounds,
        "n_ctx": n_ctx,
        "n_threads": llama.n_threads,
        "load_s": round(load.seconds, 2),
        "pipeline_params": params,
    }
    direct: list[tuple[float, int, float]] = []  # (seconds, completion tokens, seconds inside llama.cpp)
    piped: list[tuple[float, int, float]] = []
    same_answers = True
    with isolated_env("local"):
        from pathlib import Path

        root = Path(paths.relreason_home())
        warm = [{"prompt_id": "warm", "messages": _messages("Say hello."), "max_tokens": 8}]
        con, store = fresh_duckdb(root / "warm.duckdb")
        run_model(store, spec, warm)  # LiteLLM's provider path and the tokenizer, loaded once
        con.close()
        with lock:
            llama.create_chat_completion(
                messages=_messages("Say hello."), temperature=0, seed=0, max_tokens=8
            )
        clock = _LlamaClock(llama)
        with clock:
            for r in range(rounds):
                # Alternate which path goes first, so neither always follows the other.
                for path in ("direct", "pipeline") if r % 2 == 0 else ("pipeline", "direct"):
                    before = clock.seconds
                    if path == "direct":
                        d_s, d_tok, d_ans = _direct(llama, lock)
                        direct.append((d_s, d_tok, clock.seconds - before))
                        continue
                    p_s, p_tok, p_ans, calls = _pipeline(spec, root / f"round{r}.duckdb", f"r{r}")
                    if calls != len(QUESTIONS):
                        raise RuntimeError(
                            f"pipeline path made {calls} calls, expected {len(QUESTIONS)} (cache hit?)"
                        )
                    piped.append((p_s, p_tok, clock.seconds - before))
                same_answers = same_answers and d_ans == p_ans
    n = len(QUESTIONS) * rounds

    def agg(runs: list[tuple[float, int, float]]) -> dict[str, Any]:
        secs = sum(s for s, _, _ in runs)
        toks = sum(k for _, k, _ in runs)
        in_llama = sum(x for _, _, x in runs)
        return {
            "seconds": round(secs, 2),
            "completion_tokens": toks,
            "responses_per_s": round(n / secs, 3),
            "tokens_per_s": round(toks / secs, 1),
            "per_round_s": [round(s, 2) for s, _, _ in runs],
            "llama_s": round(in_llama, 2),
            "outside_llama_ms_per_call": round(1000 * (secs - in_llama) / n, 1),
        }

    out["direct"] = agg(direct)
    out["pipeline"] = agg(piped)
    out["same_answers"] = same_answers
    # Per round: pipeline tokens/s over direct tokens/s of the same round.
    round_ratios = [(pk / ps) / (dk / ds) for (ds, dk, _), (ps, pk, _) in zip(direct, piped, strict=True)]
    out["round_ratios"] = [round(x, 3) for x in round_ratios]
    out["pipeline_vs_direct_tokens_per_s"] = round(statistics.median(round_ratios), 3)
    out["pipeline_vs_direct_tokens_per_s_summed"] = round(
        out["pipeline"]["tokens_per_s"] / out["direct"]["tokens_per_s"], 3
    )
    out["pipeline_vs_direct_responses_per_s"] = round(
        out["pipeline"]["responses_per_s"] / out["direct"]["responses_per_s"], 3
    )
    out["overhead_ms_per_call"] = round(1000 * (out["pipeline"]["seconds"] - out["direct"]["seconds"]) / n, 1)
    # The pipeline's own cost, measured without the load noise: its time outside llama.cpp.
    pipeline_s = out["pipeline"]["seconds"]
    out["pipeline_outside_llama_share"] = round((pipeline_s - out["pipeline"]["llama_s"]) / pipeline_s, 4)
    return out


def render(result: dict[str, Any]) -> str:
    """Markdown section for the report."""
    d, p = result["direct"], result["pipeline"]
    lines = [
        "## 3. Local model (SmolLM2-135M, llama.cpp in-process)",
        "",
        f"{result['prompts']} short chat prompts x {result['rounds']} rounds, "
        f"max_tokens {result['max_tokens']}, temperature 0, seed 0; n_ctx {result['n_ctx']}, "
        f"{result['n_threads']} threads; model load {result['load_s']} s (excluded, as is one warm-up call "
        f"per path); the paths' order alternates between rounds.  "
        f"Pipeline path = `run_model` with the `{result['model']}` entry of models.yaml on a "
        "fresh DuckDB per round (every prompt a model call).",
        "",
        "| path | s | completion tokens | responses/s | tokens/s | in llama.cpp s "
        "| outside llama.cpp ms/call | per round s |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
        f"| llama-cpp-python `create_chat_completion` | {d['seconds']} | {d['completion_tokens']} "
        f"| {d['responses_per_s']} | {d['tokens_per_s']} | {d['llama_s']} | {d['outside_llama_ms_per_call']} "
        f"| {d['per_round_s']} |",
        f"| pipeline (`run_model` -> LiteLLM -> local provider) | {p['seconds']} | {p['completion_tokens']} "
        f"| {p['responses_per_s']} | {p['tokens_per_s']} | {p['llama_s']} | {p['outside_llama_ms_per_call']} "
        f"| {p['per_round_s']} |",
        "",
        f"Pipeline / direct tokens/s: {result['pipeline_vs_direct_tokens_per_s']:.2f}x (median of the "
        f"per-round ratios {result['round_ratios']}; summed over all rounds "
        f"{result['pipeline_vs_direct_tokens_per_s_summed']:.2f}x, responses/s "
        f"{result['pipeline_vs_direct_responses_per_s']:.2f}x).  The pipeline's own cost, its time outside "
        f"llama.cpp: {p['outside_llama_ms_per_call']} ms per call, "
        f"{100 * result['pipeline_outside_llama_share']:.1f} % of its time.  "
        f"Identical answers on both paths: {'yes' if result['same_answers'] else 'NO'}.",
    ]
    return "\n".join(lines) + "\n"
