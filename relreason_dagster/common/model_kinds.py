"""What a ``models.yaml`` entry's ``kind`` may say: an instruction-tuned chat model, a pretrained base, or
a reasoning model (a chat model that thinks before it answers).

In ``common/`` because two layers name the kinds: the model registry (``llm/registry.py``) checks an
entry against them, and a family's profile check (KOR's ``settings_by_kind``) checks its section
against them; a family importing the model registry would import the llm layer, and every family back
through it.
"""

from __future__ import annotations

MODEL_KINDS = ("chat", "base", "reasoning")
# How a kind is prompted where a study names no rule for it: a reasoning model is a chat model that
# thinks first (KOR-Bench asks it what it asks chat models); its own difference is its default
# timeout (llm/registry.default_timeout_s).
PROMPTED_AS = {"reasoning": "chat"}
