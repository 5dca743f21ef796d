"""What each family's samples and prompts were last built from, so unchanged ones are kept.

``samples`` and ``prompts`` were rebuilt by every run that started them, and on a run whose answers are
all stored that rebuild was most of its time (generating and prompting 10k samples: ~4 s).  Their rows
are a pure function of their inputs, so each family's build is recorded in ``raw.built_from`` with a
key of those inputs and the number of rows it wrote; a later build whose key is the same, and whose rows
are all still there, keeps them.

The key hashes everything a build reads: the code (this package, the data-quality suites, families
registered from elsewhere) and the installed engines (``fingerprints.py``), the family's profile
section with the run's overrides, the seed, the reference data's listing and any data folder the
profile names by absolute path.  Prompts add the key of the samples they were built from.  An edit
anywhere in the code rebuilds every family: a needless rebuild costs seconds, a stale one would cost
correctness.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from relreason_dagster import settings
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.storage.fingerprints import code_digest, hash_listing, hash_named_paths

SAMPLES = "samples"
PROMPTS = "prompts"


def _key(*parts: Any, params: Mapping[str, Any]) -> str:
    digest = hashlib.sha256()
    digest.update(json.dumps(parts, sort_keys=True, default=str).encode())
    digest.update(json.dumps(dict(params), sort_keys=True, default=str).encode())
    reference = settings.reference_dir()
    digest.update(f"{reference}\0".encode())
    hash_listing(digest, reference, set())
    hash_named_paths(digest, dict(params))
    return digest.hexdigest()


def samples_key(family: str, profile: Profile, seed: int, code: str | None = None) -> str:
    """The key of ``family``'s samples at ``profile`` and ``seed`` (``code``: a :func:`code_digest`)."""
    return _key(SAMPLES, family, profile.name, seed, code or code_digest(), params=profile.params)


def prompts_key(family: str, profile: Profile, samples: str, code: str | None = None) -> str:
    """The key of ``family``'s test prompts, built from the samples whose key is ``samples``."""
    return _key(PROMPTS, family, profile.name, samples, code or code_digest(), params=profile.params)


def _in(families: Sequence[str]) -> str:
    return ", ".join("?" for _ in families)


def stored_keys(con: Any, asset: str, families: Sequence[str]) -> dict[str, tuple[str, int]]:
    """``{family: (key, rows)}`` recorded for ``asset``'s last build of each of ``families``."""
    if not families:
        return {}
    found = con.execute(
        "SELECT benchmark, inputs_key, n_rows FROM raw.built_from WHERE asset = ? AND benchmark IN "
        f"({_in(families)})",
        [asset, *families],
    ).fetchall()
    return {benchmark: (key, rows) for benchmark, key, rows in found}


def forget(con: Any, asset: str, families: Sequence[str]) -> None:
    """Drop the records of ``families`` before their rows are replaced (a crash then leaves none)."""
    if families:
        con.execute(
            f"DELETE FROM raw.built_from WHERE asset = ? AND benchmark IN ({_in(families)})",
            [asset, *families],
        )


def record(con: Any, asset: str, built: Mapping[str, tuple[str, int]]) -> None:
    """Record each family's ``(key, rows)`` after its rows (and snapshot) are written."""
    for family, (key, rows) in built.items():
        con.execute(
            "INSERT OR REPLACE INTO raw.built_from (asset, benchmark, inputs_key, n_rows)"
            " VALUES (?, ?, ?, ?)",
            [asset, family, key, rows],
        )
