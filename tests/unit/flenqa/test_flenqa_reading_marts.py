"""``flenqa_cot`` says which rules read each row, and is comparable with the study only under its rules.

A scripted oracle (named as such: its CoT reply is the verdict first, then both key sentences verbatim)
answers the paper profile's prompts on a released-format file (``test_flenqa_dataset.released_rows``:
one PIR problem in the release's 40 variants).  The family's own ``parse`` reads the same replies three
ways, one model each: the study's reading on the released rows (``m-study``), relreason's on the same
rows (``m-relreason``), and the study's on the same texts marked as generated items (``m-generated``,
with duplicate padding); ``m-duplicate`` is ``m-study`` with the duplicate padding built around the rows'
key paragraphs.  On a duplicate-padded text both answer wrong, late and without the key sentences, so a
cell that pooled them with the study's paddings would show it.
The real dbt project then builds ``flenqa_cot`` and ``flenqa_cot_dependence``.  The reply has 12 words
after its verdict, so the study's answer-first rule (the verdict within the first 10 characters) calls
every reply early and relreason's (15 words of reasoning after it) none: the two readings differ on the
same text, and only ``m-study`` may stand beside the study's Figure 8.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import duckdb
import pytest

from relreason_dagster.benchmarks.base import Profile, Sample
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.flenqa.profile_schema import Knobs
from relreason_dagster.profiles import DEFAULT_SEED, get_profile
from relreason_dagster.storage.schema import ensure_schema
from tests.dbt_home import dbt_build, dicts, insert
from tests.unit.flenqa.test_flenqa_dataset import released_rows, write_jsonl

FAMILY = FlenqaFamily()
PAPER = get_profile("paper", "flenqa")
# A dbt build of the FLenQA CoT marts: 85 s measured beside two full test suites on 2 cores, so the
# ini's 300 s would leave less than the rule's 5x margin.
pytestmark = pytest.mark.timeout(600)


def _oracle(sample: Sample, setting: str) -> str:
    """The scripted oracle's reply: the verdict, then the two key sentences (CoT), or the verdict alone."""
    verdict = "True" if sample.label else "False"
    if setting == "cot":
        return f"{verdict}. " + " ".join(sample.input["key_sentences"])
    return verdict


def _astray_on_duplicates(sample: Sample, setting: str) -> str:
    """The oracle, except on duplicate padding: the wrong verdict, last, with no key sentence."""
    if sample.variant["padding"] != "duplicate":
        return _oracle(sample, setting)
    wrong = "False" if sample.label else "True"
    return f"I have read every paragraph of the text above and so my answer is {wrong}."


def _store(
    con: duckdb.DuckDBPyConnection,
    samples: list[Sample],
    profile: Profile,
    model: str,
    rules: str,
    reply: Callable[[Sample, str], str] = _oracle,
) -> None:
    """Samples, test prompts and the oracle's replies parsed under ``rules`` (the sample's reading)."""
    stored = {r[0] for r in con.execute("SELECT sample_id FROM raw.samples").fetchall()}
    known = {r[0] for r in con.execute("SELECT prompt_id FROM raw.prompts").fetchall()}
    by_id = {s.sample_id: s for s in samples}
    for sample in samples:
        if sample.sample_id not in stored:
            insert(con, "samples", sample.row())
    for prompt in FAMILY.build_prompts(samples, profile):
        if prompt.setting == "next_word":
            continue
        if prompt.prompt_id not in known:
            insert(con, "prompts", {**prompt.row(), "kind": "test", "input_tokens": 10})
        sample = by_id[prompt.sample_id]
        read_as = replace(sample, variant={**sample.variant, "reading": rules})
        parsed = FAMILY.parse(read_as, prompt.setting, reply(sample, prompt.setting))
        keys = {
            "prompt_id": prompt.prompt_id,
            "model": model,
            "sample_id": sample.sample_id,
            "benchmark": "flenqa",
            "task": sample.task,
            "split": sample.split,
            "setting": prompt.setting,
        }
        insert(con, "parsed_answers", parsed.row(keys))


def _as_generated(sample: Sample) -> Sample:
    variant = {k: v for k, v in sample.variant.items() if k != "source"}
    return replace(sample, sample_id=f"{sample.sample_id}-generated", variant=variant)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("flenqa_reading")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    db = root / "flenqa.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        file = write_jsonl(root / "FLenQA_hf.jsonl", released_rows())
        profile = Profile("paper", {**PAPER.params, "dataset_file": str(file)}, knobs=Knobs)
        every = FAMILY.generate(profile, DEFAULT_SEED)
        # The rows and the minimal text read from them (released_keys.py); the duplicate padding built
        # around their key paragraphs goes to a model of its own (m-duplicate).
        samples = [s for s in every if s.variant["padding"] != "duplicate"]
        _store(con, samples, profile, "m-study", "study")
        _store(con, every, profile, "m-duplicate", "study", _astray_on_duplicates)
        _store(con, samples, profile, "m-relreason", "relreason")
        generated = [_as_generated(s) for s in every]
        _store(con, generated, profile, "m-generated", "study", _astray_on_duplicates)
    finally:
        con.close()
    dbt_build(db, root, select="+flenqa_cot +flenqa_cot_dependence")
    read = duckdb.connect(str(db), read_only=True)
    yield {"con": read}
    read.close()
    mp.undo()


