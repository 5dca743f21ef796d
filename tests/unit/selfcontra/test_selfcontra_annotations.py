"""Human Self-Contra annotations: the study's 12 released WinoBias files, new files of the same shape, export.

The released files are read from the reference folder (``RELREASON_REFERENCE_DIR``), never copied here;
those tests skip when it is absent.  The acceptance target is the study's Table 2 (WinoBias, answer-first,
first 50 annotated rows): GPT-3.5 and Mistral-7B within 0.04, Claude-3 pinned to what the released
annotations say, because they disagree with the table (see ``test_table2_claude_measured``).
Synthetic files cover what the release does not: a new model, header spellings, missing columns, and an
export -> fill -> re-import round trip.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from relreason_dagster import paths
from relreason_dagster.benchmarks.selfcontra.annotation_codes import CATEGORIES, TYPES
from relreason_dagster.benchmarks.selfcontra.annotations import (
    EXPORT_COLUMNS,
    EXPORT_ID_COLUMNS,
    ImportResult,
    SkippedRow,
    export_for_annotation,
    parse_source_name,
    read_annotation_csv,
)
from relreason_dagster.errors import ConfigError

ANNOTATION_DIR = paths.reference_dir() / "wino" / "selfcontra_annotations"
HEADERLESS = {
    "winobias_few_reason_claude.csv",
    "winobias_zero_answer_claude.csv",
    "winobias_zero_reason_claude.csv",
}
# Skipped records per file when reading everything (not-yet-annotated tails, a partial row, '#REF!').
SKIPPED_ALL = {
    "winobias_few_answer_claude.csv": 339,
    "winobias_few_answer_gpt3.5.csv": 0,
    "winobias_few_answer_mistral.csv": 0,
    "winobias_few_reason_claude.csv": 3,
    "winobias_few_reason_gpt3.5.csv": 0,
    "winobias_few_reason_mistral.csv": 3,
    "winobias_zero_answer_claude.csv": 4,
    "winobias_zero_answer_gpt3.5.csv": 24,
    "winobias_zero_answer_mistral.csv": 0,
    "winobias_zero_reason_claude.csv": 3,
    "winobias_zero_reason_gpt3.5.csv": 0,
    "winobias_zero_reason_mistral.csv": 3,
}
# Table 2, WinoBias answer-first: (accuracy, SCR).
TABLE2 = {
    "winobias_zero_answer_gpt3.5.csv": (0.56, 0.28),
    "winobias_few_answer_gpt3.5.csv": (0.72, 0.32),
    "winobias_zero_answer_mistral.csv": (0.44, 0.48),
    "winobias_few_answer_mistral.csv": (0.36, 0.50),
    "winobias_zero_answer_claude.csv": (0.78, 0.10),
    "winobias_few_answer_claude.csv": (0.86, 0.10),
}


def _file(name: str) -> Path:
    if not ANNOTATION_DIR.is_dir():
        pytest.skip(f"reference annotations not found at {ANNOTATION_DIR} (set RELREASON_REFERENCE_DIR)")
    return ANNOTATION_DIR / name


@pytest.fixture(scope="module")
def released() -> dict[str, ImportResult]:
    """Every released file read in full (~0.2 s for all 12)."""
    return {name: read_annotation_csv(_file(name)) for name in SKIPPED_ALL}


@pytest.fixture(scope="module")
def released50() -> dict[str, ImportResult]:
    """The first 50 annotated rows of each file, the study's sample size."""
    return {name: read_annotation_csv(_file(name), limit=50) for name in SKIPPED_ALL}


def _write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(rows)
    return path


def _check_invariants(result: ImportResult) -> None:
    """Types agree with the flags, categories are normalised, every skip says why."""
    for row in result.rows:
        assert row.type in TYPES
        assert (row.type in ("type1", "type2", "type3")) == row.self_contra, (row.row_number, row.notes)
        if row.type in ("RR", "type2"):
            assert row.correct
        if row.type in ("WW", "type1"):
            assert not row.correct
        assert set(row.categories) <= set(CATEGORIES)
        assert row.question and row.response
    for skipped in result.skipped:
        assert isinstance(skipped, SkippedRow) and skipped.reason.strip()


