"""A home keeps dbt's parse state between builds, so a build re-parses only what changed.

The project's own ``target/partial_parse.msgpack`` is parsed without the ``relreason_duckdb`` var, so
dbt never reuses it for a build (it logged "Unable to do partial parsing because config vars,
config profile, or config target have changed" on every build); the home's copy was made with the
home's var.  Checked here: a finished build's file is kept whole, the next build folder starts from
it, and a home with none starts empty (dagster-dbt then copies the project's, as before).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relreason_dagster.defs import dbt


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    (tmp_path / "home" / "dbt").mkdir(parents=True)
    return tmp_path / "home"


def test_a_build_starts_from_the_last_build_of_its_home(home: Path) -> None:
    first = home / "dbt" / "build-1"
    dbt.reuse_partial_parse(first)
    assert not (first / dbt.PARTIAL_PARSE).exists()  # nothing kept yet: dbt parses from scratch

    first.mkdir()
    (first / dbt.PARTIAL_PARSE).write_bytes(b"state of build 1")
    dbt.keep_partial_parse(first)
    assert (home / "dbt" / dbt.PARTIAL_PARSE).read_bytes() == b"state of build 1"
    assert [p.name for p in (home / "dbt").iterdir() if p.name.startswith(".")] == []  # no temp left

    second = home / "dbt" / "build-2"
    dbt.reuse_partial_parse(second)
    assert (second / dbt.PARTIAL_PARSE).read_bytes() == b"state of build 1"

    (second / dbt.PARTIAL_PARSE).write_bytes(b"state of build 2")
    dbt.keep_partial_parse(second)
    assert (home / "dbt" / dbt.PARTIAL_PARSE).read_bytes() == b"state of build 2"


def test_a_build_that_left_no_state_keeps_the_old_one(home: Path) -> None:
    (home / "dbt" / dbt.PARTIAL_PARSE).write_bytes(b"old")
    failed = home / "dbt" / "build-3"
    failed.mkdir()
    dbt.keep_partial_parse(failed)
    assert (home / "dbt" / dbt.PARTIAL_PARSE).read_bytes() == b"old"
