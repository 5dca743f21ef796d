"""Whether a `relreason run` can change anything: a fingerprint of what its results depend on.

A run whose answers are all stored still cost a minute or more: one Dagster run per job and
partition, each a process that loads the pipeline, and a dbt build.  None of that can change a
result when nothing the results are computed from has changed.  Those inputs are:

* the code: this package, the data-quality suites, the modules of families registered from
  elsewhere, the dbt project;
* the installed versions of the engines that compute (Dagster, dbt, DuckDB, LiteLLM, torch, ...);
* the launch itself (models, profile, families, seed, options), the model registry file, the user
  profile file and every ``RELREASON_*`` environment variable;
* the reference data directory and any data folder the profile names by absolute path (listing:
  path, size, modification time);
* the home's stored state (listing of everything but the Dagster instance, logs and the HTML
  report): the DuckDB file, the Parquet lake, DLM checkpoints, plots.

After a launch whose runs all succeeded, the fingerprint taken *after* it (the state it left) is
written to ``$RELREASON_HOME/last_launch.json`` with the launch's report.  A later launch with the
same fingerprint is not started: its results are the ones stored, and the recorded report says
what produced them.  Whatever cannot be listed here (a lake on object storage) makes the launch run:
an unneeded rebuild costs time, a wrong skip would cost correctness.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from relreason_dagster import paths, profiles
from relreason_dagster.common import atomic_files
from relreason_dagster.profiles import profile_file
from relreason_dagster.storage.fingerprints import (
    hash_code_and_engines,
    hash_contents,
    hash_listing,
    hash_named_paths,
)

RECORD_NAME = "last_launch.json"
# Parts of the home that are not inputs of a launch: the Dagster instance (run history), logs, the
# HTML report the CLI rewrites after every launch, dbt's build folders and the readers' copies of
# the DuckDB file (storage/read_copy.py; made by every `relreason sql`).
_HOME_SKIP = {"dagster", "logs", "report", "dbt", "read-copies", RECORD_NAME}
_DBT_SKIP = {"target", "logs", "dbt_packages", "families"}  # families: links to the families' own files


def fingerprint(
    launch: Mapping[str, Any],
    *,
    models_digest: str | None = None,
    sections: Mapping[str, Mapping[str, Any]] | None = None,
) -> str | None:
    """The hash of everything a launch described by ``launch`` reads; None if it cannot be known.

    ``models_digest`` and ``sections``: models.yaml's bytes (their sha256) and the profile as the
    launch read them (its plan), so neither file is read again here."""
    lake = paths.lake_url()
    if "://" in lake and not lake.startswith("file://"):
        return None
    digest = hashlib.sha256()
    digest.update(json.dumps(launch, sort_keys=True, default=str).encode())
    env = {k: v for k, v in os.environ.items() if k.startswith("RELREASON_")}
    digest.update(json.dumps(env, sort_keys=True).encode())
    hash_code_and_engines(digest)
    hash_contents(digest, paths.DBT_PROJECT_DIR, _DBT_SKIP)
    models = paths.models_path()
    if models_digest is not None:
        digest.update(models_digest.encode())
    else:
        digest.update(hashlib.sha256(models.read_bytes()).hexdigest().encode() if models.is_file() else b"-")
    digest.update(b"\0")
    profiles_file = profile_file()
    is_file = profiles_file is not None and profiles_file.is_file()
    digest.update(profiles_file.read_bytes() if profiles_file is not None and is_file else b"-")
    digest.update(b"\0")
    hash_listing(digest, paths.reference_dir(), set())
    profile = launch.get("profile")
    if sections is not None:  # data folders its families' sections name outside the reference data
        for family in sorted(sections):
            hash_named_paths(digest, dict(sections[family]))
    elif isinstance(profile, str):
        for family in profiles.profile_families(profile):
            hash_named_paths(digest, profiles.get_profile(profile, family).params)
    home = paths.relreason_home()
    hash_listing(digest, home, _HOME_SKIP)
    lake_path = Path(lake.removeprefix("file://"))
    if not lake_path.resolve().is_relative_to(home.resolve()):
        hash_listing(digest, lake_path, set())
    return digest.hexdigest()


def read_record() -> dict[str, Any] | None:
    """The last recorded launch of this home, or None (never recorded, or unreadable)."""
    path = paths.relreason_home() / RECORD_NAME
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) and "fingerprint" in record else None


def write_record(fingerprint_: str, report: Mapping[str, Any], finished: float) -> None:
    """Record a successful launch, whole or not at all (``common/atomic_files``): a concurrent reader
    sees the old or the new record, and a full disk or a crash never leaves half of one."""
    path = paths.relreason_home() / RECORD_NAME
    atomic_files.write_text(
        path, json.dumps({"fingerprint": fingerprint_, "finished": finished, "report": report}, default=list)
    )
