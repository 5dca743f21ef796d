"""The study's released FLenQA dataset as the `paper` profile's items (issue 45, acceptance 4).

The files here are written by the tests in the released format (the fields of the study's analysis
notebook: ``global_sample_id, sample_id, label, dataset, facts`` or ``rule`` + ``statement``,
``assertion/question, mixin, padding_type, dispersion, ctx_size``) with texts made up for the test:
one People-In-Rooms problem in its 40 variants (5 lengths x 2 paddings x 4 dispersions), as the
release holds 40 per problem.  A run on such a file must generate nothing of its own and ask the
file's text byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.flenqa import dataset
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.flenqa.profile_schema import Knobs
from relreason_dagster.benchmarks.flenqa.prompts import NEXT_WORD, split_last_word
from relreason_dagster.cli import main
from relreason_dagster.errors import ConfigError
from relreason_dagster.profiles import DEFAULT_SEED, get_profile

FAMILY = FlenqaFamily()
PAPER = get_profile("paper", "flenqa")
LENGTHS = (250, 500, 1000, 2000, 3000)
PADDINGS = ("same", "books")
DISPERSIONS = ("first", "middle", "last", "random")
FACTS = ["Wren Halloway walked into the pantry.", "The pantry has a teal door."]
QUESTION = "Is Wren Halloway in a room with a teal door?"


def _mixin(length: int, padding: str, dispersion: str) -> str:
    """A made-up padded text: filler sentences with the two facts placed by ``dispersion``."""
    filler = [
        f"{'The ferry left at dawn' if padding == 'books' else 'Ivo Brandt carried a lamp'} ({k})."
        for k in range(length // 25)
    ]
    at = {"first": 0, "middle": len(filler) // 2, "last": len(filler), "random": len(filler) // 3}[dispersion]
    if dispersion == "random":
        return " ".join([*filler[:at], FACTS[0], *filler[at : 2 * at], FACTS[1], *filler[2 * at :]])
    return " ".join([*filler[:at], *FACTS, *filler[at:]])


def released_rows() -> list[dict[str, Any]]:
    """One PIR problem in the release's 40 variants."""
    rows = []
    for n, (length, padding, dispersion) in enumerate(
        (x, p, d) for x in LENGTHS for p in PADDINGS for d in DISPERSIONS
    ):
        rows.append(
            {
                "global_sample_id": 7000 + n,
                "sample_id": 7,
                "label": "True",
                "dataset": "PIR",
                "facts": FACTS,
                "assertion/question": QUESTION,
                "mixin": _mixin(length, padding, dispersion),
                "padding_type": padding,
                "dispersion": dispersion,
                "ctx_size": length,
            }
        )
    return rows


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write((row if isinstance(row, str) else json.dumps(row)) + "\n")
    return path


def _paper_on(path: Path | str) -> Profile:
    return Profile("paper", {**PAPER.params, "dataset_file": str(path)}, knobs=Knobs)


def test_paper_on_a_released_file_generates_nothing_and_asks_its_text_verbatim(tmp_path):
    rows = released_rows()
    assert len(rows) == 40
    profile = _paper_on(write_jsonl(tmp_path / "FLenQA_hf.jsonl", rows))
    every = FAMILY.generate(profile, DEFAULT_SEED)
    # Beside the rows, only what the release lacks, built from their key paragraphs
    # (test_flenqa_released_keys.py): the minimal text and a duplicate-padded text per length at the
    # position Figure 3 reads.
    samples = [s for s in every if s.generator_version == dataset.RELEASED_VERSION]
    built = [s for s in every if s.generator_version != dataset.RELEASED_VERSION]
    assert sorted(s.variant["padding"] for s in built) == ["duplicate"] * 5 + ["none"]
    assert len(samples) == 40  # one per row: no generated item
    assert {s.variant["source"] for s in samples} == {"released"}
    assert {s.split for s in samples} == {"test"}
    by_text = {s.input["paragraphs"][0]: s for s in samples}
    assert set(by_text) == {r["mixin"] for r in rows}
    cells = {(s.variant["length"], s.variant["padding"], s.variant["position"]) for s in samples}
    assert cells == {(x, p, d) for x in LENGTHS for p in ("similar", "different") for d in DISPERSIONS}
    prompts = FAMILY.build_prompts(samples, profile)
    assert len(prompts) == 40 * len(profile.values().settings)
    text_of = {s.sample_id: s.input["paragraphs"][0] for s in samples}
    for prompt in prompts:
        message = prompt.messages[0]["content"]
        text = text_of[prompt.sample_id]
        if prompt.setting == NEXT_WORD:  # the text up to its last word, which is the gold
            assert split_last_word(text)[0] in message
        else:
            assert text in message and QUESTION in message
        assert prompt.target_tokens is None  # the study's ctx_size is in its own tokenizer


def test_import_stores_the_file_and_paper_auto_asks_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    assert dataset.resolve("auto") is None  # nothing imported: generated items stay the default
    path = write_jsonl(tmp_path / "FLenQA_hf.jsonl", released_rows())
    assert main(["flenqa", "import", str(path)]) == 0
    out = capsys.readouterr().out
    assert "imported 40 rows from FLenQA_hf.jsonl" in out
    samples = FAMILY.generate(PAPER, DEFAULT_SEED)  # the built-in paper profile: dataset_file auto
    released = [s for s in samples if s.generator_version == dataset.RELEASED_VERSION]
    assert len(released) == 40 and {s.variant["source"] for s in released} == {"released"}