# --- the released files ----------------------------------------------------------------------------------


def test_every_released_file_imports(released: dict[str, ImportResult]) -> None:
    assert len(released) == 12
    for name, result in released.items():
        assert parse_source_name(name) == (result.dataset, result.setting, result.model)
        assert result.dataset == "winobias"
        assert len(result.rows) >= 49, name
        assert len(result.skipped) == SKIPPED_ALL[name], (name, result.skipped[:3])
        assert result.summary()["skipped"] == SKIPPED_ALL[name]
        _check_invariants(result)
        # Every record is accounted for exactly once, numbered from 1 after any header.
        numbers = sorted([row.row_number for row in result.rows] + [s.row_number for s in result.skipped])
        assert numbers == list(range(1, len(numbers) + 1)), name


def test_headerless_files_are_detected(released: dict[str, ImportResult]) -> None:
    for name, result in released.items():
        assert result.header == ("none (inferred)" if name in HEADERLESS else "named"), name
    for name in HEADERLESS:
        result = released[name]
        roles = {"question": 0, "response": 1, "accuracy": 2, "self_contra": 3, "finer": 5}
        # Column 4 holds types only in zero_answer_claude; in the other two it is empty, so it has no role.
        assert result.columns == roles | ({"type": 4} if "zero_answer" in name else {})
        first = result.rows[0]  # the first line is a record, not a header
        assert first.row_number == 1 and first.question.startswith("Question:The janitor reprimanded")
        assert first.raw["accuracy"] == "1" and set(first.raw) >= set(EXPORT_COLUMNS) - {"type"}
        # Every inferred role says how it was decided; accuracy vs self-contra from content, not order.
        assert any(note.startswith("accuracy=2, self_contra=3: ") for note in result.inference)
    assert "col6" in released["winobias_few_reason_claude.csv"].rows[0].raw  # unnamed junk columns
    assert released["winobias_zero_answer_claude.csv"].rows[0].response.startswith("Answer: The accountant")


def test_codes_types_and_categories_of_released_rows(released: dict[str, ImportResult]) -> None:
    zero_gpt = released["winobias_zero_answer_gpt3.5.csv"]
    by_number = {row.row_number: row for row in zero_gpt.rows}
    no_reasoning = [row for row in zero_gpt.rows if row.raw["self-contra"] == "4"]
    assert len(no_reasoning) == 17
    for row in no_reasoning:
        assert not row.self_contra and row.type in ("RR", "WW") and "no_reasoning" in row.categories
        assert any("code 4 (no reasoning) counted as not self-contradictory" in note for note in row.notes)
    no_answer = [row for row in zero_gpt.rows if row.raw["self-contra"] == "6"]
    assert len(no_answer) == 1 and no_answer[0].categories[0] == "no_answer" and not no_answer[0].self_contra
    assert "Wrong info" in by_number[5].raw["finer"] and by_number[5].categories == [
        "wrong_context_knowledge"
    ]
    skipped = {s.row_number: s.reason for s in zero_gpt.skipped}
    assert "#REF!" in skipped[60] and "accuracy empty" in skipped[58]
    assert "other columns ignored" in skipped[212]  # the stray copy of other columns at the end

    # few_reason_gpt3.5 stores type codes in its self-contra column.
    few_reason = released["winobias_few_reason_gpt3.5.csv"]
    coded = [row for row in few_reason.rows if row.raw["self-contra"] in ("2", "3")]
    assert len(coded) == 31 and all(row.self_contra for row in coded)
    assert sum(row.type == "type3" for row in coded) == 2
    # A type that contradicts the flags is replaced by the derived one, and the conflict is recorded.
    conflicts = [row for row in few_reason.rows if any("conflicts" in note for note in row.notes)]
    assert len(conflicts) == 4
    rw_but_right = next(row for row in conflicts if row.raw["label"] == "RW")
    assert rw_but_right.correct and rw_but_right.type == "type2"

    # Category abbreviations in a type column become categories; the type comes from the flags.
    few_gpt = released["winobias_few_answer_gpt3.5.csv"]
    bq = [row for row in few_gpt.rows if row.raw["type"] == "Bq"]
    assert bq and all(row.categories[0] == "begging_the_question" for row in bq)
    assert all(row.type in ("type2", "WW", "RR", "type1") for row in bq)
    # "sc" in a category-only file with self-contra=1 is type3.
    few_mistral = released["winobias_few_answer_mistral.csv"]
    assert sum(row.type == "type3" for row in few_mistral.rows) == 33

    zero_claude = released["winobias_zero_answer_claude.csv"]
    assert {s.row_number for s in zero_claude.skipped} == {44, 51, 52, 53}
    assert "partially annotated: self-contra empty" in zero_claude.skipped[0].reason
    assert [row.type for row in zero_claude.rows if row.raw["type"] == "self-contra"] == ["type3", "type3"]


