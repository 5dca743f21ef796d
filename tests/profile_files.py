"""Tests build profiles the way a user does: a YAML profile file named by ``RELREASON_PROFILES``.

Nothing global is patched; a launch resolves the profile from that file and hands the runs the
result by value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from relreason_dagster.profiles import PROFILE_FILE_ENV


def use_profiles(mp: pytest.MonkeyPatch, path: Path, profiles: dict[str, Any]) -> Path:
    """Write ``profiles`` (``{name: {extends: ..., family: {knob: value}}}``) to ``path`` and select it.

    A profile named like a built-in one (``smoke``) changes just the knobs it gives.
    """
    path.write_text(yaml.safe_dump(profiles, sort_keys=False), encoding="utf-8")
    mp.setenv(PROFILE_FILE_ENV, str(path))
    return path
