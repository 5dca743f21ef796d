"""Dagster's private API the package still uses: each name is here, and a release that moves it says so.

Issue 59 item 4.  The package reaches into ``dagster._*`` only where no public API does the job (the
comment at each import says why).  These tests fail with the name, the file that needs it and what
for when a Dagster release (pyproject.toml accepts the tested minor's patch releases) removes or
reshapes one; another test counts the private imports so a new one is a decision, not an accident.
Constants the package compares by value instead of importing are checked against Dagster's here too.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from dataclasses import dataclass
from pathlib import Path

import dagster as dg
import pytest
import yaml

from relreason_dagster import env
from relreason_dagster.defs import event_log_storage, status
from relreason_dagster.defs.build import reconstructable_job

PACKAGE = Path(__file__).resolve().parents[3] / "relreason_dagster"
# Python import statements of private Dagster modules the package may have (issue 59: at most 3).
MAX_PRIVATE_IMPORTS = 3


@dataclass(frozen=True)
class Private:
    module: str
    names: tuple[str, ...]
    used_by: str
    purpose: str


# The private names the package imports (or names in dagster.yaml), each with its user and reason.
KEPT = (
    Private(
        "dagster._core.storage.event_log",
        ("SqliteEventLogStorage",),
        "defs/event_log_storage.py",
        "the event log kept on Dagster's SQLite files with pooled connections (dagster.yaml's "
        "event_log_storage)",
    ),
    Private(
        "dagster._core.execution.api",
        ("execute_run",),
        "defs/run_origin.py",
        "executing a CLI run created under the UI's code location (the end of dagster.execute_job)",
    ),
    Private(
        "dagster._core.remote_origin",
        ("RegisteredCodeLocationOrigin", "RemoteJobOrigin", "RemoteRepositoryOrigin"),
        "defs/run_origin.py",
        "the remote job origin that puts CLI runs on the UI's Overview timeline",
    ),
    Private(
        "dagster._core.storage.noop_compute_log_manager",
        ("NoOpComputeLogManager",),
        "env.py (dagster.yaml's compute_logs)",
        "leaving step output on the terminal instead of captured to files through `tail` processes",
    ),
)


def _moved(what: str, private: Private, detail: str = "") -> str:
    return (
        f"Dagster {dg.__version__} moved {what}, used by {private.used_by} for {private.purpose}"
        f"{': ' + detail if detail else ''}: see the comment at its import there, then "
        "tests/unit/orchestration/test_dagster_private_api.py and pyproject.toml's Dagster range"
    )


def _kept(module: str) -> Private:
    (private,) = [p for p in KEPT if p.module == module]
    return private


def _import(private: Private, name: str):
    try:
        module = importlib.import_module(private.module)
    except ImportError:
        pytest.fail(_moved(private.module, private))
    if not hasattr(module, name):
        pytest.fail(_moved(f"{private.module}.{name}", private))
    return getattr(module, name)


def _params(private: Private, what: str, fn, expected: tuple[str, ...]) -> None:
    names = tuple(inspect.signature(fn).parameters)
    missing = [name for name in expected if name not in names]
    if missing:
        pytest.fail(_moved(what, private, f"its parameters {names} lack {missing}"))


@pytest.mark.parametrize(
    "module,name", [(p.module, name) for p in KEPT for name in p.names], ids=lambda v: str(v)
)
def test_each_kept_private_name_still_imports(module: str, name: str):
    _import(_kept(module), name)


def test_the_event_log_base_class_keeps_what_the_pooled_storage_overrides_and_uses(tmp_path: Path):
    private = _kept("dagster._core.storage.event_log")
    base = _import(private, "SqliteEventLogStorage")
    for method, params in {
        "_connect": ("self", "shard"),
        "_initdb": ("self", "engine"),
        "conn_string_for_shard": ("self", "shard_name"),
        "from_config_value": ("inst_data", "config_value"),
        "wipe": ("self",),
        "dispose": ("self",),
    }.items():
        if not callable(getattr(base, method, None)):
            pytest.fail(_moved(f"SqliteEventLogStorage.{method}", private))
        _params(private, f"SqliteEventLogStorage.{method}", getattr(base, method), params)
    storage = base(str(tmp_path / "runs"))
    try:
        for attribute in ("_db_lock", "_initialized_dbs"):
            if not hasattr(storage, attribute):
                pytest.fail(_moved(f"SqliteEventLogStorage().{attribute}", private))
        if not isinstance(storage._initialized_dbs, set):
            pytest.fail(_moved("SqliteEventLogStorage()._initialized_dbs", private, "no longer a set"))
    finally:
        storage.dispose()
    # The busy timeout the pooled storage copies by value.
    from dagster._core.storage.sqlite import SQLITE_BUSY_TIMEOUT_SECONDS

    assert event_log_storage.SQLITE_BUSY_TIMEOUT_SECONDS == SQLITE_BUSY_TIMEOUT_SECONDS, _moved(
        "dagster._core.storage.sqlite.SQLITE_BUSY_TIMEOUT_SECONDS", private, "its value changed"
    )


def test_the_run_origin_steps_keep_their_shape():
    private = _kept("dagster._core.execution.api")
    _params(
        private,
        "execute_run",
        _import(private, "execute_run"),
        ("job", "dagster_run", "instance", "raise_on_error"),
    )
    # The job execute_job_with_origin gets (dagster.build_reconstructable_job's; its class is not exported).
    job_class = type(reconstructable_job("prepare", "in_process"))
    for method in ("with_repository_load_data", "get_python_origin", "get_definition"):
        if not callable(getattr(job_class, method, None)):
            pytest.fail(_moved(f"{job_class.__name__}.{method}", private))
    _params(
        private,
        "DagsterInstance.create_run_for_job",
        dg.DagsterInstance.create_run_for_job,
        (
            "job_def",
            "run_config",
            "tags",
            "asset_selection",
            "remote_job_origin",
            "job_code_origin",
            "repository_load_data",
        ),
    )
    origins = _kept("dagster._core.remote_origin")
    registered = _import(origins, "RegisteredCodeLocationOrigin")
    repository = _import(origins, "RemoteRepositoryOrigin")
    try:
        origin = repository(code_location_origin=registered("loc"), repository_name="repo")
    except TypeError as exc:
        what = "RemoteRepositoryOrigin(code_location_origin=, repository_name=)"
        pytest.fail(_moved(what, origins, str(exc)))
    job = origin.get_job_origin("job")
    # The job's Runs tab filters on this label, and the timeline on the job's location name.
    assert (origin.get_label(), job.location_name, job.job_name) == ("repo@loc", "loc", "job"), _moved(
        "RemoteRepositoryOrigin's label or RemoteJobOrigin's names", origins
    )


def test_dagster_yaml_names_a_compute_log_manager_dagster_loads(tmp_path: Path):
    private = _kept("dagster._core.storage.noop_compute_log_manager")
    config = yaml.safe_load(env.dagster_yaml(tmp_path))
    assert config["compute_logs"] == {"module": private.module, "class": private.names[0]}
    (tmp_path / "dagster.yaml").write_text(env.dagster_yaml(tmp_path))
    try:
        instance = dg.DagsterInstance.from_config(str(tmp_path))
    except Exception as exc:  # noqa: BLE001 - the failure names what moved
        pytest.fail(_moved(f"{private.module}.{private.names[0]}", private, f"{type(exc).__name__}: {exc}"))
    with instance:
        assert type(instance.compute_log_manager).__name__ == private.names[0]
        assert type(instance.event_log_storage) is event_log_storage.PooledSqliteEventLogStorage


def test_values_the_package_compares_instead_of_importing_are_dagsters():
    """Names the package no longer imports, kept equal to Dagster's by this test."""
    from dagster._core.definitions.repository_definition.valid_definitions import SINGLETON_REPOSITORY_NAME
    from dagster._core.storage.asset_check_execution_record import AssetCheckExecutionRecordStatus
    from dagster._core.storage.sql import create_engine as dagsters_create_engine
    from dagster._core.storage.tags import REPOSITORY_LABEL_TAG

    # defs/status.py: a planned check execution, by its stored value.
    assert AssetCheckExecutionRecordStatus(status.PLANNED).name == "PLANNED"
    # defs/event_log_storage.py: SQLAlchemy's create_engine, which Dagster's storages use.
    assert event_log_storage.create_engine is dagsters_create_engine
    # tests (test_run_origin.py, ui/test_cli_runs_in_ui.py): the label tag and the repository's name.
    assert REPOSITORY_LABEL_TAG == ".dagster/repository"
    assert SINGLETON_REPOSITORY_NAME == "__repository__" == dg.Definitions().get_repository_def().name


