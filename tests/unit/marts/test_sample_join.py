"""marts.sample_results (the per-sample join) on a real tiny home, and the commands that read it.

The home is built by the real pipeline (DuckDB, lake, dbt) at the smoke profile on the relational
family, answered by two scripted (fake) models whose answers are known: ``oracle`` replies with the
gold answer in the prompt's format (every answer correct), ``junk`` replies text no parser reads
(every answer ``na``), stopped at the token limit (``finish_reason: length``: every answer cut).
"""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.cli import main
from relreason_dagster.results.readonly import open_results
from relreason_dagster.results.samples import sample_rows
from tests.fakes.scripted_provider import register_scripted_provider, set_responder
from tests.pipeline_home import isolated_home, rows, scripted_models_yaml

MODELS_YAML = scripted_models_yaml("oracle", "junk")
JUNK = (
    "Hmm.\nI would rather not say ¯\\_(ツ)_/¯ — the family tree is long and I lost my place in it, "
    "twice.\nSo: no answer here."
)


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("samples")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, MODELS_YAML)
    family = get_family("relational")
    profile = profiles.get_profile("smoke", "relational")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    built = family.build_prompts(samples, profile)
    gold_by_text = {
        p.messages[-1]["content"]: family.render_gold(by_id[p.sample_id], p.setting) for p in built
    }
    register_scripted_provider()
    set_responder("oracle", lambda messages, params: gold_by_text[messages[-1]["content"]])
    set_responder("junk", lambda messages, params: {"content": JUNK, "finish_reason": "length"})
    from relreason_dagster.pipeline import run_models

    report = run_models(["oracle", "junk"], profile="smoke", benchmarks=["relational"])
    assert report.failures == []
    yield {"n_prompts": len(built), "gold": gold_by_text}
    mp.undo()


@pytest.fixture
def con(home):
    con = open_results()
    yield con
    con.close()


def test_one_row_per_prompt_and_model_with_gold_and_score(home, con):
    found = sample_rows(con)
    assert len(found) == 2 * home["n_prompts"]
    keys = {(r["prompt_id"], r["model"]) for r in found}
    assert len(keys) == len(found)
    prompts = {p for (p,) in rows("SELECT prompt_id FROM raw.prompts WHERE benchmark = 'relational'")}
    assert {p for p, _ in keys} == prompts
    for r in found:
        assert r["gold"] is not None and r["f1"] is not None and r["correct"] is not None, r
        assert isinstance(r["messages"], list) and r["messages"][-1]["role"] == "user"
        assert r["split"] in ("iid", "ood")
    oracle = [r for r in found if r["model"] == "oracle"]
    assert all(r["outcome"] == "correct" and r["f1"] == 1.0 and r["parse_status"] == "ok" for r in oracle)
    # The full response is stored and shown: the oracle's is the gold text of that very prompt.
    for r in oracle:
        assert r["response"] == home["gold"][r["messages"][-1]["content"]]
    junk = [r for r in found if r["model"] == "junk"]
    assert all(r["outcome"] == "na" and r["f1"] == 0.0 and r["response"] == JUNK for r in junk)
    assert all(r["tp"] == 0 and r["fp"] == 0 for r in junk)  # nothing predicted


def test_filters_and_limit(home, con):
    assert {r["model"] for r in sample_rows(con, model="junk")} == {"junk"}
    assert sample_rows(con, model="oracle", outcome="na") == []
    assert len(sample_rows(con, outcome="na")) == home["n_prompts"]
    assert sample_rows(con, outcome="wrong") == []
    some = sample_rows(con, task="HasFather", setting="nl", limit=3)
    assert 0 < len(some) <= 3 and all(r["task"] == "HasFather" and r["setting"] == "nl" for r in some)


