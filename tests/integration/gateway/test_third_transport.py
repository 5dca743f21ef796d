"""A third transport joins by the table alone: registered under a name, picked by a models.yaml entry.

The transport here is scripted and in memory (named as such: it sends nothing anywhere): for each
prompt it replays a list of steps, a chat-completions body or a provider error, one per attempt.  Its
bodies are the ones the fake OpenAI server answers (fetched once, before the run, with a plain HTTP
POST), so a run through it must store the rows the ``direct`` transport stores against that server
scripted with the same faults: same content, counts, cost, attempts, error kinds, cache copies and
draw indexes.  Nothing in the gateway or the registry names the transport: ``table.register`` is all.
"""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from relreason_dagster.llm.draw_plan import Work
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.provider_errors import ProviderError
from relreason_dagster.llm.registry import load_registry
from relreason_dagster.llm.replies import read_body
from relreason_dagster.llm.transports import table
from relreason_dagster.llm.transports.protocol import Transport
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer, prompt_key

pytestmark = pytest.mark.integration

KEY_ENV = "RELREASON_TEST_THIRD_KEY"
NAME = "scripted-in-memory"
# Per prompt: what happens at attempt 1, 2, ... (200: the server's answer; the last step repeats).
FAULTS: dict[str, tuple[int, ...]] = {
    "plain": (200,),
    "rate_limited_then_ok": (429, 200),
    "always_server_error": (500,),
    "also_plain": (200,),
}
KIND = {429: "rate_limit", 500: "server_error"}


def _prompts() -> list[dict[str, Any]]:
    rows = [
        {
            "prompt_id": name,
            "messages": [{"role": "user", "content": f"{name}: is the statement true?"}],
            "max_tokens": 16,
            "benchmark": "toy",
        }
        for name in FAULTS
    ]
    # Same messages as "plain": answered by the same request (a cache copy, from_cache).
    rows.append({**rows[0], "prompt_id": "plain_twin"})
    return rows


def _step(key_faults: dict[str, tuple[int, ...]], key: str, attempt: int) -> int:
    steps = key_faults[key]
    return steps[min(attempt, len(steps)) - 1]


class ScriptedTransport(Transport):
    """Replays :attr:`script` (prompt key -> steps); counts what it was asked, sends nothing."""

    name = NAME
    read = staticmethod(read_body)  # its replies are chat-completions bodies
    script: dict[str, list[Any]] = {}
    log: list[tuple[str, int]] = []

    def __init__(self, spec: Any, api_key: str | None, extra_kwargs: dict[str, Any]) -> None:
        super().__init__(spec, api_key, extra_kwargs)
        self.attempts: dict[str, int] = {}
        self.opened = self.closed = False

    async def open(self) -> None:
        self.opened = True

    def request(self, work: Work, n: int) -> tuple[str, int]:
        return prompt_key(work.messages), n

    async def send(self, request: tuple[str, int]) -> Any:
        key, n = request
        attempt = self.attempts[key] = self.attempts.get(key, 0) + 1
        ScriptedTransport.log.append((key, attempt))
        steps = self.script[key]
        step = steps[min(attempt, len(steps)) - 1]
        if isinstance(step, Exception):
            raise step
        return step

    async def close(self) -> None:
        self.closed = True


def _bodies(prompts: list[dict[str, Any]], model: str) -> dict[str, dict[str, Any]]:
    """The fake server's 200 body for each distinct prompt (a server of its own, no faults)."""
    out = {}
    with FakeOpenAIServer() as server:
        for p in prompts:
            payload = {
                "model": model,
                "messages": p["messages"],
                "temperature": 0,
                "max_tokens": p["max_tokens"],
            }
            request = urllib.request.Request(
                server.api_base + "/chat/completions",
                data=json.dumps(payload).encode(),
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=30) as reply:
                out[prompt_key(p["messages"])] = json.loads(reply.read())
    return out


