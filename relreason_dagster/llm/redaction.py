"""API keys out of every text the gateway stores or reports: ``[redacted OPENAI_API_KEY]`` in their place.

Why: some providers put the key they were sent in their error message (a 401 "Incorrect API key
provided: sk-…").  The gateway stores error texts in the lake, and from there they reach the DuckDB
file, ``report.html``, the exports and ``relreason samples``: one echo republished the key dozens of
times.  So every text taken from a provider (error messages, answers, finish reasons, a worker's
failure line) passes through a :class:`Redactor` before it is stored or printed.

Which values are secrets:

* the value of every ``api_key_env`` of the model registry whose variable is set (all models, not
  only the one running: a misconfigured endpoint may be sent another model's key, and LiteLLM
  itself reads provider variables such as ``OPENAI_API_KEY`` when a model names none);
* the value of every environment variable whose name says it holds a credential (``*API_KEY*``,
  ``*_KEY``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``), for the same reason.

A value shorter than :data:`MIN_SECRET_CHARS` is never treated as a secret (replacing ``x`` or
``sk-test`` everywhere would mangle answers, and no provider issues keys that short); nor is a
credential-named variable's value that is one plain word (``TOKENIZERS_PARALLELISM=disabled``) or
a path (``*_FILE``, ``*_PATH``, ``*_DIR`` variables).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from relreason_dagster.llm.registry import ModelEntry, load_registry

MIN_SECRET_CHARS = 8
_CREDENTIAL_NAME = re.compile(r"API_?KEY|_KEY$|TOKEN|SECRET|PASSWORD|PASSWD", re.IGNORECASE)
_NOT_A_CREDENTIAL = re.compile(r"_(FILE|PATH|DIR|URL|HOST|PORT)$", re.IGNORECASE)


@dataclass(frozen=True)
class Redactor:
    """Replaces each secret value in a text by ``[redacted <its variable>]``; longest values first."""

    secrets: tuple[tuple[str, str], ...] = ()

    def __call__(self, text: str | None) -> str | None:
        if not text or not self.secrets:
            return text
        for value, name in self.secrets:
            if value in text:
                text = text.replace(value, f"[redacted {name}]")
        return text

    def __bool__(self) -> bool:
        return bool(self.secrets)


def _looks_secret(name: str, value: str) -> bool:
    return (
        bool(_CREDENTIAL_NAME.search(name))
        and not _NOT_A_CREDENTIAL.search(name)
        and not value.isalpha()
        and not value.startswith(("/", "~", "./"))
    )


def secrets_of(env: Mapping[str, str], key_names: Iterable[str]) -> Redactor:
    """The redactor of ``env``: the values of ``key_names`` and of credential-named variables."""
    named = set(key_names)
    found: dict[str, str] = {}
    for name, value in env.items():
        value = value.strip()
        if len(value) < MIN_SECRET_CHARS or any(c.isspace() for c in value):
            continue
        if name in named or _looks_secret(name, value):
            found.setdefault(value, name)
    ordered = sorted(found.items(), key=lambda item: (-len(item[0]), item[1]))
    return Redactor(tuple(ordered))


def registry_key_names(path: Path | None = None) -> set[str]:
    """Every ``api_key_env`` named in the registry (``RELREASON_MODELS``); none if it cannot be read.

    Read once per version of the file (path, size, modification time): every run of a model asks,
    and parsing and checking the registry took ~20–50 ms before its first request.
    """
    if path is None:
        from relreason_dagster import paths

        path = paths.models_path()
    try:
        info = os.stat(path)
    except OSError:
        return set()
    return set(_key_names(str(path), info.st_size, info.st_mtime_ns))


@functools.lru_cache(maxsize=8)
def _key_names(path: str, _size: int, _mtime_ns: int) -> frozenset[str]:
    try:
        specs = load_registry(path)
    except Exception:  # noqa: BLE001 - a registry that does not load names no keys; the spec's still counts
        return frozenset()
    return frozenset(spec.api_key_env for spec in specs.values() if spec.api_key_env)


def redactor_for(spec: ModelEntry) -> Redactor:
    """The redactor of a run of ``spec``: its key, every registry key that is set, credential variables."""
    names = registry_key_names()
    if spec.api_key_env:
        names.add(spec.api_key_env)
    return secrets_of(os.environ, names)
