"""FLenQA's comparisons say whether they are comparisons (issue 45, acceptance 5 for FLenQA).

A paper-profile run of a scripted model (the family's own ``generate`` / ``build_prompts`` /
``render_gold`` / ``parse``, on released-format files written here, and on generated items) is stored
in a small DuckDB and the real dbt project builds the FLenQA comparison marts on it.  Appendix C's
cells are comparable as published.csv stands: a run on the released rows asks the study's own minimal
texts, read from the rows' key paragraphs (``released_keys.py``); its §1 average and Appendix B token
means name neither pool nor tokenizer and are not.  Ours is comparable only on the study's released
rows, read by its rules, 100 per task as the study pools them: a file of 100 MonoRel problems in the
released format (``m-keys``) gives exactly that, and every row marked comparable must be on those
items and pool.
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


def _keys_file_rows() -> list[dict[str, Any]]:
    """100 MonoRel problems as the release has them at 250 tokens with the keys last: the two key
    paragraphs alone, joined by a newline (Appendix B; §3.1), once per padding type."""
    out = []
    for k in range(100):
        facts = [f"Ann Vale{k} is older than Bo Lund{k}.", f"Cy Marsh{k} is older than Ann Vale{k}."]
        keys = [
            f"{facts[0]} She was born in a cold winter, years before him, and she still remembers the old "
            "town as it was then.",
            f"{facts[1]} He has had more birthdays than she has, and he likes to remind her of it whenever "
            "they meet.",
        ]
        for n, padding in enumerate(("same", "books")):
            out.append(
                {
                    "global_sample_id": 5000 + 2 * k + n,
                    "sample_id": k,
                    "label": bool(k % 2),
                    "dataset": "MonoRel",
                    "facts": facts,
                    "assertion/question": f"Is Cy Marsh{k} older than Bo Lund{k}?",
                    "mixin": "\n".join(keys),
                    "padding_type": padding,
                    "dispersion": "last",
                    "ctx_size": 250,
                }
            )
    return out


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
    """``n`` minimal-text samples of ``task``, made up for the test (``released`` marks them as the
    study's items), read by ``reading`` (a paper-profile run's samples carry ``study``)."""
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
        # 100 MonoRel problems in the released format: their minimal texts are read from the rows.
        keys = Profile(
            "keys",
            {
                **PAPER.params,
                "dataset_file": str(write_jsonl(root / "keys.jsonl", _keys_file_rows())),
                "settings": ["direct"],
                "lengths": [250],
                "paddings": ["similar", "different"],
            },
            knobs=Knobs,
        )
        _store(con, FAMILY.generate(keys, DEFAULT_SEED), keys, "m-keys")
        store_family(con, "flenqa", read_published("flenqa", PUBLISHED_CSV))
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
    ours = {(r["model"], r["task"], r["setting"]): r for r in rows if not r["published"]}
    comparable = [r for r in rows if r["comparable"]]
    assert {(r["model"], r["task"]) for r in comparable if not r["published"]} == {
        ("m-pool", "MonoRel"),
        ("m-pool", "PIR"),
        ("m-keys", "MonoRel"),
    }
    published = [r for r in rows if r["published"]]
    assert published and all(r["comparable"] for r in published)  # Appendix C, beside tasks we ran
    # m-keys's minimal texts are the files' rows, read from their key paragraphs: the rows' mixin whole
    texts = built.execute(
        "SELECT DISTINCT json_extract_string(input, '$.paragraphs[0]') FROM raw.samples "
        "WHERE split = 'minimal' AND task = 'MonoRel' AND generator_version = 'flenqa-released-keys-1'"
    ).fetchall()
    assert sorted(t for (t,) in texts) == sorted({r["mixin"] for r in _keys_file_rows()})
    for r in comparable:
        if r["published"]:
            continue
        sources = built.execute(
            "SELECT item_source, count(*) FROM intermediate.int_flenqa_answers WHERE model = ? AND task = ? "
            "AND setting = ? AND length = 0 GROUP BY ALL",
            [r["model"], r["task"], r["setting"]],
        ).fetchall()
        assert sources == [("released", 100)] and r["n"] == 100
    # the released-format file of one PIR problem: its minimal text, built from its rows, is one answer
    for setting in ("direct", "cot"):
        assert (
            ours[("oracle-released", "PIR", setting)]["why_not"]
            == "1 answers where the study pools 100 per task"
        )
    assert ours[("m-generated", "MonoRel", "direct")]["why_not"] == (
        "generated items, not the study's released dataset"
    )
    assert ours[("m-few", "MonoRel", "direct")]["why_not"] == "40 answers where the study pools 100 per task"
    # the study's items and pool, read by relreason's rules: not what the study's numbers read
    assert ours[("m-ours", "MonoRel", "direct")]["why_not"].startswith("read by relreason's rules")
    assert all(r["why_not"] for r in rows if not r["comparable"])
    assert not any(r["why_not"] for r in rows if r["comparable"])


def test_the_released_run_stands_beside_the_token_means_and_the_headline_marked_not_comparable(built):
    tokens = _dicts(built, "SELECT * FROM marts.flenqa_token_stats")
    ours = [r for r in tokens if not r["published"]]
    # 4 dispersions per padding x length of the PIR file (its duplicate padding built around its key
    # paragraphs at position first only), and m-keys's 100 MonoRel problems at 250 tokens per padding
    assert {(r["task"], r["item_source"], r["n"]) for r in ours} == {
        ("PIR", "released", 4),
        ("PIR", "released-keys", 1),
        ("MonoRel", "released", 100),
    }
    assert len([r for r in tokens if r["published"]]) == 30  # Figures 10-12 in published.csv
    assert not any(r["comparable"] for r in tokens)
    assert {r["why_not"] for r in tokens} == {
        "the text does not name the tokenizer these means were counted with",
        "the study printed no mean for this task, padding and length",  # duplicate padding
    }
    average = _dicts(
        built, "SELECT * FROM marts.flenqa_model_average ORDER BY published, setting, length NULLS FIRST"
    )
    published = [r for r in average if r["published"]]
    assert [(r["length"], r["value"]) for r in published] == [(None, 0.92), (3000, 0.68)]
    ours = [r for r in average if not r["published"]]
    assert {(r["setting"], r["n_models"], r["value"]) for r in ours} >= {("direct", 1, 1.0)}
    assert not any(r["comparable"] for r in average) and all(r["why_not"] for r in average)