def test_limit_keeps_first_annotated_rows(released50: dict[str, ImportResult]) -> None:
    for name, result in released50.items():
        assert len(result.rows) == (49 if name == "winobias_zero_answer_claude.csv" else 50), name
        _check_invariants(result)
    # Rows after the 50th annotated one are not read: the 339 empty ones are not reported.
    assert released50["winobias_few_answer_claude.csv"].skipped == []
    partial = read_annotation_csv(_file("winobias_zero_answer_claude.csv"), limit=44)
    assert [s.row_number for s in partial.skipped] == [44]
    assert partial.rows[-1].row_number == 45


def test_table2_gpt35_and_mistral_within_004(released50: dict[str, ImportResult]) -> None:
    for name in (
        "winobias_zero_answer_gpt3.5.csv",
        "winobias_few_answer_gpt3.5.csv",
        "winobias_zero_answer_mistral.csv",
        "winobias_few_answer_mistral.csv",
    ):
        summary = released50[name].summary()
        accuracy, scr = TABLE2[name]
        assert summary["n"] == 50
        # The importer counts; the rates are marts.selfcontra_scr's (count / n).
        assert summary["n_correct"] / 50 == pytest.approx(accuracy, abs=0.04 + 1e-9), name
        assert summary["n_self_contra"] / 50 == pytest.approx(scr, abs=0.04 + 1e-9), name
    # Codes 4 (no reasoning) count as not self-contradictory: 13/50 = 0.26; counting them would give 0.34.
    assert released50["winobias_zero_answer_gpt3.5.csv"].summary()["n_self_contra"] == 13


def test_table2_claude_measured(released50: dict[str, ImportResult]) -> None:
    """Claude-3 is pinned to the released annotations, which do not reproduce Table 2.

    Table 2 says zero 0.78/0.10 and few 0.86/0.10.  The released files give zero 42/49 = 0.857 accuracy
    and 16/49 = 0.327 SCR (49 annotated rows: row 44 has no self-contra flag; even counting it as annotated
    would leave 16-17 self-contradictions, not 5), and few 47/50 = 0.94 and 4/50 = 0.08.  The accuracy cells
    match the responses against the WinoBias gold, so the gap lies in the released data (or in how the table
    was computed), not in this reader.
    """
    zero = released50["winobias_zero_answer_claude.csv"].summary()
    few = released50["winobias_few_answer_claude.csv"].summary()
    assert (zero["n"], zero["n_correct"], zero["n_self_contra"]) == (49, 42, 16)
    assert (few["n"], few["n_correct"], few["n_self_contra"]) == (50, 47, 4)
    assert (zero["n_type1"], zero["n_type2"], zero["n_type3"], zero["n_rr"], zero["n_ww"]) == (
        1,
        13,
        2,
        28,
        5,
    )
    assert (few["n_type1"], few["n_type2"], few["n_type3"], few["n_rr"], few["n_ww"]) == (2, 2, 0, 45, 1)


# --- synthetic files --------------------------------------------------------------------------------------


