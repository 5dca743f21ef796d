"""The knobs a FLenQA profile may set, and their types (checked when a profile file is read).

A knob left out takes the family's default (the study's grid); ``max_tokens`` is per setting.
``generation`` is the study's protocol: generation params sent on top of the model's own (the paper
profile: temperature 0 and top-p 0, Appendix E); they are part of every request's cache key.
"""

from __future__ import annotations

from typing import Any

SCHEMA: dict[str, Any] = {
    "n_base": int,
    "tasks": list[str],
    "lengths": list[int],
    "paddings": list[str],
    "positions": list[str],
    "minimal": bool,
    "settings": list[str],
    "max_tokens": dict[str, int],
    "tokenizer": str,
    "prose_dir": str | None,
    "generation": dict[str, float],
}