def test_samples_command_prints_whole_prompts_and_responses(home, capsys):
    assert main(["samples", "--model", "junk", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    first = sample_rows_cached(home)[0]
    assert first["messages"][-1]["content"] in out  # the whole prompt, newlines kept
    assert out.count(JUNK) == 2
    assert out.count("served by scripted/junk") == 2  # the model the (scripted) provider said answered
    assert "parsed (na)" in out and "F1 0" in out
    assert main(["samples", "--model", "oracle", "--task", "HasFather", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data and all(d["model"] == "oracle" and d["task"] == "HasFather" and d["f1"] == 1.0 for d in data)
    assert {d["served_model"] for d in data} == {"scripted/oracle"}
    assert main(["samples", "--model", "oracle", "--wrong"]) == 0
    assert "no samples match" in capsys.readouterr().out


def test_samples_cut_shows_the_answers_the_budget_stopped(home, capsys):
    assert main(["samples", "--cut", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count(JUNK) == 2 and out.count("| na (cut by the budget) ===") == 2
    assert main(["samples", "--cut", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert len(data) == home["n_prompts"] and {(d["model"], d["cut"], d["finish_reason"]) for d in data} == {
        ("junk", True, "length")
    }
    assert main(["samples", "--cut", "--model", "oracle"]) == 0
    assert "no samples match" in capsys.readouterr().out


def sample_rows_cached(home):
    con = open_results()
    try:
        return sample_rows(con, model="junk", limit=2)
    finally:
        con.close()


def test_export_writes_every_mart_and_the_sample_join(home, tmp_path, capsys):
    out = tmp_path / "export"
    assert main(["export", "--format", "parquet", "--out", str(out)]) == 0
    files = {p.stem: pq.read_table(p).num_rows for p in out.glob("*.parquet")}
    marts = {
        n for (n,) in rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'marts'")
    }
    assert set(files) == marts and "sample_results" in files and "relational_f1" in files
    assert files["sample_results"] == 2 * home["n_prompts"]
    assert main(["export", "--format", "jsonl", "--out", str(out)]) == 0
    lines = (out / "sample_results.jsonl").read_text().splitlines()
    assert len(lines) == 2 * home["n_prompts"]
    assert {json.loads(line)["model"] for line in lines} == {"oracle", "junk"}
    capsys.readouterr()


def test_sql_max_width_zero_prints_a_whole_response(home, capsys):
    assert (
        main(["sql", "--max-width", "0", "SELECT content FROM raw.responses WHERE model = 'junk' LIMIT 1"])
        == 0
    )
    out = capsys.readouterr().out
    assert "no answer here." in out and "…" not in out
    assert main(["sql", "SELECT content FROM raw.responses WHERE model = 'junk' LIMIT 1"]) == 0
    assert "no answer here." not in capsys.readouterr().out  # the default still cuts long cells


def test_every_mart_shows_its_row_count_and_a_preview(home):
    """FLenQA's marts too (empty here), and "N more rows" counts the rows, not a LIMIT."""
    import dagster as dg

    instance = dg.DagsterInstance.get()
    marts = {
        n for (n,) in rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'marts'")
    }
    assert {"flenqa_accuracy", "answer_scores", "sample_results"} <= marts
    for name in marts:
        event = instance.get_latest_materialization_event(dg.AssetKey(["marts", name]))
        assert event is not None, name
        metadata = event.asset_materialization.metadata
        count = rows(f"SELECT count(*) FROM marts.{name}")[0][0]
        assert metadata["rows"].value == count, name
        preview = metadata["preview"].value
        if count > 40:
            assert f"{count - 40} more rows ({count} in all)" in preview, name
        else:
            assert "more rows" not in preview, name
    assert rows("SELECT count(*) FROM marts.answer_scores")[0][0] == 2 * home["n_prompts"] > 41


def test_status_reads_a_check_on_no_rows_as_skipped(home, capsys):
    """A relational-only run leaves FLenQA's padding check nothing to look at."""
    assert rows("SELECT count(*) FROM raw.samples WHERE benchmark = 'flenqa'") == [(0,)]
    assert main(["status", "--profile", "smoke"]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "padding_entities_check" in line]
    assert lines and all("skipped (no rows)" in line for line in lines), lines
