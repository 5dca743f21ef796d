"""Issue 58 acceptance 1 (second half): after a full build, a run of one family rebuilds no other family's
mart, and every mart then equals what a full build writes.

Real pipeline, real dbt-duckdb, scripted models (``tests/fakes/scripted_provider.py``: instant answers
from Python, no server).  The home is shared by the module: a full launch of KOR and FLenQA with
``alpha`` (a fresh home builds every dbt model), then a KOR-only launch with ``beta`` (new rows in the
shared raw tables).  dbt's own ``run_results.json`` of that second build says what it built; a third,
``--all-marts`` launch builds everything again and no mart may change.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from relreason_dagster import paths
from relreason_dagster.defs.dbt import load_manifest
from relreason_dagster.defs.dbt_scope import FULL_BUILD_RECORD, family_prefixes, node_family
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import isolated_home, scripted_models_yaml

pytestmark = pytest.mark.integration

OTHER_FAMILIES = ("flenqa", "relational", "selfcontra")


def _answer(messages: list[dict[str, Any]], params: dict[str, Any], flip: bool) -> str:
    """A scripted answer that differs between prompts (so the marts hold more than one value)."""
    odd = (len(messages[-1]["content"]) % 2 == 1) ^ flip
    return "[[A]] The answer is True." if odd else "[[B]] The answer is False."


def _latest_results() -> dict[str, Any]:
    """dbt's run_results.json of the home's newest build (``$RELREASON_HOME/dbt/build-*``)."""
    found = sorted(
        (paths.relreason_home() / "dbt").glob("build-*/run_results.json"), key=lambda p: p.stat().st_mtime
    )
    assert found, "no dbt build folder with run_results.json"
    return json.loads(found[-1].read_text())


def _built(results: dict[str, Any]) -> dict[str, str]:
    """unique_id -> status of every node dbt ran in that build (models and tests)."""
    return {r["unique_id"]: r["status"] for r in results["results"]}


def _marts() -> dict[str, list[str]]:
    """Every relation of schema ``marts`` with its rows, as sorted reprs (NaN equals NaN this way)."""
    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        names = [
            r[0]
            for r in con.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'marts' ORDER BY 1"
            ).fetchall()
        ]
        return {
            name: sorted(repr(row) for row in con.execute(f'SELECT * FROM marts."{name}"').fetchall())
            for name in names
        }
    finally:
        con.close()


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    from relreason_dagster.pipeline import run_models

    root = tmp_path_factory.mktemp("relreason_marts_scope")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, scripted_models_yaml("alpha", "beta", concurrency=4))
    register_scripted_provider()
    set_responder("alpha", lambda messages, params: _answer(messages, params, flip=False))
    set_responder("beta", lambda messages, params: _answer(messages, params, flip=True))
    first = run_models(["alpha"], profile="smoke", benchmarks=["kor", "flenqa"])
    assert first.failures == []
    full = _built(_latest_results())
    record = Path(paths.relreason_home()) / "dbt" / FULL_BUILD_RECORD
    assert record.is_file(), "a full build records itself"
    second = run_models(["beta"], profile="smoke", benchmarks=["kor"])
    assert second.failures == []
    yield {"full": full, "kor": _built(_latest_results()), "marts": _marts()}
    mp.undo()


def _family(uid: str, manifest: dict[str, Any], prefixes: dict[str, str]) -> str | None:
    node = manifest["nodes"].get(uid)
    return node_family(node["fqn"], prefixes) if node else None


def test_a_kor_run_after_a_full_build_builds_no_other_familys_model(home):
    manifest, prefixes = load_manifest(), family_prefixes()
    full, kor = home["full"], home["kor"]
    models = [uid for uid in kor if uid.startswith("model.")]
    # The premise: the full build built the other families' marts, and this one built KOR's and shared ones.
    assert any(_family(uid, manifest, prefixes) == "flenqa" for uid in full)
    assert "model.relreason.kor_accuracy" in kor and "model.relreason.accuracy" in kor
    assert any(uid.startswith("test.") for uid in kor)  # the kept models' data tests ran too
    others = sorted(uid for uid in kor if _family(uid, manifest, prefixes) in OTHER_FAMILIES)
    assert others == []
    assert len(models) < len([uid for uid in full if uid.startswith("model.")])
    assert all(status in ("success", "pass") for status in kor.values()), kor


def test_every_mart_equals_a_full_builds_afterwards(home):
    from relreason_dagster.pipeline import run_models

    reset_calls()
    report = run_models(["beta"], profile="smoke", benchmarks=["kor"], all_marts=True)
    assert report.failures == []
    assert call_count("beta") == 0  # every answer was stored already: only dbt and the figures ran
    rebuilt = _built(_latest_results())
    assert "model.relreason.flenqa_accuracy" in rebuilt  # the premise: this one was a full build
    after = _marts()
    assert sorted(after) == sorted(home["marts"])
    changed = [name for name in after if after[name] != home["marts"][name]]
    assert changed == []