def _models_yaml(path: Any, api_base: str, transport: str) -> Any:
    path.write_text(
        "models:\n"
        "  - name: same-model\n"
        "    litellm_model: openai/fake-plain\n"
        f"    api_base: {api_base}\n"
        f"    api_key_env: {KEY_ENV}\n"
        "    params: {temperature: 0}\n"
        "    max_attempts: 2\n"
        f"    transport: {transport}\n"
    )
    return load_registry(path)["same-model"]


@pytest.fixture
def registered():
    table.register(NAME, ScriptedTransport)
    ScriptedTransport.log = []
    yield
    table.unregister(NAME)


def test_a_registered_transport_stores_the_rows_the_direct_one_does(tmp_path, monkeypatch, registered):
    monkeypatch.setenv(KEY_ENV, "sk-third")
    prompts = _prompts()
    faults = {prompt_key(p["messages"]): FAULTS[p["prompt_id"]] for p in prompts if p["prompt_id"] in FAULTS}
    server = FakeOpenAIServer(faults=lambda key, attempt: _step(faults, key, attempt), retry_after_s=0.01)
    with server:
        direct_spec = _models_yaml(tmp_path / "direct.yaml", server.api_base, "direct")
        direct_store = ResponseStore(Lake.open(tmp_path / "direct" / "lake"))
        direct_stats = run_model(direct_store, direct_spec, prompts, backoff_base_s=0.001)
        api_base = server.api_base

    bodies = _bodies(prompts, "fake-plain")
    ScriptedTransport.script = {
        key: [
            bodies[key] if status == 200 else ProviderError(KIND[status], f"HTTP {status}: scripted")
            for status in steps
        ]
        for key, steps in faults.items()
    }
    # The same api_base (never contacted): the request hash is the direct run's.
    spec = _models_yaml(tmp_path / "models.yaml", api_base, NAME)
    assert spec.transport_used == NAME
    store = ResponseStore(Lake.open(tmp_path / "scripted" / "lake"))
    stats = run_model(store, spec, prompts, backoff_base_s=0.001)

    assert stats.transport == NAME and direct_stats.transport == "direct"
    direct_rows, rows = direct_store.latest("same-model"), store.latest("same-model")
    assert set(rows) == set(direct_rows) == {p["prompt_id"] for p in prompts}
    for pid, row in rows.items():
        other = direct_rows[pid]
        differ = {c for c in row if c not in ("latency_s", "created_at", "error") and row[c] != other[c]}
        assert not differ, (pid, {c: (row[c], other[c]) for c in differ})
        kinds = [None if r["error"] is None else r["error"].split(":", 1)[0] for r in (row, other)]
        assert kinds[0] == kinds[1], (pid, row["error"], other["error"])
    # What the script makes of each prompt, so "equal" is not "equally wrong".
    assert rows["plain"]["content"] and rows["plain"]["error"] is None
    assert rows["plain_twin"]["from_cache"] and rows["plain_twin"]["content"] == rows["plain"]["content"]
    assert rows["rate_limited_then_ok"]["attempts"] == 2 and rows["rate_limited_then_ok"]["error"] is None
    assert rows["always_server_error"]["error"].startswith("server_error")
    assert rows["always_server_error"]["attempts"] == 2
    for counter in ("called", "errors", "attempts", "error_kinds"):
        assert getattr(stats, counter) == getattr(direct_stats, counter), counter
    assert len(ScriptedTransport.log) == stats.attempts == 6  # 4 requests, one retry each for two


def test_an_unregistered_name_is_one_error_line_naming_the_table(tmp_path):
    with pytest.raises(Exception, match=rf"transport: expected 'direct', 'litellm' or 'batch', got '{NAME}'"):
        _models_yaml(tmp_path / "models.yaml", "http://127.0.0.1:9/v1", NAME)
    table.register(NAME, ScriptedTransport)
    try:
        with pytest.raises(
            Exception, match=rf"expected 'direct', 'litellm', 'batch' or '{NAME}', got 'fast'"
        ):
            _models_yaml(tmp_path / "models.yaml", "http://127.0.0.1:9/v1", "fast")
    finally:
        table.unregister(NAME)
