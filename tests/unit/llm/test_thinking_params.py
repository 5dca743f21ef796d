"""A model's thinking switch and effort are params: they reach the request body on both transports and
are part of the cache key (issue 47, item 5).

``reasoning_effort`` (OpenAI o-series, gpt-oss) and a chat template's ``enable_thinking`` (Qwen3 served
by vLLM or SGLang: ``chat_template_kwargs``, top level or inside ``extra_body`` as the OpenAI SDK sends
it) change what the model does, so a change of either must never be served a stored answer.  The fake
OpenAI server (a scripted stand-in, named as such) logs each body's params as it arrived.
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.request_key import request_hash
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer

QUESTION = [{"role": "user", "content": "Is the sky blue? Answer True or False."}]
OFF = {"enable_thinking": False}
VARIANTS = {
    "effort": {"reasoning_effort": "high"},
    "template": {"chat_template_kwargs": OFF},
    "extra_body": {"extra_body": {"chat_template_kwargs": OFF}},
}


def test_each_thinking_param_changes_the_request_hash():
    plain = ModelEntry(name="m", litellm_model="hosted_vllm/qwen3", api_base="http://127.0.0.1:9/v1")
    hashes = {"plain": request_hash(plain, QUESTION, 64)}
    for name, params in VARIANTS.items():
        spec = ModelEntry(name="m", litellm_model=plain.litellm_model, api_base=plain.api_base, params=params)
        hashes[name] = request_hash(spec, QUESTION, 64)
    on = {"chat_template_kwargs": {"enable_thinking": True}}
    spec = ModelEntry(name="m", litellm_model=plain.litellm_model, api_base=plain.api_base, params=on)
    hashes["template_on"] = request_hash(spec, QUESTION, 64)
    low = {"reasoning_effort": "low"}
    spec = ModelEntry(name="m", litellm_model=plain.litellm_model, api_base=plain.api_base, params=low)
    hashes["effort_low"] = request_hash(spec, QUESTION, 64)
    assert len(set(hashes.values())) == len(hashes), hashes


@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_thinking_params_reach_the_body_on_both_transports(
    transport, duck, store: ResponseStore, monkeypatch
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    prompts = [{"prompt_id": "p0", "messages": QUESTION, "max_tokens": 16, "samples": 1}]
    with FakeOpenAIServer() as server:
        for name, params in VARIANTS.items():
            spec = ModelEntry(
                name=f"{name}-{transport}",
                litellm_model="openai/qwen3",
                api_base=server.api_base,
                params=params,
                transport=transport,
                max_attempts=1,
            )
            stats = run_model(store, spec, prompts)
            assert (stats.called, stats.errors) == (1, 0), (name, transport)
        sent = [e.params for e in server.entries()]
    assert len(sent) == 3
    effort, template, extra = sent
    assert effort.get("reasoning_effort") == "high"
    assert template.get("chat_template_kwargs") == OFF
    # extra_body is the OpenAI SDK's way to add body fields: its contents arrive at the top level.
    assert extra.get("chat_template_kwargs") == OFF and "extra_body" not in extra, extra
