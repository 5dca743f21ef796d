"""A step whose lake read meets a file another model's run just compacted away runs again.

The stand-in asset below fails its first read with DuckDB's own error for a listed-then-deleted
Parquet file (the error met in bench_parallel_models: another model's compaction deleted its part
between the listing and the read); Dagster runs it again, in the same in-process run, and it succeeds.
Any other IO error still fails the step at once.
"""

from __future__ import annotations

import dagster as dg
import duckdb
import pytest

from relreason_dagster.defs.vanished_files import RETRIES, retry_if_lake_files_vanish, vanished_lake_file

VANISHED = duckdb.IOException(
    'IO Error: Cannot open file "/h/lake/responses/model=beta/benchmark=relational/part-1.parquet": '
    "No such file or directory"
)


def test_only_a_listed_then_deleted_parquet_file_counts() -> None:
    assert vanished_lake_file(VANISHED)
    assert not vanished_lake_file(duckdb.IOException('IO Error: Could not set lock on file "r.duckdb"'))
    assert not vanished_lake_file(FileNotFoundError("x.parquet: No such file or directory"))


def _materialize(fail_first: list[BaseException]) -> tuple[bool, int]:
    attempts: list[int] = []

    @dg.asset
    def reads_the_lake() -> int:
        attempts.append(1)
        with retry_if_lake_files_vanish():
            if fail_first:
                raise fail_first.pop(0)
        return len(attempts)

    result = dg.materialize([reads_the_lake], raise_on_error=False)
    return result.success, len(attempts)


def test_a_vanished_file_runs_the_step_again() -> None:
    assert _materialize([VANISHED]) == (True, 2)
    assert _materialize([VANISHED] * RETRIES) == (True, RETRIES + 1)


def test_it_gives_up_after_its_retries_and_other_errors_fail_at_once() -> None:
    assert _materialize([VANISHED] * (RETRIES + 1)) == (False, RETRIES + 1)
    assert _materialize([duckdb.IOException("IO Error: disk full")]) == (False, 1)


@pytest.mark.parametrize("error", [ValueError("a bug")])
def test_errors_that_are_not_duckdb_io_errors_pass_through(error) -> None:
    assert _materialize([error]) == (False, 1)