def test_parse_source_name() -> None:
    assert parse_source_name("winobias_zero_answer_gpt3.5.csv") == ("winobias", "zero_answer", "gpt3.5")
    assert parse_source_name("/x/WinoGrande_few_reason_llama-3_8b.csv") == (
        "winogrande",
        "few_reason",
        "llama-3_8b",
    )
    assert parse_source_name("winogender_zero-shot_answer_qwen2.5.csv") == (
        "winogender",
        "zero_answer",
        "qwen2.5",
    )
    assert parse_source_name("to_annotate.csv") == ("unknown", "unknown", "unknown")
    assert parse_source_name("winobias_gpt4.csv") == ("winobias", "unknown", "unknown")


def test_new_model_with_header_variant(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "winogrande_few_reason_llama-3-8b.csv",
        [
            ["Prompt_Question", " Response ", "ACC", "Self_Contra", "Label", "Finer Grained", "comment"],
            ["Question: A?", "Reasoning: r. Answer: x", "1", "0", "RR", "good reasoning", ""],
            ["Question: B?", "Reasoning: r. Answer: y", "0", "1", "rw", "Evidence missing & ir", "?"],
            [
                "Question: C?",
                "Reasoning: r. Answer: z",
                "1.0",
                "1",
                "type 2",
                "begging question/question cause",
                "",
            ],
            ["Question: D?", "Reasoning: r. Answer: w", "", "", "", "", "todo"],
            ["Question: E?", "Reasoning: r. Answer: v", "maybe", "1", "", "", ""],
            ["Question: F?", "Reasoning: r. Answer: u", "0", "1", "Self-contra", "sc, weird", ""],
            ["Question: G?", "Reasoning: r. Answer: t", "1", "0", "ww", "", ""],
            ["Question: H?", "Reasoning: r. Answer: s", "1", "5", "", "", ""],
            [
                "Question: I?",
                "Reasoning: r. Answer: q",
                "1",
                "1",
                "Wrong reasoning -> right answer",
                "wck",
                "",
            ],
            [],
        ],
    )
    result = read_annotation_csv(path)
    assert (result.dataset, result.setting, result.model, result.header) == (
        "winogrande",
        "few_reason",
        "llama-3-8b",
        "named",
    )
    assert result.columns == {
        "question": 0,
        "response": 1,
        "accuracy": 2,
        "self_contra": 3,
        "type": 4,
        "finer": 5,
    }
    _check_invariants(result)
    rows = {row.row_number: row for row in result.rows}
    assert {n: row.type for n, row in rows.items()} == {
        1: "RR",
        2: "type1",
        3: "type2",
        6: "type3",
        7: "RR",
        9: "type2",
    }
    assert rows[1].categories == []
    assert rows[2].categories == ["evidence_missing", "incomplete_reasoning"]
    assert rows[3].categories == ["begging_the_question", "questionable_cause"]
    assert rows[6].categories == ["self_contradictory"] and any("'weird'" in note for note in rows[6].notes)
    assert any("conflicts" in note for note in rows[7].notes)  # ww with a right answer -> RR
    assert rows[2].raw["comment"] == "?" and rows[2].model == "llama-3-8b"
    reasons = {s.row_number: s.reason for s in result.skipped}
    assert set(reasons) == {4, 5, 8, 10}
    assert "not annotated" in reasons[4] and "'maybe'" in reasons[5] and "'5'" in reasons[8]
    assert reasons[10] == "empty record"
    summary = result.summary()
    assert (summary["n"], summary["n_type1"], summary["n_type2"], summary["n_type3"]) == (6, 1, 2, 1)
    assert summary["n_self_contra"] == 4 and summary["skipped"] == 4
    # Overrides win over the file name.
    assert read_annotation_csv(path, model="llama3", limit=1).rows[0].model == "llama3"


