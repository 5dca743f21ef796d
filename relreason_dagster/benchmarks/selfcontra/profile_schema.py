"""The knobs a Self-Contra profile may set, and their types (checked when a profile file is read).

``sources`` maps a dataset to its item count; ``detect_limit``/``annotation_limit`` null mean no limit.
"""

from __future__ import annotations

from typing import Any

SCHEMA: dict[str, Any] = {
    "sources": dict[str, int],
    "data_dir": str | None,
    "settings": list[str],
    "max_tokens": int,
    "judge": str | None,
    "detect_methods": list[str],
    "judge_max_tokens": int,
    "annotation_files": list[str],
    "annotation_limit": int | None,
    "detect_limit": int | None,
}
