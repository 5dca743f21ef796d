"""What each family's samples and prompts, and each model's parsed answers, were last built from.

``samples`` and ``prompts`` were rebuilt by every run that started them, and on a run whose answers are
all stored that rebuild was most of its time (generating and prompting 10k samples: ~4 s).  Their rows
are a pure function of their inputs, so each family's build is recorded in ``raw.built_from`` with a
key of those inputs and the number of rows it wrote; a later build whose key is the same, and whose rows
are all still there, keeps them.

The key hashes everything a build reads: the code (this package, the data-quality suites, families
registered from elsewhere) and the installed engines (``fingerprints.py``), the family's profile
section with the run's overrides, the seed, the reference data's listing, the listing of the data
imported into the home (``paths.imports_dir``) and any data folder the profile names by absolute
path.  Prompts add the key of the samples they were built from.  An edit anywhere in the code rebuilds
every family: a needless rebuild costs seconds, a stale one would cost correctness.

A model's parsed answers (``raw.parsed_answers``) are a function of its stored responses, the test
prompts, the samples and the parsing code; :func:`parsed_key` hashes those (an order-free hash of the
model's current answers to test prompts, the samples' and prompts' records and row counts, the code)
with the state of the model's parsed rows (count and an order-free hash of their ``parse_key``s).  The
same key means a refresh would find every row's ``parse_key`` unchanged and parse nothing, so it is
skipped: the ~0.3 s of computing 10k keys.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.storage.fingerprints import code_digest, hash_listing, hash_named_paths
from relreason_dagster.storage.schema import TEST_KIND

SAMPLES = "samples"
PROMPTS = "prompts"
PARSED = "parsed_answers"  # one record per model (``part`` is the model)


def _key(*parts: Any, params: Mapping[str, Any]) -> str:
    digest = hashlib.sha256()
    digest.update(json.dumps(parts, sort_keys=True, default=str).encode())
    digest.update(json.dumps(dict(params), sort_keys=True, default=str).encode())
    reference = paths.reference_dir()
    digest.update(f"{reference}\0".encode())
    hash_listing(digest, reference, set())
    hash_listing(digest, paths.imports_dir(), set())  # data imported into the home (a family's knob reads it)
    hash_named_paths(digest, dict(params))
    return digest.hexdigest()


def samples_key(family: str, profile: Profile, seed: int, code: str | None = None) -> str:
    """The key of ``family``'s samples at ``profile`` and ``seed`` (``code``: a :func:`code_digest`)."""
    return _key(SAMPLES, family, profile.name, seed, code or code_digest(), params=profile.params)


def prompts_key(family: str, profile: Profile, samples: str, code: str | None = None) -> str:
    """The key of ``family``'s test prompts, built from the samples whose key is ``samples``."""
    return _key(PROMPTS, family, profile.name, samples, code or code_digest(), params=profile.params)


def _in(parts: Sequence[str]) -> str:
    return ", ".join("?" for _ in parts)


def stored_keys(con: Any, asset: str, parts: Sequence[str]) -> dict[str, tuple[str, int]]:
    """``{part: (key, rows)}`` recorded for ``asset``'s last build of each of ``parts`` (families or
    models)."""
    if not parts:
        return {}
    found = con.execute(
        f"SELECT part, inputs_key, n_rows FROM raw.built_from WHERE asset = ? AND part IN ({_in(parts)})",
        [asset, *parts],
    ).fetchall()
    return {part: (key, rows) for part, key, rows in found}


def unchanged(con: Any, asset: str, keys: Mapping[str, str], count_sql: str) -> dict[str, int]:
    """``{part: rows}`` of the parts whose last build of ``asset`` had these keys and whose rows are
    all still stored (``count_sql`` counts a part's rows, one ``?`` for the part)."""
    stored = stored_keys(con, asset, list(keys))
    kept = {}
    for part, key in keys.items():
        if part in stored and stored[part][0] == key:
            (rows,) = con.execute(count_sql, [part]).fetchone()
            if rows == stored[part][1]:
                kept[part] = rows
    return kept


def forget(con: Any, asset: str, parts: Sequence[str]) -> None:
    """Drop the records of ``parts`` before their rows are replaced (a crash then leaves none)."""
    if parts:
        con.execute(
            f"DELETE FROM raw.built_from WHERE asset = ? AND part IN ({_in(parts)})",
            [asset, *parts],
        )


def record(con: Any, asset: str, built: Mapping[str, tuple[str, int]]) -> None:
    """Record each part's ``(key, rows)`` after its rows (and snapshot) are written."""
    for part, (key, rows) in built.items():
        con.execute(
            "INSERT OR REPLACE INTO raw.built_from (asset, part, inputs_key, n_rows) VALUES (?, ?, ?, ?)",
            [asset, part, key, rows],
        )


def parsed_key(con: Any, model: str, code: str | None = None) -> tuple[str, int]:
    """The key of ``model``'s parsed answers as stored now, and how many rows it has."""
    digest = hashlib.sha256()
    digest.update((code or code_digest()).encode())
    # The model's current answers to test prompts (its follow-up answers are not parsed here).
    # Every draw of ``--samples K``: draws 1.. are parsed into raw.parsed_draws by the same step.
    answers = con.execute(
        "SELECT count(*), coalesce(bit_xor(hash(r.prompt_id, r.request_hash, r.created_at, r.error)), 0)"
        " FROM raw.response_draws r JOIN raw.prompts p USING (prompt_id)"
        f" WHERE r.model = ? AND p.kind = '{TEST_KIND}'",
        [model],
    ).fetchone()
    inputs = con.execute(
        "SELECT asset, part, inputs_key, n_rows FROM raw.built_from WHERE asset IN (?, ?) ORDER BY ALL",
        [SAMPLES, PROMPTS],
    ).fetchall()
    counts = con.execute(
        "SELECT (SELECT count(*) FROM raw.samples),"
        f" (SELECT count(*) FROM raw.prompts WHERE kind = '{TEST_KIND}')"
    ).fetchone()
    rows, keys = con.execute(
        "SELECT count(*), coalesce(bit_xor(hash(prompt_id, parse_key)), 0) FROM raw.parsed_answers"
        " WHERE model = ?",
        [model],
    ).fetchone()
    draws = con.execute(
        "SELECT count(*), coalesce(bit_xor(hash(prompt_id, sample_index, parse_key)), 0)"
        " FROM raw.parsed_draws WHERE model = ?",
        [model],
    ).fetchone()
    keys = f"{keys}:{draws[1]}:{draws[0]}" if draws and draws[0] else keys
    digest.update(json.dumps([list(answers), inputs, list(counts), rows, str(keys)], default=str).encode())
    return digest.hexdigest(), int(rows)
