"""Gateway cache semantics with the scripted provider: skip, reuse across names, re-ask on change."""

from __future__ import annotations

import json

import litellm
import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.request_key import effective_params, request_hash
from relreason_dagster.llm.run_stats import ProgressPrinter, RunStats
from tests.fakes.scripted_provider import (
    call_count,
    register_scripted_provider,
    reset_calls,
    set_responder,
)

N = 40


@pytest.fixture(autouse=True)
def scripted():
    register_scripted_provider()
    reset_calls()
    yield
    reset_calls()


def make_prompts(n: int = N, max_tokens: int = 64) -> list[dict]:
    return [
        {
            "prompt_id": f"p{i:03d}",
            "messages": json.dumps([{"role": "user", "content": f"question {i}?"}]),
            "max_tokens": max_tokens,
        }
        for i in range(n)
    ]


def spec_for(name: str, script: str, **params) -> ModelEntry:
    return ModelEntry(
        name=name,
        litellm_model=f"scripted/{script}",
        params={"temperature": 0, "seed": 0, **params},
        concurrency=8,
    )


def rows(con, model: str) -> list[tuple]:
    return con.execute(
        "SELECT prompt_id, content, error, from_cache, attempts, request_hash FROM raw.responses "
        "WHERE model = ? ORDER BY prompt_id",
        [model],
    ).fetchall()


def test_first_run_calls_second_run_skips(duck, store):
    set_responder("echo", lambda messages, params: "A: " + messages[-1]["content"])
    spec = spec_for("m1", "echo")
    prompts = make_prompts()
    seen: list[tuple[int, int]] = []
    stats = run_model(store, spec, prompts, progress=lambda done, total, s: seen.append((done, total)))
    assert isinstance(stats, RunStats)
    assert (stats.called, stats.cached, stats.skipped, stats.errors) == (N, 0, 0, 0)
    assert call_count("echo") == N
    stored = rows(duck, "m1")
    assert len(stored) == N
    assert stored[0][1] == "A: question 0?" and stored[0][2] is None and stored[0][3] is False
    assert stored[0][4] == 1  # attempts
    assert seen[-1] == (N, N)
    full = duck.execute(
        "SELECT litellm_model, finish_reason, prompt_tokens, completion_tokens, latency_s, created_at "
        "FROM raw.responses LIMIT 1"
    ).fetchone()
    assert full[0] == "scripted/echo" and full[1] == "stop" and full[2] == 2 and full[3] >= 2
    assert full[4] >= 0 and full[5] is not None

    again = run_model(store, spec, prompts)
    assert (again.called, again.cached, again.skipped) == (0, 0, N)
    assert call_count("echo") == N
    assert "m1: 40 prompts — 0 model calls, 40 from cache/already stored, 0 errors" in again.summary()


def test_other_name_same_model_is_served_from_cache(duck, store):
    prompts = make_prompts()
    run_model(store, spec_for("first", "shared"), prompts)
    assert call_count("shared") == N
    stats = run_model(store, spec_for("alias", "shared"), prompts)
    assert (stats.called, stats.cached, stats.skipped) == (0, N, 0)
    assert call_count("shared") == N
    alias_rows = rows(duck, "alias")
    assert len(alias_rows) == N and all(r[3] is True and r[2] is None for r in alias_rows)
    assert [r[1] for r in alias_rows] == [r[1] for r in rows(duck, "first")]
    # and the alias's own rerun is a skip
    assert run_model(store, spec_for("alias", "shared"), prompts).skipped == N


def test_changed_params_or_messages_are_new_calls(duck, store):
    prompts = make_prompts()
    run_model(store, spec_for("m", "p"), prompts)
    changed = make_prompts()
    changed[0]["messages"] = json.dumps([{"role": "user", "content": "a new question"}])
    stats = run_model(store, spec_for("m", "p"), changed)
    assert (stats.called, stats.skipped) == (1, N - 1)
    assert len(rows(duck, "m")) == N  # still one row per prompt
    call_total = call_count("p")
    stats = run_model(store, spec_for("m", "p", temperature=0.7), prompts)
    assert stats.called == N and call_count("p") == call_total + N
    # a different prompt budget changes the effective max_tokens → new requests
    stats = run_model(store, spec_for("m", "p", temperature=0.7), make_prompts(max_tokens=32))
    assert stats.called == N
    # a cap above the prompt budget changes nothing: min(32, 100) == 32
    capped = spec_for("m", "p", temperature=0.7, max_tokens=100)
    assert run_model(store, capped, make_prompts(max_tokens=32)).skipped == N


