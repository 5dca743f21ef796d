"""A step that reads the lake while another model's run compacts its files is asked again.

When a model's calls end, its gateway merges the Parquet parts it wrote into one file and deletes the
parts (``storage/lake.py``, ``Lake.compact``).  A query over ``raw.responses`` in another model's run
(its parsed answers, its follow-up steps) that listed a part before the delete and opens it after
fails with DuckDB's "No such file or directory" (seen in ``tests/perf/bench_parallel_models.py``:
two models side by side, one model's ``parsed_answers`` failed on the other's deleted part).  Nothing
is wrong with the data: the step runs again (Dagster's ``RetryRequested``) and lists the merged file.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import dagster as dg
import duckdb

RETRIES = 3
WAIT_S = 0.5


def vanished_lake_file(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB failing to open a Parquet file that was listed and then deleted."""
    text = str(exc)
    return isinstance(exc, duckdb.IOException) and "No such file or directory" in text and ".parquet" in text


@contextlib.contextmanager
def retry_if_lake_files_vanish() -> Iterator[None]:
    """Turn a vanished lake file into a retry of the step (at most ``RETRIES``); other errors pass."""
    try:
        yield
    except duckdb.IOException as exc:
        if vanished_lake_file(exc):
            raise dg.RetryRequested(max_retries=RETRIES, seconds_to_wait=WAIT_S) from exc
        raise
