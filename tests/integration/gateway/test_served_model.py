"""Each stored reply keeps the model the provider said answered and its fingerprint (issue 55, item 4).

Against the fake OpenAI server (a scripted stand-in for a provider) answering as a snapshot behind
the alias it is asked for: its ``served_model`` knob names ``snap-1`` for some prompts and
``snap-2`` for others (a function of the prompt key here, so each row's expected snapshot is known),
with a fingerprint per snapshot.  On both transports the rows keep the configured entry name in
``model`` and the provider's answer in ``served_model`` / ``system_fingerprint``; an error row has
neither; a server that sends no fingerprint stores null; a cache copy under another entry keeps the
original's; several draws in one request (``n``) each keep it; and the request hash is the one the
prompt had before the columns existed (nothing is asked again).
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.request_key import request_hash
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer, prompt_key

pytestmark = pytest.mark.integration

KEY_ENV = "RELREASON_TEST_SERVED_KEY"
PROMPTS = 6
FINGERPRINTS = {"snap-1": "fp_aaa111", "snap-2": "fp_bbb222"}


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-served-model-0000")


def _prompts(samples: int = 1) -> list[dict]:
    return [
        {
            "prompt_id": f"p{i}",
            "messages": [{"role": "user", "content": f"served question {i}: true or false?"}],
            "max_tokens": 16,
            "benchmark": "toy",
            **({"samples": samples} if samples > 1 else {}),
        }
        for i in range(PROMPTS)
    ]


# Prompts p0, p2, p4 are answered by snap-1, the others by snap-2: a function of the prompt key.
EXPECTED = {p["prompt_id"]: "snap-1" if int(p["prompt_id"][1:]) % 2 == 0 else "snap-2" for p in _prompts()}
BY_KEY = {prompt_key(p["messages"]): EXPECTED[p["prompt_id"]] for p in _prompts()}


def _server(**more) -> FakeOpenAIServer:
    return FakeOpenAIServer(
        served_model=lambda key, _number: BY_KEY.get(key),
        system_fingerprint=FINGERPRINTS.get,
        **more,
    )


def _spec(server: FakeOpenAIServer, transport: str, name: str = "gpt-x", **more) -> ModelEntry:
    return ModelEntry(
        name=name,
        litellm_model="openai/gpt-x",
        params={"temperature": 0},
        concurrency=3,
        api_base=server.api_base,
        api_key_env=KEY_ENV,
        timeout_s=30.0,
        max_attempts=1,
        transport=transport,
        **more,
    )


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_rows_keep_the_served_model_and_fingerprint(tmp_path, transport):
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    p5 = prompt_key(_prompts()[5]["messages"])
    with _server(faults=lambda key, _attempt: 500 if key == p5 else 200) as server:
        spec = _spec(server, transport)
        stats = run_model(store, spec, _prompts())
        asked = {e.model for e in server.entries()}
    assert stats.called == PROMPTS and stats.errors == 1
    assert asked == {"gpt-x"}  # the alias is what was asked; the snapshot is what answered
    rows = store.latest("gpt-x")
    for pid, row in rows.items():
        assert row["model"] == "gpt-x" and row["litellm_model"] == "openai/gpt-x"
        if pid == "p5":  # a failed call: no reply, so no served model
            assert row["error"] and row["served_model"] is None and row["system_fingerprint"] is None
            continue
        assert (row["served_model"], row["system_fingerprint"]) == (
            EXPECTED[pid],
            FINGERPRINTS[EXPECTED[pid]],
        ), (pid, row)
    # The request hash is what it was before the columns: a lake of an older release is not re-asked.
    for p in _prompts():
        assert rows[p["prompt_id"]]["request_hash"] == request_hash(spec, p["messages"], 16)


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_no_fingerprint_is_null_and_a_cache_copy_keeps_the_original(tmp_path, transport):
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    with FakeOpenAIServer(served_model=lambda key, _number: BY_KEY.get(key)) as server:
        run_model(store, _spec(server, transport), _prompts())
        server.reset_log()
        copied = run_model(store, _spec(server, transport, name="gpt-x-again"), _prompts())
        assert server.entries() == []
    assert copied.cached == PROMPTS
    for name in ("gpt-x", "gpt-x-again"):
        rows = store.latest(name)
        assert {pid: r["served_model"] for pid, r in rows.items()} == EXPECTED, name
        assert {r["system_fingerprint"] for r in rows.values()} == {None}, name
    assert {r["from_cache"] for r in store.latest("gpt-x-again").values()} == {True}


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_every_draw_of_one_request_keeps_the_served_model(tmp_path, transport):
    store = ResponseStore(Lake.open(tmp_path / "lake"))
    with _server() as server:
        spec = _spec(server, transport).model_copy(update={"params": {"temperature": 0.7}, "n": 3})
        run_model(store, spec, _prompts(samples=3))
        assert {e.params.get("n") for e in server.entries()} == {3}  # one request asked the three draws
    draws = store.draws("gpt-x")
    assert len(draws) == PROMPTS * 3
    for (pid, _draw), row in draws.items():
        assert (row["served_model"], row["system_fingerprint"]) == (
            EXPECTED[pid],
            FINGERPRINTS[EXPECTED[pid]],
        )