def test_flenqa_cot_says_which_reading_and_is_comparable_only_under_the_studys(built):
    rows = dicts(built["con"], "SELECT * FROM marts.flenqa_cot ORDER BY model, length, padding")
    by_model: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_model.setdefault(r["model"], []).append(r)
    assert set(by_model) == {"m-study", "m-relreason", "m-generated", "m-duplicate"}
    assert {r["reading"] for r in by_model["m-study"]} == {"study"}
    assert {r["reading"] for r in by_model["m-relreason"]} == {"relreason"}
    # every length of the release: 2 paddings x 4 dispersions of the one problem per point; length 0:
    # the problem's minimal text, read from its rows, in a row of its own
    pooled = {(x, "similar+different", 8) for x in (250, 500, 1000, 2000, 3000)}
    assert {(r["length"], r["padding"], r["n"]) for r in by_model["m-study"]} == {(0, "none", 1)} | pooled
    for r in by_model["m-study"]:
        assert (r["answer_first_rate"], r["coverage_rate"], r["accuracy"]) == (1.0, 1.0, 1.0)
        if r["length"] == 0:  # the study's text, but no point of its Figures 8-9
            assert r["comparable"] is False and r["why_not"].startswith("the minimal text")
        else:
            assert (r["comparable"], r["why_not"]) == (True, None)
    for r in by_model["m-relreason"]:
        assert r["comparable"] is False and "relreason" in r["why_not"]
        assert (r["answer_first_rate"], r["coverage_rate"]) == (0.0, 1.0)  # 12 words after: not first
    for r in by_model["m-generated"]:
        assert r["comparable"] is False
        if r["padding"] == "similar+different":
            assert r["why_not"] == "generated items, not the study's released dataset"


def test_duplicate_padding_never_moves_the_figure_8_cells(built):
    """A paper run on a released-format file with the duplicate padding built around its key paragraphs
    (one a length, at position first): the cells beside Figures 8-9 pool the released same and books
    rows only, exactly as without the duplicates, and stay comparable; the duplicates, answered wrong,
    late and without the keys here, are in rows of their own, marked why.  A generated-items run is kept
    apart the same way."""
    sql = (
        "SELECT length, padding, n, accuracy, answer_first_rate, coverage_rate, comparable, why_not"
        " FROM marts.flenqa_cot WHERE model = ? ORDER BY length, padding"
    )
    study = dicts(built["con"], sql, ["m-study"])
    with_duplicates = dicts(built["con"], sql, ["m-duplicate"])
    assert [r for r in with_duplicates if r["padding"] != "duplicate"] == study
    assert [r for r in with_duplicates if r["comparable"]] == [r for r in study if r["comparable"]]
    assert len([r for r in study if r["comparable"]]) == 5
    for rows in (with_duplicates, dicts(built["con"], sql, ["m-generated"])):
        duplicate = [r for r in rows if r["padding"] == "duplicate"]
        assert [(r["length"], r["n"]) for r in duplicate] == [(x, 1) for x in (250, 500, 1000, 2000, 3000)]
        for r in duplicate:
            assert (r["accuracy"], r["answer_first_rate"], r["coverage_rate"]) == (0.0, 0.0, 0.0)
            assert r["comparable"] is False and r["why_not"].startswith("duplicate padding:")
        pooled = [r for r in rows if r["padding"] == "similar+different"]
        assert {(r["n"], r["accuracy"], r["answer_first_rate"], r["coverage_rate"]) for r in pooled} == {
            (8, 1.0, 1.0, 1.0)
        }


def test_the_dependence_tests_are_kept_apart_by_reading(built):
    rows = dicts(
        built["con"],
        "SELECT model, reading, count(*) AS n_rows, sum(n_exposed) AS exposed"
        " FROM marts.flenqa_cot_dependence WHERE factor = 'answer_first' GROUP BY ALL ORDER BY model",
    )
    assert [(r["model"], r["reading"], r["n_rows"], r["exposed"]) for r in rows] == [
        ("m-duplicate", "study", 6, 41),  # the 5 built duplicate texts answered late: not exposed
        ("m-generated", "study", 6, 41),  # 5 lengths and the minimal text
        ("m-relreason", "relreason", 6, 0),
        ("m-study", "study", 6, 41),
    ]
