"""The door reads LiteLLM's files instead of importing it (``llm/litellm_files.py``): what it reads
must agree with what LiteLLM itself says, or a typo would pass (or a good model be refused).

Checked against the installed LiteLLM, so an upgrade that moves a provider list or changes its
lookup fails here rather than at a user's door.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from relreason_dagster.llm import litellm_files
from relreason_dagster.llm.launch_checks import LOOKUP_DOES_MORE, routable_from_files
from relreason_dagster.llm.litellm_overhead import litellm_module


def _routes(model: str, api_base: str | None = None) -> bool:
    try:
        litellm_module().get_llm_provider(model=model, api_base=api_base)
    except Exception:  # noqa: BLE001 - LiteLLM's BadRequestError
        return False
    return True


_PROVIDER_LIST = "import json, litellm; print(json.dumps([p.value for p in litellm.provider_list]))"


def test_the_provider_names_read_from_files_are_litellms_provider_list():
    # LiteLLM's list as a fresh interpreter has it: LiteLLM appends every custom provider a process
    # registers (relreason's ``local``, the tests' ``scripted``) on its first call, and no file names them.
    done = subprocess.run(
        [sys.executable, "-c", _PROVIDER_LIST],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True"},
    )
    listed = set(json.loads(done.stdout.strip().splitlines()[-1]))
    names = litellm_files.provider_names()
    assert names is not None and listed <= names
    assert "openai" in names and "nosuch" not in names


def _files_verdict(monkeypatch, model: str, api_base: str | None) -> bool | None:
    """``routable_from_files`` as the door calls it, before LiteLLM is imported (once it is, the
    door asks LiteLLM itself: a user may have registered providers in it)."""
    litellm = litellm_module()
    with monkeypatch.context() as patch:
        patch.delitem(sys.modules, "litellm")
        return routable_from_files(model, api_base)
    assert sys.modules["litellm"] is litellm


def test_litellm_routes_every_provider_the_files_name():
    """Every provider the door lets through on its name alone, LiteLLM routes too; the few whose
    lookup does more (a login, a path form) are left to LiteLLM (``LOOKUP_DOES_MORE``).  Those are
    not asked here: their lookup would try the network."""
    names = litellm_files.provider_names()
    assert names is not None and LOOKUP_DOES_MORE <= names
    refused = sorted(p for p in names - LOOKUP_DOES_MORE if not _routes(f"{p}/some-model"))
    assert refused == []


def test_the_cost_map_and_its_routing_rules_are_read():
    names, rules = litellm_files.cost_map_names(), litellm_files.routing_patterns()
    assert names is not None and "gpt-4o-mini" in names
    assert rules is not None and all(rule.flags & 2 for rule in rules)  # re.IGNORECASE, as LiteLLM


@pytest.mark.parametrize(
    ("model", "api_base"),
    [
        ("nosuch/x", None),
        ("typo-openai/gpt-4o-mini", None),
        ("openia/gpt-4o", None),
        ("my-server/llama-3-8b", None),
        ("openai/gpt-4o-mini", None),
        ("ollama/llama3.1", None),
        ("hosted_vllm/qwen", "http://127.0.0.1:9/v1"),
        ("nosuch/x", "http://127.0.0.1:9/v1"),
        ("gpt-4o-mini", None),
        ("anthropic.claude-3-5-haiku", None),
        ("nosuch/anthropic.claude-3-5-haiku", None),
        ("chatgpt/gpt-4o", None),
    ],
)
def test_what_the_files_settle_litellm_agrees_with(monkeypatch, model, api_base):
    """Where the files decide (True or False) LiteLLM decides the same; None leaves it to LiteLLM.
    (``routable_from_files`` asks LiteLLM once it is imported, so that is hidden here.)"""
    verdict = _files_verdict(monkeypatch, model, api_base)
    if verdict is not None:
        assert verdict == _routes(model, api_base), (model, verdict)
    if model.startswith(("nosuch/x", "typo-", "openia/")) and api_base is None:
        assert verdict is False  # the typos the door must refuse without LiteLLM
    if model.startswith(("openai/", "ollama/")):
        assert verdict is True  # a provider LiteLLM lists needs no import of it
    if model.split("/")[0] in LOOKUP_DOES_MORE:
        assert verdict is None
