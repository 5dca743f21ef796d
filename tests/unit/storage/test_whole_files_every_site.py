"""Every file relreason writes for the user is written whole or not at all, even when the disk fills.

Before: most write sites rewrote their file in place (``Path.write_text``), so a full disk mid-write
left it cut off (``models.yaml`` ending mid-entry broke every later command), and the sites that wrote
aside and renamed left their temporary file behind on a failure.  Here each site writes while files
may not grow past a few bytes (``RLIMIT_FSIZE``, the size-limited write that stands in for a full disk
without root: the write fails as on a full disk, EFBIG instead of ENOSPC); the old file must be left
byte for byte, and nothing else be left in its folder.
"""

from __future__ import annotations

import resource
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

from relreason_dagster.errors import ConfigError

OLD = b"old: whole\n"
LIMIT = 64  # bytes a file may grow to while the site writes: every new content here is longer


@contextmanager
def _disk_fills_at(limit: int) -> Iterator[None]:
    """Files of this process may not grow past ``limit`` bytes; a write beyond fails (EFBIG)."""
    old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    old_limit = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old_limit[1]))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, old_limit)
        signal.signal(signal.SIGXFSZ, old_handler)


def _models_yaml(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster.llm.registry import add_model

    path = tmp_path / "models.yaml"
    path.write_bytes(b"models:\n  - name: mine\n    litellm_model: openai/gpt-4o\n")
    return path, lambda: add_model(path, "extra", "openai/gpt-4o-mini", params={"temperature": 0})


def _report_con(tmp_path: Path) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect(str(tmp_path / "results.duckdb"))
    con.execute("CREATE SCHEMA marts")
    con.execute("CREATE SCHEMA raw")
    return con


def _report_page(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster.results import report

    monkeypatch.setattr(report, "render", lambda spec, con, out_dir=None: (b"png", {}))  # the page alone
    out = tmp_path / "report"
    out.mkdir()
    con = _report_con(tmp_path)
    return out / "report.html", lambda: report.build_report(con, out)


def _report_figure(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    import matplotlib.pyplot  # noqa: F401 - its font cache is written before the limit, not under it

    from relreason_dagster.results import figures, report

    out = tmp_path / "report"
    out.mkdir()
    first = figures.report_sections()[0].figures[0]
    con = _report_con(tmp_path)
    return out / first.file_name, lambda: report.build_report(con, out)


def _export(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster.results.export import export_results

    con = _report_con(tmp_path)
    con.execute("CREATE TABLE marts.accuracy AS SELECT range AS i, 'text ' || range AS t FROM range(1000)")
    out = tmp_path / "export"
    out.mkdir()
    return out / "accuracy.parquet", lambda: export_results(con, out, "parquet")


def _annotations(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster.benchmarks.selfcontra.annotations import export_for_annotation

    path = tmp_path / "to_label.csv"
    records = [{"question": "Is it?", "response": "Yes, because " * 20, "model": "m"}]
    return path, lambda: export_for_annotation(records, path)


def _study_lines(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster.benchmarks.selfcontra import study_items

    path = tmp_path / "winobias_study_lines.txt"
    (tmp_path / "reference" / "wino" / "selfcontra_annotations").mkdir(parents=True)
    monkeypatch.setenv("RELREASON_REFERENCE_DIR", str(tmp_path / "reference"))
    monkeypatch.setattr(study_items, "LINES_FILE", path)
    monkeypatch.setattr(study_items, "derive_from_reference", lambda wino: ([], []))
    monkeypatch.setattr(study_items, "render_lines_file", lambda lines, sources: "# the list\n" * 20)
    return path, lambda: study_items.main(["--write"])


def _launch_record(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster.storage import launch_record

    monkeypatch.setenv("RELREASON_HOME", str(tmp_path))
    path = tmp_path / launch_record.RECORD_NAME
    return path, lambda: launch_record.write_record("f" * 64, {"calls": 12, "models": ["m"] * 20}, 1.0)


def _dagster_yaml(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster import env

    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    monkeypatch.setattr(env, "_dagster_home_set_here", None)
    path = tmp_path / "dagster" / "dagster.yaml"
    path.parent.mkdir()
    old = b"# Written by relreason, an older version\n"
    path.write_bytes(old)
    return path, lambda: env.ensure_dagster_home(tmp_path)


def _celery_config(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster.cli.commands.worker import write_celery_config

    return tmp_path / "dagster_celery_config.py", lambda: write_celery_config(tmp_path)


def _dbt_file(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster.defs.dbt_families import write_if_changed

    path = tmp_path / "families.yml"
    return path, lambda: write_if_changed(path, "version: 2\n" + "# a generated line\n" * 10)


def _dlm_checkpoint(tmp_path: Path, monkeypatch) -> tuple[Path, Callable[[], object]]:
    from relreason_dagster.benchmarks.relational.dlm.checkpoint import save_checkpoint
    from relreason_dagster.benchmarks.relational.dlm.config import DLMConfig
    from relreason_dagster.benchmarks.relational.dlm.model import DLM

    model = DLM(n_base=2, target_arity=2, config=DLMConfig(depth=1, breadth=2, predicates=2))
    path = tmp_path / "dlm.pt"
    return path, lambda: save_checkpoint(model, path)


SITES = {
    "models.yaml": _models_yaml,
    "report.html": _report_page,
    "report figure": _report_figure,
    "export": _export,
    "selfcontra annotation export": _annotations,
    "selfcontra study_items lines": _study_lines,
    "launch record": _launch_record,
    "dagster.yaml": _dagster_yaml,
    "worker celery config": _celery_config,
    "dbt family file": _dbt_file,
    "DLM checkpoint": _dlm_checkpoint,
}


@pytest.mark.parametrize("site", list(SITES))
def test_a_write_that_fills_the_disk_leaves_the_old_file_whole_and_nothing_else(site, tmp_path, monkeypatch):
    work = tmp_path / "site"
    work.mkdir()
    target, write = SITES[site](work, monkeypatch)
    if not target.exists():
        target.write_bytes(OLD)
    old = target.read_bytes()
    before = sorted(p.name for p in target.parent.iterdir())
    with pytest.raises((OSError, ConfigError)), _disk_fills_at(LIMIT):
        write()
    assert target.read_bytes() == old  # the old file, byte for byte: not cut, not emptied
    assert sorted(p.name for p in target.parent.iterdir()) == before  # no temporary file left behind
    write()  # with room again, the site writes its whole file
    assert target.read_bytes() != old


def test_a_write_that_fails_names_the_file_in_one_line(tmp_path):
    from relreason_dagster.llm.registry import NewModel, add_models

    path = tmp_path / "models.yaml"
    path.write_text("models:\n")
    with pytest.raises(ConfigError) as caught, _disk_fills_at(LIMIT):
        add_models(path, [NewModel("extra", "openai/gpt-4o-mini", {"temperature": 0, "top_p": 1})])
    message = str(caught.value)
    assert "\n" not in message and str(path) in message and "free space" in message
    assert path.read_text() == "models:\n"