def test_request_hash_is_canonical():
    spec = spec_for("a", "x", max_tokens=128)
    messages = [{"role": "user", "content": "hi"}]
    base = request_hash(spec, messages, 256)
    assert base == request_hash(spec, json.dumps(messages), 256)  # JSON string or list
    assert base == request_hash(spec_for("other-name", "x", max_tokens=128), messages, 256)
    assert base == request_hash(spec, messages, 128)  # capped to 128 either way
    assert base != request_hash(spec, messages, 64)
    assert base != request_hash(spec, [{"role": "user", "content": "hi "}], 256)
    reordered = ModelEntry(
        name="a", litellm_model="scripted/x", params={"max_tokens": 128, "seed": 0, "temperature": 0}
    )
    assert base == request_hash(reordered, messages, 256)
    assert effective_params(spec, 256)["max_tokens"] == 128
    with_base = ModelEntry(name="a", litellm_model="scripted/x", params=spec.params, api_base="http://h:1/v1")
    assert base != request_hash(with_base, messages, 256)


def test_identical_prompts_share_one_call(duck, store):
    prompts = make_prompts(4)
    prompts.append({**prompts[0], "prompt_id": "dup-of-p000"})
    stats = run_model(store, spec_for("m", "dups"), prompts)
    assert call_count("dups") == 4
    # Calls are requests sent (issue 37): the duplicate is counted apart, as a shared prompt.
    assert (stats.called, stats.shared, stats.total) == (4, 1, 5)
    assert len(rows(duck, "m")) == 5


def test_context_window_exceeded_is_stored_not_raised(duck, store):
    def too_long(messages, params):
        if "long" in messages[-1]["content"]:
            raise litellm.ContextWindowExceededError(
                message="prompt has 9000 tokens, context window is 8192",
                model="scripted/ctx",
                llm_provider="scripted",
            )
        return "fine"

    set_responder("ctx", too_long)
    prompts = make_prompts(3)
    prompts[1]["messages"] = json.dumps([{"role": "user", "content": "a long one"}])
    spec = spec_for("ctx-model", "ctx")
    stats = run_model(store, spec, prompts)
    assert stats.errors == 1 and stats.error_kinds == {"context_length_exceeded": 1}
    assert call_count("ctx") == 3  # not retried
    stored = {r[0]: r for r in rows(duck, "ctx-model")}
    assert stored["p001"][1] is None
    assert stored["p001"][2].startswith("context_length_exceeded: ")
    assert "9000 tokens" in stored["p001"][2]
    assert stored["p001"][4] == 1
    assert stored["p000"][1] == "fine"
    # the error row is retried on the next run, the answers are skipped
    again = run_model(store, spec, prompts)
    assert (again.called, again.skipped, again.errors) == (1, 2, 1)


def test_bad_request_not_retried_and_error_not_cached(duck, store):
    def bad(messages, params):
        raise litellm.BadRequestError(message="nope", model="scripted/bad", llm_provider="scripted")

    set_responder("bad", bad)
    spec = ModelEntry(name="b", litellm_model="scripted/bad", max_attempts=5)
    stats = run_model(store, spec, make_prompts(2))
    assert stats.errors == 2 and call_count("bad") == 2
    assert all(r[2].startswith("bad_request: ") for r in rows(duck, "b"))
    # an error row is never a cache source for another name
    set_responder("bad", None)
    assert run_model(store, ModelEntry(name="c", litellm_model="scripted/bad"), make_prompts(2)).called == 2


