"""The knobs a KOR-Bench profile may set, and their types (checked when a profile file is read).

Rule ids are strings (``"17"``), as in the official data; ``rules: {}`` means every rule.
``max_tokens`` is one cap or one per setting.
"""

from __future__ import annotations

from typing import Any

SCHEMA: dict[str, Any] = {
    "source": str,
    "data_dir": str | None,
    "categories": list[str],
    "rules": dict[str, list[str]],
    "generated_rules": dict[str, list[str]],
    "questions_per_rule": int,
    "level": int,
    "settings": list[str],
    "settings_by_kind": dict[str, list[str]],
    "mixed": dict[str, int],
    "self_correction_rounds": int,
    "stepwise": bool,
    "context_tokens": int,
    "max_tokens": int | dict[str, int],
}
