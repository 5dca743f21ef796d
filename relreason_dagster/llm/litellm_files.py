"""What LiteLLM's installed files say about providers and prices, read without importing LiteLLM.

Why: importing LiteLLM takes 3-8 s on 2 cores, and the launch's door checks (``llm/launch_checks.py``)
must answer a typo such as ``--model nosuch/x`` in about a second.  LiteLLM keeps what those checks
need in files it ships: its provider names (the ``LlmProviders`` enum, read here from the source's
syntax tree, and ``providers.json``), its offline cost map (the model names it prices and the
routing rules it applies to a name it does not know).  Read once per process; a file that cannot be
read leaves the question to LiteLLM itself (None), never to a guess.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

COST_MAP_FILE = "model_prices_and_context_window_backup.json"


@functools.cache
def litellm_folder() -> Path | None:
    """The installed litellm package's folder (found without importing it), or None."""
    found = importlib.util.find_spec("litellm")
    for folder in list(found.submodule_search_locations or []) if found is not None else []:
        return Path(folder)
    return None


@functools.cache
def cost_map() -> dict[str, Any] | None:
    """LiteLLM's bundled offline cost map as parsed JSON (what it reads with
    ``LITELLM_LOCAL_MODEL_COST_MAP=True``), or None if not found."""
    folder = litellm_folder()
    if folder is None:
        return None
    try:
        loaded = json.loads((folder / COST_MAP_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


@functools.cache
def cost_map_names() -> frozenset[str] | None:
    """The model names of the cost map (lower case), or None if it cannot be read."""
    found = cost_map()
    return None if found is None else frozenset(name.lower() for name in found)


@functools.cache
def routing_patterns() -> tuple[re.Pattern[str], ...] | None:
    """The cost map's routing rules (``fallback_generalizations``: a regex that sends a name LiteLLM
    does not know to a provider), compiled as LiteLLM applies them (case-insensitive search)."""
    found = cost_map()
    if found is None:
        return None
    block = found.get("fallback_generalizations")
    rules = block.get("rules", []) if isinstance(block, dict) else []
    patterns = []
    for rule in rules:
        info = rule.get("model_info") if isinstance(rule, dict) else None
        if isinstance(info, dict) and "litellm_provider" in info and isinstance(rule.get("pattern"), str):
            try:
                patterns.append(re.compile(rule["pattern"], re.IGNORECASE))
            except re.error:
                return None  # a rule we cannot read: LiteLLM decides
    return tuple(patterns)


@functools.cache
def provider_names() -> frozenset[str] | None:
    """The provider prefixes LiteLLM routes (``litellm.provider_list`` and its JSON-configured
    OpenAI-compatible providers), or None when its files cannot be read as expected."""
    folder = litellm_folder()
    if folder is None:
        return None
    try:
        tree = ast.parse((folder / "types" / "utils.py").read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "LlmProviders":
            for item in node.body:
                if (
                    isinstance(item, ast.Assign)
                    and isinstance(item.value, ast.Constant)
                    and isinstance(item.value.value, str)
                ):
                    names.add(item.value.value)
    if not names:
        return None
    try:
        extra = json.loads((folder / "llms" / "openai_like" / "providers.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        extra = {}
    return frozenset(names | set(extra if isinstance(extra, dict) else ()))
