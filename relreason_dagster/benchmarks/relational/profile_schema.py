"""The knobs a relational profile may set, and their types (checked when a profile file is read).

A knob left out takes the family's default; ``dlm_*`` knobs size the DLM baseline (``dlm/plan.py``).
"""

from __future__ import annotations

from typing import Any

SCHEMA: dict[str, Any] = {
    "n_fewshot": int,
    "n_fewshot_cot": int,
    "n_iid": int,
    "n_ood": int,
    "n_train_nodes": int,
    "n_ood_nodes": int,
    "settings": list[str],
    "split_settings": dict[str, list[str]],
    "max_tokens": int,
    "family_tree_variant": str,
    "dlm_tasks": list[str] | None,
    "dlm_seeds": list[int],
    "dlm_train_size": int | None,
    "dlm_overrides": dict[str, Any],
    "dlm_recipe": str | None,
    "dlm_recipes": list[str] | None,
    "dlm_recipe_overrides": dict[str, Any] | None,
}
