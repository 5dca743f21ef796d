"""What a ``models.yaml`` entry's ``kind`` may say: an instruction-tuned chat model or a pretrained base.

In ``common/`` because two layers name the kinds: the model registry (``llm/registry.py``) checks an
entry against them, and a family's profile check (KOR's ``settings_by_kind``) checks its section
against them; a family importing the model registry would import the llm layer, and every family back
through it.
"""

from __future__ import annotations

MODEL_KINDS = ("chat", "base")
