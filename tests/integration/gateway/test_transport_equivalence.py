"""The direct transport and LiteLLM store the same rows for the same prompts, and switching re-asks nothing.

Each transport runs the same prompts against its own fake OpenAI server (named as such: a scripted
stand-in for a provider) with the same script, into its own lake under the same model name, so the
two lakes must hold equal rows field by field, latency and write time aside.  The script covers plain
answers, thinking in ``reasoning_content`` and in a ``<think>`` block, token usage, finish reasons
(``stop``, ``length``, null, another server's ``eos``), and every error the gateway retries or
stores: 429 with ``Retry-After``, 500, a 502 HTML page, a dropped connection, a 401 echoing the key,
a refused parameter, ``choices: []``, no ``choices``, a choice without a message, ``content: null``,
a 200 whose body is not JSON, a 200 whose body is not UTF-8 (before issue 53: ``server_error`` on
LiteLLM, ``malformed_reply`` here, each sent ``max_attempts`` times), and a server that never answers.

An error row's text is the transport's own wording around the provider's message (LiteLLM prefixes
its exception names): the two rows must have the same kind, and the provider's message, where it
sent one, must be in both.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import DROP, FakeOpenAIServer, prompt_key

pytestmark = pytest.mark.integration

KEY_ENV = "RELREASON_TEST_TRANSPORT_KEY"
KEY = "sk-transport-Zq8Lm3Xv7Pw2Rt5Yb9Nc"
MAX_ATTEMPTS = 3
OK = 200
# Each prompt's script: what the server does at attempt 1, 2, 3 (a status, or a malformed shape).
SCRIPTS: dict[str, tuple[int | str, ...]] = {
    "plain": (OK,),
    "rate_limited_then_ok": (429, OK),
    "always_rate_limited": (429,) * MAX_ATTEMPTS,
    "server_error_then_ok": (500, OK),
    "always_server_error": (500,) * MAX_ATTEMPTS,
    "html_bad_gateway": (502,) * MAX_ATTEMPTS,
    "dropped_then_ok": (DROP, OK),
    "always_dropped": (DROP,) * MAX_ATTEMPTS,
    "bad_key": (401,),
    "refused_param": ("refuse",),
    "empty_choices": ("empty_choices",) * MAX_ATTEMPTS,
    "no_choices": ("no_choices",) * MAX_ATTEMPTS,
    "no_message": ("no_message",) * MAX_ATTEMPTS,
    "empty_then_ok": ("empty_choices", OK),
    "null_content": ("null_content",),
    "null_content_no_finish": ("null_content_no_finish",),
    "not_json": ("not_json",) * MAX_ATTEMPTS,
    "not_json_then_ok": ("not_json", OK),
    "invalid_utf8": ("invalid_utf8",) * MAX_ATTEMPTS,
    "invalid_utf8_then_ok": ("invalid_utf8", OK),
}
FINISH = {
    "finish_length": "length",
    "finish_null": None,
    "finish_eos": "eos",
    "finish_max_tokens": "max_tokens",
    "finish_unknown": "abort",
}
# What the provider itself said, which both stored errors must carry.
PROVIDER_TEXT = {
    "always_rate_limited": "rate limited (fake)",
    "always_server_error": "internal error (fake)",
    "bad_key": f"[redacted {KEY_ENV}]",
    "refused_param": "Unsupported parameter: 'logit_bias'",
}


def _prompts() -> list[dict]:
    names = [*SCRIPTS, *FINISH]
    return [
        {
            "prompt_id": name,
            "messages": [{"role": "user", "content": f"{name}: is the statement true?"}],
            "max_tokens": 32,
            "benchmark": "toy",
            **({"params": {"logit_bias": {"1": 5}}} if name == "refused_param" else {}),
        }
        for name in names
    ]


def _prompt(name: str) -> dict:
    return next(p for p in _prompts() if p["prompt_id"] == name)


def _server(reasoning: str | None, port: int = 0) -> FakeOpenAIServer:
    prompts = _prompts()
    script = {prompt_key(p["messages"]): SCRIPTS.get(p["prompt_id"], (OK,)) for p in prompts}
    finish = {prompt_key(p["messages"]): FINISH[p["prompt_id"]] for p in prompts if p["prompt_id"] in FINISH}

    def step(key: str, attempt: int) -> int | str:
        steps = script[key]
        return steps[min(attempt, len(steps)) - 1]

    def faults(key: str, attempt: int) -> int:
        what = step(key, attempt)
        return what if isinstance(what, int) else OK

    def malformed(key: str, attempt: int) -> str | None:
        what = step(key, attempt)
        return what if isinstance(what, str) and what != "refuse" else None

    return FakeOpenAIServer(
        faults=faults,
        malformed=malformed,
        retry_after_s=0.01,
        reject_params={"logit_bias": "parameter"},
        reasoning={"fake-thinker": reasoning} if reasoning else None,
        finish_reason=lambda key: finish.get(key, "stop"),
        port=port,
    )


def _spec(api_base: str, transport: str, served: str, provider: str = "openai", **kw) -> ModelEntry:
    return ModelEntry(
        name="same-model",
        litellm_model=f"{provider}/{served}",
        params={"temperature": 0},
        api_base=api_base,
        api_key_env=KEY_ENV,
        concurrency=4,
        max_attempts=MAX_ATTEMPTS,
        timeout_s=60,
        transport=transport,
        **kw,
    )


def _run(tmp_path, transport: str, reasoning: str | None, served: str, provider: str, port: int = 0) -> tuple:
    """One transport's run into a lake of its own: (rows by prompt id, stats, requests the server saw,
    the server's port: the other transport's server takes the same one, so the api_base and with it
    the request hash are the same)."""
    store = ResponseStore(Lake.open(tmp_path / transport / "lake"))
    with _server(reasoning, port) as server:
        spec = _spec(server.api_base, transport, served, provider)
        stats = run_model(store, spec, _prompts(), backoff_base_s=0.001)
        sent = sorted(
            (e.key, e.attempt, e.status, e.malformed, json.dumps(e.params, sort_keys=True))
            for e in server.entries()
        )
        port = server.port
    return store.latest("same-model"), dataclasses.asdict(stats), sent, port


def _kind(error: str | None) -> str | None:
    return None if error is None else error.split(":", 1)[0]


@pytest.mark.parametrize(
    "provider,reasoning",
    [("openai", None), ("openai", "field"), ("openai", "think_tags"), ("hosted_vllm", "think_tags")],
)
def test_both_transports_store_equal_rows(tmp_path, monkeypatch, provider, reasoning):
    monkeypatch.setenv(KEY_ENV, KEY)
    served = "fake-thinker" if reasoning else "fake-plain"
    rows_l, stats_l, sent_l, port = _run(tmp_path, "litellm", reasoning, served, provider)
    rows_d, stats_d, sent_d, _ = _run(tmp_path, "direct", reasoning, served, provider, port)

    assert sent_d == sent_l  # the same requests, attempts, statuses and params on the wire
    assert set(rows_d) == set(rows_l) == {p["prompt_id"] for p in _prompts()}
    ignored = {"latency_s", "created_at", "error"}
    for pid in rows_l:
        left, right = rows_l[pid], rows_d[pid]
        differ = {c for c in left if c not in ignored and left[c] != right[c]}
        assert not differ, (pid, {c: (left[c], right[c]) for c in differ})
        assert _kind(left["error"]) == _kind(right["error"]), (pid, left["error"], right["error"])
        if pid in PROVIDER_TEXT:
            assert PROVIDER_TEXT[pid] in left["error"] and PROVIDER_TEXT[pid] in right["error"], (
                left["error"],
                right["error"],
            )
        assert KEY not in str(left) + str(right)
    for counter in ("called", "errors", "attempts", "error_kinds", "skipped", "cached"):
        assert stats_d[counter] == stats_l[counter], counter
    assert (stats_l["transport"], stats_d["transport"]) == ("litellm", "direct")

    # What the script makes of each prompt, so "equal" is not "equally wrong".
    kinds = {pid: _kind(r["error"]) for pid, r in rows_d.items()}
    assert kinds["always_rate_limited"] == "rate_limit" and kinds["always_server_error"] == "server_error"
    assert kinds["html_bad_gateway"] == "server_error" and kinds["always_dropped"] == "connection_error"
    assert kinds["bad_key"] == "authentication" and kinds["refused_param"] == "rejected_param"
    malformed = ("empty_choices", "no_choices", "no_message", "not_json", "invalid_utf8")
    assert {kinds[k] for k in malformed} == {"malformed_reply"}
    # A 200 that cannot be read may have been billed: sent twice at most, though max_attempts is 3.
    for name in malformed:
        sends = [s for s in sent_d if s[0] == prompt_key(_prompt(name)["messages"])]
        assert len(sends) == 2 and rows_d[name]["attempts"] == 2, (name, sends)
    for ok in (
        "plain",
        "rate_limited_then_ok",
        "dropped_then_ok",
        "empty_then_ok",
        "not_json_then_ok",
        "invalid_utf8_then_ok",
    ):
        assert kinds[ok] is None and rows_d[ok]["content"].startswith("answer to "), rows_d[ok]
    assert rows_d["null_content"]["content"] == "" and rows_d["null_content"]["finish_reason"] == "length"
    assert rows_d["finish_length"]["finish_reason"] == "length"
    assert rows_d["plain"]["prompt_tokens"] > 0 and rows_d["plain"]["completion_tokens"] > 0
    if reasoning:
        assert "true" in rows_d["plain"]["reasoning"] and "true" not in rows_d["plain"]["content"]


def test_a_server_that_never_answers_times_out_alike(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    rows = {}
    for transport in ("litellm", "direct"):
        store = ResponseStore(Lake.open(tmp_path / transport))
        with FakeOpenAIServer(hang_fraction=1.0) as server:
            spec = _spec(server.api_base, transport, "fake-silent").model_copy(
                update={"timeout_s": 0.5, "max_attempts": 2}
            )
            prompts = _prompts()[:2]
            stats = run_model(store, spec, prompts, backoff_base_s=0.0)
            assert server.status_counts() == {None: 4}
        assert stats.error_kinds == {"timeout": 2}
        rows[transport] = store.latest("same-model")
    for pid, row in rows["direct"].items():
        other = rows["litellm"][pid]
        assert row["attempts"] == other["attempts"] == 2 and row["content"] is other["content"] is None
        assert _kind(row["error"]) == _kind(other["error"]) == "timeout"


@pytest.mark.parametrize("first,then", [("litellm", "direct"), ("direct", "litellm")])
def test_switching_transport_re_asks_nothing(store, monkeypatch, first, then):
    monkeypatch.setenv(KEY_ENV, KEY)
    prompts = [
        {"prompt_id": f"s{i}", "messages": [{"role": "user", "content": f"switch {i}"}], "max_tokens": 8}
        for i in range(6)
    ]
    with FakeOpenAIServer() as server:
        before = run_model(store, _spec(server.api_base, first, "fake-switch"), prompts)
        assert before.called == len(prompts) and before.errors == 0
        server.reset_log()
        after = run_model(store, _spec(server.api_base, then, "fake-switch"), prompts)
        assert server.entries() == []
    assert after.called == 0 and after.skipped == len(prompts)
    assert f"over the {first} transport" in before.summary()  # the run's line names its transport


def test_the_default_transport_follows_the_protocol():
    base = "http://127.0.0.1:8000/v1"

    def used(litellm_model: str, **fields: str) -> str:
        return ModelEntry(name="m", litellm_model=litellm_model, **fields).transport_used

    assert used("openai/x", api_base=base) == "direct"
    assert used("hosted_vllm/x", api_base=base) == "direct"
    assert used("openai/gpt-4o-mini") == "litellm"  # no api_base: OpenAI itself
    assert used("anthropic/claude", api_base=base) == "litellm"
    assert used("openai/x", api_base=base, transport="litellm") == "litellm"
