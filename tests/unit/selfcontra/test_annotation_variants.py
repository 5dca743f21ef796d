"""Annotation CSVs in every header variant import the same rows; a batch skips only the unreadable files.

The variants are built here, in ``tmp_path``, from a synthetic file (always runs) and from each of the
study's 12 released files (read from ``RELREASON_REFERENCE_DIR``, never copied; skipped without it):
no header, a numbered header (``0,1,2...`` and ``1,2,3...``), pandas' ``Unnamed: N`` names, empty header
cells with a pandas row index in front, unknown header words, and columns in another order (with and
without names).  Each must give the original's rows: the same record numbers, texts and labels.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import duckdb
import pytest

from relreason_dagster import paths
from relreason_dagster.benchmarks.selfcontra.annotations import (
    AnnotationFileError,
    ImportResult,
    read_annotation_csv,
    read_annotation_files,
)
from relreason_dagster.cli import main
from relreason_dagster.errors import ConfigError
from tests.profile_files import use_profiles

ANNOTATION_DIR = paths.reference_dir() / "wino" / "selfcontra_annotations"
RELEASED = sorted(
    f"winobias_{shot}_{order}_{model}.csv"
    for shot in ("zero", "few")
    for order in ("answer", "reason")
    for model in ("claude", "gpt3.5", "mistral")
)
HEADERLESS = {
    "winobias_few_reason_claude.csv",
    "winobias_zero_answer_claude.csv",
    "winobias_zero_reason_claude.csv",
}
VARIANTS = (
    "no_header",
    "numbered_from_0",
    "numbered_from_1",
    "pandas_unnamed",
    "empty_header_with_row_index",
    "unknown_words",
    "reordered_named",
    "reordered_no_header",
    "reordered_numbered",
)

# A file in the study's layout with every kind of row: each type, codes 4/6 in self-contra, a category
# abbreviation in the type column, "#REF!", a partial row, a not-yet-annotated tail.
SYNTH_HEADER = ["prompt", "result", "acc", "self-contra", "type", "finer", "note"]
_SYNTH = [
    ("nurse", "1", "0", "rr", "", ""),
    ("waiter", "0", "0", "ww", "evidence missing", "?"),
    ("mover", "0", "1", "rw", "incomplete reasoning", ""),
    ("cook", "1", "1", "wr", "begging the question", ""),
    ("judge", "1", "4", "", "", "no reasoning given"),
    ("CEO", "1", "0", "rr", "good reasoning", ""),
    ("driver", "0", "0", "ww", "wrong context", ""),
    ("lawyer", "1", "1", "Bq", "questionable cause", ""),
    ("baker", "#REF!", "1", "", "", ""),
    ("tailor", "0", "1", "self-contra", "sc", ""),
    ("guard", "1", "", "", "", ""),
    ("mechanic", "0", "6", "", "no answer", ""),
    ("editor", "", "", "", "", ""),
    ("farmer", "", "", "", "", ""),
]
SYNTH_BODY = [
    [
        f"Question: The {who} called the clerk because she was late. Who is 'she'?",
        f"Answer: the {who}.\nReasoning: the sentence says the {who} was late.",
        *labels,
    ]
    for who, *labels in _SYNTH
]


def _write(path: Path, records: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(records)
    return path


def _labels(result: ImportResult) -> list[tuple]:
    return [
        (row.row_number, row.question, row.response, row.correct, row.self_contra, row.type, row.categories)
        for row in result.rows
    ]


def _variant(kind: str, header: list[str] | None, body: list[list[str]], seed: str) -> list[list[str]]:
    """``body`` (the records after any header) written as variant ``kind`` of a file with ``header``."""
    width = max(len(record) for record in body + ([header] if header else []))
    body = [record + [""] * (width - len(record)) for record in body]
    order = list(range(width))
    rng = random.Random(seed)
    while order == sorted(order):
        rng.shuffle(order)
    names = (header or [f"c{i}" for i in range(width)]) + [""] * (width - len(header or []))
    if kind == "no_header":
        return body
    if kind == "numbered_from_0":
        return [[str(i) for i in range(width)], *body]
    if kind == "numbered_from_1":
        return [[str(i + 1) for i in range(width)], *body]
    if kind == "pandas_unnamed":
        return [[f"Unnamed: {i}" for i in range(width)], *body]
    if kind == "empty_header_with_row_index":
        return [[""] * (width + 1), *([str(i), *record] for i, record in enumerate(body))]
    if kind == "unknown_words":
        return [[f"field_{chr(97 + i)}" for i in range(width)], *body]
    shuffled = [[record[i] for i in order] for record in body]
    if kind == "reordered_named":
        return [[names[i] for i in order], *shuffled] if header else shuffled
    if kind == "reordered_no_header":
        return shuffled
    if kind == "reordered_numbered":
        return [[str(i) for i in range(width)], *shuffled]
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", VARIANTS)
def test_synthetic_file_in_every_variant_imports_the_same_rows(tmp_path: Path, kind: str) -> None:
    name = "winogender_zero_answer_synth.csv"
    original = read_annotation_csv(_write(tmp_path / name, [SYNTH_HEADER, *SYNTH_BODY]))
    assert original.header == "named" and len(original.rows) == 10
    assert [row.type for row in original.rows][:4] == ["RR", "WW", "type1", "type2"]
    (tmp_path / kind).mkdir()
    copy = _write(tmp_path / kind / name, _variant(kind, SYNTH_HEADER, SYNTH_BODY, kind))
    result = read_annotation_csv(copy)
    assert _labels(result) == _labels(original), (result.header, result.columns, result.inference)
    assert [(s.row_number, s.reason) for s in result.skipped] == [
        (s.row_number, s.reason) for s in original.skipped
    ]
    assert (result.dataset, result.setting, result.model) == ("winogender", "zero_answer", "synth")
    if kind != "reordered_named":
        assert result.header.endswith("(inferred)") and result.inference


@pytest.mark.parametrize("name", RELEASED)
def test_released_file_in_every_variant_imports_the_same_rows(tmp_path: Path, name: str) -> None:
    source = ANNOTATION_DIR / name
    if not source.is_file():
        pytest.skip(f"reference annotations not found at {ANNOTATION_DIR} (set RELREASON_REFERENCE_DIR)")
    with source.open(encoding="utf-8-sig", newline="") as handle:
        records = list(csv.reader(handle))
    header, body = (None, records) if name in HEADERLESS else (records[0], records[1:])
    original = read_annotation_csv(source)
    assert len(original.rows) >= 49
    for kind in VARIANTS:
        (tmp_path / kind).mkdir()
        copy = _write(tmp_path / kind / name, _variant(kind, header, body, name + kind))
        result = read_annotation_csv(copy)
        assert _labels(result) == _labels(original), (kind, result.columns, result.inference)
        assert result.summary() == original.summary(), kind


def test_batch_skips_unreadable_files_and_imports_the_rest(tmp_path: Path) -> None:
    good = _write(tmp_path / "winogender_zero_answer_a.csv", [SYNTH_HEADER, *SYNTH_BODY])
    headerless = _write(
        tmp_path / "winogender_few_reason_b.csv", _variant("no_header", None, SYNTH_BODY, "b")
    )
    # Two 0/1 columns and nothing else: which is accuracy cannot be told, so the file is refused.
    flags_only = [record[:4] for record in SYNTH_BODY if {record[2], record[3]} <= {"0", "1"}]
    ambiguous = _write(tmp_path / "c.csv", flags_only)
    no_roles = _write(tmp_path / "d.csv", [["foo", "bar"], ["1", "2"]])
    binary = tmp_path / "e.csv"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)))
    batch = read_annotation_files([good, ambiguous, tmp_path / "missing.csv", headerless, no_roles, binary])
    assert [Path(r.path).name for r in batch.results] == [good.name, headerless.name]
    assert batch.rows == 20
    skipped = dict(batch.skipped)
    assert list(skipped) == [str(ambiguous), str(tmp_path / "missing.csv"), str(no_roles), str(binary)]
    assert "nothing tells accuracy from self-contra" in skipped[str(ambiguous)]
    assert skipped[str(tmp_path / "missing.csv")] == "no such file"
    assert skipped[str(no_roles)].startswith("missing mandatory column(s)")
    line = batch.summary_line()
    assert line.startswith(f"imported 2 files (20 rows), skipped 4: {ambiguous}: ")
    assert "\n" not in line and line.count("; ") == 3
    assert batch.as_dict()["skipped"][1] == {"file": str(tmp_path / "missing.csv"), "reason": "no such file"}
    with pytest.raises(AnnotationFileError) as info:
        read_annotation_csv(ambiguous)
    assert info.value.path == str(ambiguous) and str(info.value).startswith(f"{ambiguous}: 0/1 columns")


def test_cli_imports_a_mixed_batch_and_ends_with_the_summary_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    good = _write(tmp_path / "winogender_zero_answer_a.csv", [SYNTH_HEADER, *SYNTH_BODY])
    numbered = _write(
        tmp_path / "winogender_few_answer_b.csv",
        _variant("reordered_numbered", SYNTH_HEADER, SYNTH_BODY, "b"),
    )
    bad = _write(tmp_path / "bad.csv", [["foo", "bar"], ["1", "2"]])
    args = ["selfcontra", "import-annotations", str(good), str(bad), str(numbered)]
    assert main(args) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith(f"imported 2 files (20 rows), skipped 1: {bad}: missing mandatory column(s)")
    assert any(line.startswith(f"{numbered.name}: column roles from content: ") for line in out)
    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    try:
        stored = con.execute("SELECT source, count(*) FROM raw.annotations GROUP BY 1 ORDER BY 1").fetchall()
    finally:
        con.close()
    assert stored == sorted([(good.name, 10), (numbered.name, 10)])

    assert main([*args, "--json", "--no-store"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["imported"], report["rows"], report["summary"]) == (2, 20, out[-1])
    assert report["skipped"][0]["file"] == str(bad) and len(report["files"]) == 2

    # None readable: exit 2 and the same line, alone, on stderr.
    assert main(["selfcontra", "import-annotations", str(bad), str(tmp_path / "none.csv")]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
    assert captured.err.startswith(f"relreason: imported 0 files (0 rows), skipped 2: {bad}: ")
    assert captured.err.rstrip().endswith(f"{tmp_path / 'none.csv'}: no such file")


def test_random_bytes_are_a_skipped_file_never_an_exception(tmp_path: Path) -> None:
    rng = random.Random(5)
    paths = []
    for i in range(40):
        path = tmp_path / f"junk{i}.csv"
        path.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 400))))
        paths.append(path)
    batch = read_annotation_files(paths)
    assert batch.results == [] and len(batch.skipped) == 40
    assert all(reason and "\n" not in reason for _, reason in batch.skipped)


def test_pipeline_asset_uses_the_same_tolerant_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ``selfcontra_annotations`` asset stores the readable files and reports the skipped one."""
    import dagster as dg

    from relreason_dagster.defs.resources import DuckDBFile, RunSettings
    from relreason_dagster.defs.steps import asset_of

    selfcontra_annotations = asset_of("selfcontra_annotations")

    good = _write(
        tmp_path / "winogender_zero_answer_a.csv", _variant("pandas_unnamed", SYNTH_HEADER, SYNTH_BODY, "a")
    )
    bad = _write(tmp_path / "bad.csv", [["foo", "bar"], ["1", "2"]])
    profile = {"selfcontra": {"annotation_files": [str(good), str(bad)]}}
    use_profiles(monkeypatch, tmp_path / "profiles.yaml", {"it-annotation-variants": profile})
    database = str(tmp_path / "asset.duckdb")
    result = selfcontra_annotations(
        dg.build_asset_context(),
        duckdb=DuckDBFile(database=database),
        run_settings=RunSettings(profile="it-annotation-variants"),
    )
    assert (result.metadata["files"], result.metadata["rows"], result.metadata["skipped_files"]) == (1, 10, 1)
    assert str(result.metadata["summary"]).startswith(
        f"imported 1 files (10 rows), skipped 1: {bad}: missing"
    )
    con = duckdb.connect(database, read_only=True)
    try:
        assert con.execute("SELECT source, count(*) FROM raw.annotations GROUP BY 1").fetchall() == [
            (good.name, 10)
        ]
    finally:
        con.close()
    # Only unreadable files: the asset fails with the same one line.
    only_bad = {"it-annotation-variants": {"selfcontra": {"annotation_files": [str(bad)]}}}
    use_profiles(monkeypatch, tmp_path / "profiles.yaml", only_bad)
    with pytest.raises(ConfigError, match=r"imported 0 files \(0 rows\), skipped 1: "):
        selfcontra_annotations(
            dg.build_asset_context(),
            duckdb=DuckDBFile(database=database),
            run_settings=RunSettings(profile="it-annotation-variants"),
        )
