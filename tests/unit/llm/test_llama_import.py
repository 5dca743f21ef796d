"""``import_llama_cpp`` loads llama.cpp with OpenMP sleeping between tokens, and leaves no trace.

Why a subprocess: libgomp reads ``OMP_WAIT_POLICY`` once, when it is loaded,
so only a fresh interpreter shows what the first import did.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("llama_cpp")

_PROBE = """
import os
from relreason_dagster.common.tokenizer import import_llama_cpp
seen = []
import builtins
real_import = builtins.__import__
def spy(name, *args, **kwargs):
    if name == "llama_cpp" and not seen:
        seen.append(os.environ.get("OMP_WAIT_POLICY"))
    return real_import(name, *args, **kwargs)
builtins.__import__ = spy
import_llama_cpp()
builtins.__import__ = real_import
print(seen[0], os.environ.get("OMP_WAIT_POLICY"))
"""


def _probe(env_value: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if env_value is not None:
        env["OMP_WAIT_POLICY"] = env_value
    out = subprocess.run([sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True)
    return out.stdout.split()


def test_first_import_sees_passive_and_the_environment_is_restored():
    assert _probe(None) == ["PASSIVE", "None"]


def test_a_users_own_policy_wins():
    assert _probe("ACTIVE") == ["ACTIVE", "ACTIVE"]
