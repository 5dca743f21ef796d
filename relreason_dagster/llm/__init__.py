"""The LLM layer: model registry, LiteLLM gateway, in-process local models (the tokenizer is in ``common/``).

Environment defaults are set here, before any submodule imports LiteLLM,
because LiteLLM reads them at import time: without
``LITELLM_LOCAL_MODEL_COST_MAP`` it fetches its model price map from the
internet on import, which hangs or fails on offline machines.  Submodules are
not imported eagerly so that reading ``models.yaml`` does not pay for
importing LiteLLM (seconds).
"""

from __future__ import annotations

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("LITELLM_LOG", "ERROR")
