"""Shared fixtures: a temporary DuckDB with the ``raw`` schema; the hang watchdog is a plugin of its own."""

from __future__ import annotations

import os

# Before anything imports LiteLLM: no price-map download, no telemetry.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# Runs execute in this process (scripted providers registered here answer them); tests of the
# multiprocess and distributed executors set their own.
os.environ.setdefault("RELREASON_EXECUTOR", "in_process")

import duckdb  # noqa: E402
import pytest  # noqa: E402

from relreason_dagster.storage.lake import Lake  # noqa: E402
from relreason_dagster.storage.responses import ResponseStore  # noqa: E402
from relreason_dagster.storage.schema import ensure_schema  # noqa: E402

# A hang fails fast and says where (tests/hang_watchdog.py); pytest-timeout does the usual case; tests over
# a fifth of their timeout are listed at the end of the run (tests/timeout_budget.py).
pytest_plugins = ["tests.hang_watchdog", "tests.timeout_budget"]


# Integration and end-to-end tests are whole `relreason run`s (a dbt build, Dagster runs, a model): up to
# ~140 s on an idle 2-core machine (the Celery two-worker test), 2-4 times that beside other work.  Their
# default timeout keeps the idle duration within a fifth of it (tests/timeout_budget.py lists any that is
# not); unit tests keep the ini's 300 s, and a test with its own mark keeps its own.
LONG_LAYERS_TIMEOUT_S = 900
_LONG_LAYERS = ("integration", "e2e")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Prepare the dbt project (link the families' dbt files, parse when stale) before any test module
    imports ``defs/``: the import only reads the manifest (``defs/dbt_prepare.py``), as the CLI's and the
    code location's loads prepare it first."""
    from relreason_dagster.defs.dbt_prepare import prepare_dbt_project

    prepare_dbt_project()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        layer = (
            item.path.relative_to(config.rootpath).parts[1:2]
            if item.path.is_relative_to(config.rootpath)
            else ()
        )
        if layer and layer[0] in _LONG_LAYERS and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(LONG_LAYERS_TIMEOUT_S))


@pytest.fixture
def lake(tmp_path):
    """A fresh Parquet lake under the test's folder."""
    return Lake.open(tmp_path / "lake")


@pytest.fixture
def store(lake):
    """The responses of :func:`lake`: what the gateway writes and reads."""
    return ResponseStore(lake)


@pytest.fixture
def duck(tmp_path, lake):
    """A DuckDB connection on a fresh file with schema ``raw``; ``raw.responses`` reads :func:`lake`."""
    con = duckdb.connect(str(tmp_path / "test.duckdb"))
    ensure_schema(con, lake)
    yield con
    con.close()


@pytest.fixture(scope="module")
def one_torch_thread():
    """One torch thread for a module's DLM work, as the pipeline trains (one thread per worker).

    The DLM's tensors are small, so threads buy little, and on a busy two-core machine torch's
    default threads made these modules several times slower (test_dlm_formulas: 110 s -> 45 s).
    """
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)
