"""The knobs a Self-Contra profile may set, and their types (checked when a profile file is read).

``sources`` maps a dataset to its item count; ``detect_limit``/``annotation_limit`` null mean no limit.
``stereotypes`` (anti, pro) and ``splits`` (test, dev) pick the WinoBias files (default anti test);
``prompts`` is ``relreason`` (our wording and demonstrations) or ``study`` (the study's wording and its
six demonstrations from ``demonstrations_file``, default ``wino/self_contra_demonstrations.json`` under
the reference folder).  ``generation`` is the study's decoding, sent on top of each model's own params
(the paper profile: temperature 0, as §2 states for all models).
"""

from __future__ import annotations

from typing import Any

SCHEMA: dict[str, Any] = {
    "sources": dict[str, int],
    "data_dir": str | None,
    "stereotypes": list[str],
    "splits": list[str],
    "prompts": str,
    "demonstrations_file": str | None,
    "settings": list[str],
    "max_tokens": int,
    "generation": dict[str, float],
    "judge": str | None,
    "detect_methods": list[str],
    "judge_max_tokens": int,
    "annotation_files": list[str],
    "annotation_limit": int | None,
    "detect_limit": int | None,
}