def test_transient_errors_are_retried(duck, store):
    attempts: dict[str, int] = {}

    def flaky(messages, params):
        key = messages[-1]["content"]
        attempts[key] = attempts.get(key, 0) + 1
        if attempts[key] < 3:
            raise litellm.InternalServerError(message="boom", model="scripted/flaky", llm_provider="scripted")
        return "ok"

    set_responder("flaky", flaky)
    spec = ModelEntry(name="f", litellm_model="scripted/flaky", max_attempts=3)
    stats = run_model(store, spec, make_prompts(5), backoff_base_s=0.001, backoff_cap_s=0.01, seed=1)
    assert stats.errors == 0 and stats.attempts == 15
    assert all(r[1] == "ok" and r[4] == 3 for r in rows(duck, "f"))
    spec2 = ModelEntry(name="g", litellm_model="scripted/flaky", max_attempts=2)
    stats = run_model(store, spec2, make_prompts(7)[5:], backoff_base_s=0.001, backoff_cap_s=0.01)
    assert stats.errors == 2
    assert all(r[2].startswith("server_error: ") and r[4] == 2 for r in rows(duck, "g"))


def test_litellm_mock_response(duck, store):
    spec = ModelEntry(name="mock", litellm_model="openai/gpt-4o-mini", params={"temperature": 0})
    stats = run_model(store, spec, make_prompts(3), extra_kwargs={"mock_response": "mocked!"})
    assert stats.called == 3 and stats.errors == 0
    assert {r[1] for r in rows(duck, "mock")} == {"mocked!"}


def test_missing_api_key_is_config_error_before_calls(duck, store, monkeypatch):
    from relreason_dagster.errors import ConfigError

    monkeypatch.delenv("RELREASON_TEST_KEY", raising=False)
    spec = ModelEntry(name="k", litellm_model="scripted/k", api_key_env="RELREASON_TEST_KEY")
    with pytest.raises(ConfigError, match="RELREASON_TEST_KEY"):
        run_model(store, spec, make_prompts(2))
    assert call_count("k") == 0


def test_run_model_inside_running_event_loop(duck, store):
    import asyncio

    async def main():
        return run_model(store, spec_for("loop", "loop"), make_prompts(3))

    assert asyncio.run(main()).called == 3


def test_progress_printer_lines(duck, store):
    lines: list[str] = []
    printer = ProgressPrinter(log=lines.append, every_fraction=0.25, every_s=3600)
    run_model(store, spec_for("prog", "prog"), make_prompts(), progress=printer)
    assert 4 <= len(lines) <= 6, lines
    assert lines[-1].startswith("prog: 40/40 (100%)")
    assert "prompts/s" in lines[-1] and "ETA" in lines[-1]


def test_local_context_window_becomes_n_ctx():
    spec = ModelEntry(name="l", litellm_model="local/smollm2-135m", context_window=2048, params={"seed": 0})
    assert effective_params(spec, 64) == {"seed": 0, "n_ctx": 2048, "max_tokens": 64}
    hosted = ModelEntry(name="h", litellm_model="openai/gpt-4o", context_window=128000)
    assert "n_ctx" not in effective_params(hosted, 64)


def test_progress_eta_weights_by_prompt_size():
    """A quarter of the characters answered in 10 s leaves 30 s, however many prompts that is."""
    lines: list[str] = []
    printer = ProgressPrinter(log=lines.append, every_fraction=0.0, every_s=0)
    printer._start -= 10.0
    stats = RunStats(model="m", total=8, called=6, work_total=100, work_done=25)
    printer(6, 8, stats)
    assert lines and "ETA 30s" in lines[-1]


def test_unstorable_text_is_kept_flagged_and_copied_with_its_flag(duck, store):
    """A lone surrogate in an answer: stored as U+FFFD with ``sanitized``, and a cache copy says so too."""
    set_responder("surr", lambda messages, params: "half a pair \ud800 then text\x00")
    prompts = make_prompts(3)
    stats = run_model(store, spec_for("s1", "surr"), prompts)
    assert (stats.called, stats.errors) == (3, 0)
    copied = run_model(store, spec_for("s2", "surr"), prompts)
    assert (copied.called, copied.cached) == (0, 3)
    got = duck.execute("SELECT model, content, sanitized, from_cache FROM raw.responses").fetchall()
    assert set(got) == {
        ("s1", "half a pair \ufffd then text\x00", True, False),
        ("s2", "half a pair \ufffd then text\x00", True, True),
    }
