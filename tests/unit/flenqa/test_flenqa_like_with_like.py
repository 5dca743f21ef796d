"""FLenQA's comparisons say whether they are comparisons (issue 45, acceptance 5 for FLenQA).

A paper-profile run of a scripted model (the family's own ``generate`` / ``build_prompts`` /
``render_gold`` / ``parse``, on a released-format file written here, and on generated items) is stored
in a small DuckDB and the real dbt project builds the FLenQA comparison marts on it.  The study's
cells are not comparable as published.csv stands (its minimal texts are not in its released dataset;
its §1 average and Appendix B token means name neither pool nor tokenizer), so a made-up published
cell marked comparable (model "Made-up model", test-only) checks the other side: ours is comparable
only on the study's released rows, 100 per task as the study pools them.  Every row marked comparable
must then be on the same items and pool.
"""

from __future__ import annotations

from typing import Any

import duckdb
import pytest

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.flenqa.profile_schema import Knobs
from relreason_dagster.profiles import DEFAULT_SEED, get_profile
from relreason_dagster.storage.schema import ensure_schema
from relreason_dagster.storage.study_reference import read_published, store_family
from tests.dbt_home import dbt_build
from tests.unit.flenqa.test_flenqa_dataset import released_rows, write_jsonl

FAMILY = FlenqaFamily()
PAPER = get_profile("paper", "flenqa")
PUBLISHED_CSV = paths.REPO_ROOT / "relreason_dagster" / "benchmarks" / "flenqa" / "published.csv"
MADE_UP = "Made-up model"


def _store(con: duckdb.DuckDBPyConnection, samples: list[Any], profile: Profile, model: str) -> None:
    """What a run stores for a scripted oracle: samples, test prompts and the parsed gold replies."""
    seen = {r[0] for r in con.execute("SELECT sample_id FROM raw.samples").fetchall()}
    for sample in samples:
        if sample.sample_id not in seen:
            _insert(con, "samples", sample.row())
    known = {r[0] for r in con.execute("SELECT prompt_id FROM raw.prompts").fetchall()}
    by_id = {s.sample_id: s for s in samples}
    for prompt in FAMILY.build_prompts(samples, profile):
        if prompt.prompt_id not in known:
            _insert(con, "prompts", {**prompt.row(), "kind": "test", "input_tokens": 10})
        sample = by_id[prompt.sample_id]
        parsed = FAMILY.parse(sample, prompt.setting, FAMILY.render_gold(sample, prompt.setting))
        keys = {
            "prompt_id": prompt.prompt_id,
            "model": model,
            "sample_id": sample.sample_id,
            "benchmark": "flenqa",
            "task": sample.task,
            "split": sample.split,
            "setting": prompt.setting,
        }
        _insert(con, "parsed_answers", parsed.row(keys))


def _insert(con: duckdb.DuckDBPyConnection, table: str, row: dict[str, Any]) -> None:
    names = ", ".join(row)
    con.execute(
        f"INSERT INTO raw.{table} ({names}) VALUES ({', '.join('?' for _ in row)})", list(row.values())
    )