def _private_modules_in(path: Path) -> tuple[set[str], set[str]]:
    """(modules the file imports from dagster._*, dagster._* module paths in its non-docstring strings)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imports: set[str] = set()
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dagster._"):
            imports.add(node.module or "")
        elif isinstance(node, ast.Import):
            imports |= {alias.name for alias in node.names if alias.name.startswith("dagster._")}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            strings |= set(re.findall(r"\bdagster\._[\w.]*\w", node.value))
    return imports, strings


def test_private_dagster_imports_are_the_kept_ones_and_at_most_three():
    imports: dict[str, list[str]] = {}
    strings: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found_imports, found_strings = _private_modules_in(path)
        where = str(path.relative_to(PACKAGE))
        for module in found_imports:
            imports.setdefault(module, []).append(where)
        for module in found_strings:
            strings.setdefault(module, []).append(where)
    kept = {p.module for p in KEPT}
    new = sorted(set(imports) - kept) + sorted(set(strings) - kept)
    assert not new, (
        f"new private Dagster module(s) {new} in {[imports.get(m, strings.get(m)) for m in new]}: use the "
        "public API, or keep it with a comment saying why and add it to KEPT here with an upgrade check"
    )
    assert len(imports) <= MAX_PRIVATE_IMPORTS, sorted(imports)
    # Each kept name is still used (a name no longer used leaves this list).
    assert set(imports) | set(strings) == kept