def test_a_bad_row_is_named_with_its_reason_and_nothing_imports(tmp_path, monkeypatch, capsys):
    """A file with bad rows is imported not at all (issue 53): each problem is one line naming its
    line, and a run on the file is one ConfigError line."""
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    good = released_rows()
    bad = [
        "{not json",
        {**good[0], "padding_type": "lorem", "global_sample_id": 1},
        {**good[0], "label": "maybe", "global_sample_id": 2},
        {key: value for key, value in good[0].items() if key != "mixin"},
        {**good[0], "facts": None, "global_sample_id": 3},
    ]
    path = write_jsonl(tmp_path / "mixed.jsonl", [*good[:20], *bad, *good[20:]])
    checked = dataset.check_file(path)
    assert len(checked.rows) == 40 and checked.n_rows == 45
    assert [p.row for p in checked.problems] == [21, 22, 23, 24, 25]
    reasons = [p.reason for p in checked.problems]
    assert reasons[0].startswith("not JSON (Expecting property name")
    assert "padding_type 'lorem' unknown" in reasons[1]
    assert "label 'maybe'" in reasons[2]
    assert reasons[3] == "missing mixin"
    assert "facts" in reasons[4]
    with pytest.raises(
        ConfigError, match=r"5 problem\(s\) in 5 of 45 rows \(first: line 21: not JSON"
    ) as refused:
        dataset.released_samples(path, DEFAULT_SEED)
    assert "\n" not in str(refused.value)
    assert main(["flenqa", "import", str(path)]) == 1
    captured = capsys.readouterr()
    assert "imported" not in captured.out and not dataset.imported_path().exists()
    assert captured.err.splitlines() == [
        *(str(p) for p in checked.problems),
        "mixed.jsonl: 5 problem(s) in 5 of 45 rows; nothing imported "
        "(fix them, or download the release again)",
    ]


def test_a_bad_file_is_one_line(tmp_path, capsys):
    with pytest.raises(ConfigError, match="not found") as missing:
        dataset.released_samples(tmp_path / "none.jsonl", DEFAULT_SEED)
    assert "\n" not in str(missing.value)
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("lorem ipsum\n[1, 2]\n")
    with pytest.raises(ConfigError, match="no JSON object per line"):
        dataset.released_samples(garbage, DEFAULT_SEED)
    parquet = tmp_path / "garbage.parquet"
    parquet.write_bytes(b"PAR1 not really")
    with pytest.raises(ConfigError, match="not a readable parquet file"):
        dataset.released_samples(parquet, DEFAULT_SEED)
    with pytest.raises(ConfigError, match="dataset_file .* not found"):
        FAMILY.generate(_paper_on(tmp_path / "absent.jsonl"), DEFAULT_SEED)
    assert main(["flenqa", "import", str(tmp_path / "none.jsonl")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.jsonl" in err


def test_parquet_reads_as_the_jsonl_and_ruletaker_rows_carry_their_rule(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    rule = {
        "global_sample_id": 9001,
        "sample_id": 1,
        "label": False,
        "dataset": "Simplified RuleTaker",
        "rule": ["If someone is quiet then they are kind."],
        "statement": ["Moss Yarrow is quiet."],
        "assertion/question": "Moss Yarrow is not kind.",
        "mixin": "The bus was late. " * 20 + "Moss Yarrow is quiet. The rain stopped.",
        "padding_type": "books",
        "dispersion": "random",
        "ctx_size": 250,
    }
    mono = {
        "global_sample_id": 5001,
        "sample_id": 1,
        "label": True,
        "dataset": "MonoRel",
        "facts": ["Ada is older than Bo.", "Bo is older than Cy."],
        "assertion/question": "Is Ada older than Cy?",
        "mixin": "Ada is older than Bo. " + "Some text. " * 30 + "Bo is older than Cy.",
        "padding_type": "same",
        "dispersion": "first",
        "ctx_size": 250,
    }
    rows = [rule, mono]
    from_jsonl, _ = dataset.released_samples(write_jsonl(tmp_path / "two.jsonl", rows), DEFAULT_SEED)
    pq.write_table(
        pa.Table.from_pylist([{**r, "facts": r.get("facts")} for r in rows]), tmp_path / "two.parquet"
    )
    from_parquet, skipped = dataset.released_samples(tmp_path / "two.parquet", DEFAULT_SEED)
    assert not skipped
    assert [s.sample_id for s in from_parquet] == [s.sample_id for s in from_jsonl]
    ruletaker = from_jsonl[0]
    assert (ruletaker.task, ruletaker.label, ruletaker.input["key_sentences"]) == (
        "Ruletaker",
        False,
        ["Moss Yarrow is quiet."],
    )
    (direct,) = [p for p in FAMILY.build_prompts([ruletaker], PAPER) if p.setting == "direct"]
    message = direct.messages[0]["content"]
    assert rule["mixin"] in message and rule["rule"][0] in message and rule["assertion/question"] in message


def test_an_import_rebuilds_the_samples(tmp_path, monkeypatch, capsys):
    """`paper` reads the imported file through ``dataset_file: auto``, a knob value that does not change
    with the file: the import folder's listing is an input of the samples' key instead."""
    from relreason_dagster.storage.built_from import samples_key

    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    before = samples_key("flenqa", PAPER, DEFAULT_SEED, code="same code")
    assert main(["flenqa", "import", str(write_jsonl(tmp_path / "FLenQA_hf.jsonl", released_rows()))]) == 0
    assert samples_key("flenqa", PAPER, DEFAULT_SEED, code="same code") != before