def _made_up_minimal(task: str, n: int, released: bool, start: int, reading: str = "study") -> list[Any]:
    """``n`` minimal-text samples of ``task`` (the test's own: the release has no minimal texts), read
    by ``reading`` (a paper-profile run's samples carry ``study``)."""
    from relreason_dagster.benchmarks.base import Sample

    out = []
    for k in range(start, start + n):
        variant = {"base_id": f"{task}-{k}", "length": 0, "padding": "none", "position": "none"}
        variant["reading"] = reading
        if released:
            variant["source"] = "released"
        out.append(
            Sample(
                benchmark="flenqa",
                task=task,
                sample_id=f"minimal-{task}-{k}-{released}",
                split="minimal",
                n=None,
                variant=variant,
                input={
                    "paragraphs": [f"Key text {k}."],
                    "key_sentences": ["a", "b"],
                    "question": "Is it so?",
                    "rule": "",
                },
                gold=bool(k % 2),
                label=bool(k % 2),
                seed=DEFAULT_SEED,
                generator_version="test",
                gold_pos=k % 2,
                n_cells=1,
            )
        )
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("flenqa_like")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    db = root / "flenqa.duckdb"
    con = duckdb.connect(str(db))
    direct = Profile("direct", {**PAPER.params, "settings": ["direct"], "dataset_file": None}, knobs=Knobs)
    try:
        ensure_schema(con)
        # The paper profile on a released-format file: its 40 rows, every setting.
        released = Profile(
            "paper",
            {**PAPER.params, "dataset_file": str(write_jsonl(root / "FLenQA_hf.jsonl", released_rows()))},
            knobs=Knobs,
        )
        _store(con, FAMILY.generate(released, DEFAULT_SEED), released, "oracle-released")
        # Minimal texts, direct prompt: 100 released (the study's pool), 100 generated, 40 released.
        _store(con, _made_up_minimal("MonoRel", 100, True, 0), direct, "m-pool")
        _store(con, _made_up_minimal("PIR", 100, True, 0), direct, "m-pool")
        _store(con, _made_up_minimal("MonoRel", 100, False, 0), direct, "m-generated")
        _store(con, _made_up_minimal("MonoRel", 40, True, 0), direct, "m-few")
        _store(con, _made_up_minimal("MonoRel", 100, True, 0, "relreason"), direct, "m-ours")
        store_family(con, "flenqa", read_published("flenqa", PUBLISHED_CSV))
        # A made-up published cell the study could have released: MonoRel direct minimal, comparable.
        row = {
            "family": "flenqa",
            "source": "Appendix C Table 1",
            "model": MADE_UP,
            "task": "MonoRel",
            "setting": "direct",
            "length": 0,
            "padding": "none",
            "position": "none",
            "metric": "accuracy",
            "value": 0.5,
            "printed": "0.50",
            "keys": "{}",
            "line": 999,
            "comparable": True,
        }
        _insert(con, "study_reference", row)
    finally:
        con.close()
    dbt_build(db, root, select="+flenqa_vs_study +flenqa_token_stats +flenqa_model_average")
    read = duckdb.connect(str(db), read_only=True)
    yield read
    read.close()
    mp.undo()


def _dicts(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    cursor = con.execute(sql)
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]


def test_every_comparable_row_is_on_the_studys_items_and_pool(built):
    rows = _dicts(built, "SELECT * FROM marts.flenqa_vs_study")
    ours = {(r["model"], r["task"]): r for r in rows if not r["published"]}
    comparable = [r for r in rows if r["comparable"]]
    assert {(r["model"], r["task"]) for r in comparable} == {(MADE_UP, "MonoRel"), ("m-pool", "MonoRel")}
    for r in comparable:
        if r["published"]:
            continue
        sources = built.execute(
            "SELECT item_source, count(*) FROM intermediate.int_flenqa_answers WHERE model = ? AND task = ? "
            "AND setting = ? AND length = 0 GROUP BY ALL",
            [r["model"], r["task"], r["setting"]],
        ).fetchall()
        assert sources == [("released", 100)] and r["n"] == 100
    assert ours[("m-pool", "PIR")]["why_not"].startswith("the study's minimal texts")
    assert ours[("m-generated", "MonoRel")]["why_not"] == "generated items, not the study's released dataset"
    assert ours[("m-few", "MonoRel")]["why_not"] == "40 answers where the study pools 100 per task"
    # the study's items and pool, read by relreason's rules: not what the study's numbers read
    assert ours[("m-ours", "MonoRel")]["why_not"].startswith("read by relreason's rules")
    assert all(r["why_not"] for r in rows if not r["comparable"])
    assert not any(r["why_not"] for r in rows if r["comparable"])


def test_the_released_run_stands_beside_the_token_means_and_the_headline_marked_not_comparable(built):
    tokens = _dicts(built, "SELECT * FROM marts.flenqa_token_stats")
    ours = [r for r in tokens if not r["published"]]
    assert {r["item_source"] for r in ours} == {"released"}
    assert {(r["task"], r["n"]) for r in ours} == {("PIR", 4)}  # 4 dispersions per padding x length
    assert len([r for r in tokens if r["published"]]) == 30  # Figures 10-12 in published.csv
    assert not any(r["comparable"] for r in tokens)
    assert {r["why_not"] for r in tokens} == {
        "the text does not name the tokenizer these means were counted with"
    }
    average = _dicts(
        built, "SELECT * FROM marts.flenqa_model_average ORDER BY published, setting, length NULLS FIRST"
    )
    published = [r for r in average if r["published"]]
    assert [(r["length"], r["value"]) for r in published] == [(None, 0.92), (3000, 0.68)]
    ours = [r for r in average if not r["published"]]
    assert {(r["setting"], r["n_models"], r["value"]) for r in ours} >= {("direct", 1, 1.0)}
    assert not any(r["comparable"] for r in average) and all(r["why_not"] for r in average)