def test_headerless_new_file_without_type_column(tmp_path: Path) -> None:
    """A headerless file whose category text directly follows the flags, with a BOM and a junk column."""
    path = tmp_path / "winogender_zero_answer_newmodel.csv"
    rows = [
        [
            "Question: The nurse told the patient that she ... Who is 'she'?",
            "Answer: the nurse. Reasoning: ...",
            "1",
        ]
        + ["0", "", "??"],
        [
            "Question: The chef hired the helper because he ... Who is 'he'?",
            "Answer: the chef. Reasoning: ...",
        ]
        + ["0", "1", "questionable cause", ""],
        ["Question: The clerk ...", "Answer: the clerk. Reasoning: since the clerk ...", "1", "1", "bq", "4"],
    ]
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        csv.writer(handle).writerows(rows)
    result = read_annotation_csv(path)
    assert result.header == "none (inferred)"
    assert result.columns == {"question": 0, "response": 1, "accuracy": 2, "self_contra": 3, "finer": 4}
    assert [row.type for row in result.rows] == ["RR", "type1", "type2"]
    assert result.rows[2].categories == ["begging_the_question"] and result.rows[0].question.startswith(
        "Question"
    )


def test_missing_mandatory_columns_is_a_config_error(tmp_path: Path) -> None:
    path = _write(tmp_path / "winobias_zero_answer_x.csv", [["prompt", "result", "type"], ["Q", "R", "rr"]])
    with pytest.raises(ConfigError) as info:
        read_annotation_csv(path)
    message = str(info.value)
    assert "\n" not in message and path.name in message and "accuracy, self_contra" in message
    # A headerless file whose roles cannot be inferred fails the same way.
    nothing = _write(tmp_path / "bad.csv", [["a", "b"], ["c", "d"]])
    with pytest.raises(ConfigError, match="bad.csv: missing mandatory column"):
        read_annotation_csv(nothing)
    with pytest.raises(ConfigError, match="cannot read"):
        read_annotation_csv(tmp_path / "absent.csv")


def test_export_fill_reimport_round_trip(tmp_path: Path) -> None:
    records = [
        {"question": "Question: A? Who is 'he'?", "response": "Answer: x\nReasoning: é", "response_id": "r1"}
        | {"model": "m1", "setting": "zero_answer", "dataset": "winobias", "gold": "x", "predicted": "x"},
        {"question": "Question: B?", "response": "Answer: y", "response_id": "r2", "model": "m1"},
        {"question": "Question: C?", "response": "Answer: z", "response_id": "r3", "model": "m1"},
    ]
    path = tmp_path / "to_annotate.csv"
    assert export_for_annotation(records, path) == 3
    with path.open(encoding="utf-8-sig", newline="") as handle:
        table = list(csv.reader(handle))
    assert table[0] == [*EXPORT_COLUMNS, *EXPORT_ID_COLUMNS]
    assert table[1][:2] == [records[0]["question"], records[0]["response"]]

    # Nothing filled in yet: the file reads, every row is 'not annotated'.
    blank = read_annotation_csv(path)
    assert blank.rows == [] and [s.row_number for s in blank.skipped] == [1, 2, 3]
    assert blank.model == "m1"  # from the id column, since the file name says nothing

    # A person fills in two rows (a spreadsheet may write 1.0 for 1).
    table[1][2:6] = ["1", "0", "RR", ""]
    table[2][2:6] = ["0", "1.0", "", "evidence missing"]
    filled = _write(tmp_path / "filled.csv", table)
    result = read_annotation_csv(filled)
    assert [(row.correct, row.self_contra, row.type) for row in result.rows] == [
        (True, False, "RR"),
        (False, True, "type1"),
    ]
    assert result.rows[0].response == "Answer: x\nReasoning: é"
    assert result.rows[0].raw["response_id"] == "r1" and result.rows[1].raw["gold"] == ""
    assert (result.rows[0].setting, result.rows[0].dataset) == ("zero_answer", "winobias")
    assert result.rows[1].categories == ["evidence_missing"] and result.skipped[0].row_number == 3

    with pytest.raises(ConfigError, match="record 2"):
        export_for_annotation([records[0], {"question": "Q"}], tmp_path / "never.csv")
    assert not (tmp_path / "never.csv").exists()
