"""The study's section-3 annotation files (Table 5): names, extra columns, and how Self-Contra is counted.

The released files (``winobias_{anti,pro}_test_{gpt3.5,mistral}.csv``, ``winogrande_{gpt3.5,mistral}.csv``)
are not in the reference folder, so each test builds a synthetic file with the same shape: the same
header (extra ``note``, ``Unnamed: N``, ``new_prediction``, a trailing empty-named column, one file with a
leading row-number column), the same kinds of cell (type codes mixed with category abbreviations, a
stray ``f`` flag, ``??`` notes), and a known number of Self-Contra flags.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from relreason_dagster.benchmarks.selfcontra.annotations import (
    parse_file_name,
    read_annotation_csv,
    read_annotation_files,
)

WB_PROMPT = "Question:The {a} helped the {b} because {p} was kind.who is '{p}'? Give your answer first."
WG_PROMPT = (
    "{a} gave {b} a book because [MASK] was kind. Does [MASK] refer to {a} or {b}? Give your answer first."
)
NAMES = ["janitor", "accountant", "chief", "tailor", "cook", "editor", "guard", "writer", "baker", "clerk"]


def _prompt(i: int, grande: bool) -> str:
    a, b = NAMES[i % len(NAMES)], NAMES[(i + 3) % len(NAMES)]
    if grande:
        return WG_PROMPT.format(a=a.title() + str(i), b=b.title())
    return WB_PROMPT.format(a=f"{a}{i}", b=b, p="he" if i % 2 else "she")


def _response(i: int) -> str:
    return f"Answer: the {NAMES[i % len(NAMES)]}\nReasoning: The sentence number {i} says so."


# (accuracy, self-contra, type-or-category cell, finer cell): the kinds of row the released files hold.
PATTERN = [
    ("1", "0", "rr", ""),
    ("0", "0", "ww", "begging question"),
    ("0", "1", "1", "evidence missing"),
    ("1", "1", "2", "begging question"),
    ("1", "1", "Bq", ""),
    ("0", "1", "Ir", ""),
    ("1", "0", "", ""),
    ("1", "1", "Bq, wek", ""),
    ("0", "0", "wek", ""),
    ("1", "1", "3", "self-contradictory"),
]


def _rows(n: int, grande: bool = False) -> list[tuple[str, str, str, str, str, str]]:
    """(prompt, response, acc, self-contra, type, finer) for n rows cycling through PATTERN."""
    return [(_prompt(i, grande), _response(i), *PATTERN[i % len(PATTERN)]) for i in range(n)]


def _write(path: Path, header: list[str], body: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(body)
    return path


def _flags(rows: list[tuple[str, ...]]) -> int:
    return sum(row[3] == "1" for row in rows)


def _anti_gpt(tmp: Path) -> tuple[Path, int]:
    """Leading row-number column, type cells mixing codes and categories, notes, a trailing column; a few
    rows whose self-contra cell is empty (partially annotated) and rows whose categories say Type2 while
    the flag says 0 (as in the released file, whose flags are not filled in everywhere)."""
    rows = _rows(40)
    rows += [(_prompt(100 + i, False), _response(100 + i), "1", "0", "bq", "") for i in range(5)]
    body = [
        [
            str(i),
            p,
            r,
            acc,
            sc,
            t,
            f,
            "",
            f"['the {NAMES[i % 10]}']",
            "reasoning text",
            "Yes",
            "1" if i == 7 else "",
        ]
        for i, (p, r, acc, sc, t, f) in enumerate(rows)
    ]
    body += [
        [str(len(body) + i), _prompt(200 + i, False), _response(i), "0", "", "", "", "", "", "", "No", ""]
        for i in range(3)
    ]
    header = ["", "prompt", "result", "accuracy", "self-contra", "type", "finer-grained", "note"]
    header += ["new_prediction", "reasoning", "replace_result", ""]
    return _write(tmp / "winobias_anti_test_gpt3.5.csv", header, body), _flags(rows)


def _anti_mistral(tmp: Path) -> tuple[Path, int]:
    rows = _rows(30)
    body = [
        [p, r, acc, sc, f or t, "??" if i % 9 == 0 else ""] for i, (p, r, acc, sc, t, f) in enumerate(rows)
    ]
    return _write(
        tmp / "winobias_anti_test_mistral.csv", ["prompt", "result", "acc", "self-contra", "finer", ""], body
    ), _flags(rows)


def _pro_gpt(tmp: Path) -> tuple[Path, int]:
    """note, four ``Unnamed: N`` columns, new_prediction, and a trailing column of stray zeros; one
    self-contra cell is ``f`` (not a code: the row is skipped with its reason)."""
    rows = _rows(30)
    body = [
        [
            p,
            r,
            acc,
            sc,
            f or t,
            "",
            "",
            "",
            "194" if i == 0 else "",
            "86" if i == 0 else "",
            "['the cook']",
            "0" if i >= 20 else "",
        ]
        for i, (p, r, acc, sc, t, f) in enumerate(rows)
    ]
    body.append(
        [_prompt(300, False), _response(3), "1", "f", "begging the question", "", "", "", "", "", "", ""]
    )
    header = ["prompt", "result", "acc", "self-contra", "finer", "note", "Unnamed: 7", "Unnamed: 8"]
    header += ["Unnamed: 9", "Unnamed: 10", "new_prediction", ""]
    return _write(tmp / "winobias_pro_test_gpt3.5.csv", header, body), _flags(rows)


def _pro_mistral(tmp: Path) -> tuple[Path, int]:
    rows = _rows(25)
    body = [
        [p, r, acc, sc, f or t, "??" if i == 4 else "", "sentence structure matters" if i == 5 else ""]
        for i, (p, r, acc, sc, t, f) in enumerate(rows)
    ]
    return _write(
        tmp / "winobias_pro_test_mistral.csv",
        ["prompt", "result", "acc", "self-contra", "finer", "", ""],
        body,
    ), _flags(rows)


def _grande_gpt(tmp: Path) -> tuple[Path, int]:
    rows = _rows(20, grande=True)
    body = [[p, r, acc, sc, f or t, ""] for p, r, acc, sc, t, f in rows]
    return _write(
        tmp / "winogrande_gpt3.5.csv", ["prompt", "result", "acc", "self-contra", "finer", ""], body
    ), _flags(rows)


def _grande_mistral(tmp: Path) -> tuple[Path, int]:
    rows = _rows(20, grande=True)
    body = [[p, r, acc, sc, t if t in ("rr", "ww") else "", f] for p, r, acc, sc, t, f in rows]
    return _write(
        tmp / "winogrande_mistral.csv", ["prompt", "result", "acc", "self-contra", "type", "finer"], body
    ), _flags(rows)


BUILDERS = {
    "winobias_anti_test_gpt3.5.csv": (_anti_gpt, "winobias", "anti_test", "gpt3.5"),
    "winobias_anti_test_mistral.csv": (_anti_mistral, "winobias", "anti_test", "mistral"),
    "winobias_pro_test_gpt3.5.csv": (_pro_gpt, "winobias", "pro_test", "gpt3.5"),
    "winobias_pro_test_mistral.csv": (_pro_mistral, "winobias", "pro_test", "mistral"),
    "winogrande_gpt3.5.csv": (_grande_gpt, "winogrande", "train_m", "gpt3.5"),
    "winogrande_mistral.csv": (_grande_mistral, "winogrande", "train_m", "mistral"),
}


@pytest.fixture
def section3(tmp_path: Path) -> dict[str, tuple[Path, int]]:
    return {name: builder(tmp_path) for name, (builder, *_) in BUILDERS.items()}


def test_file_names_of_the_release() -> None:
    assert parse_file_name("winobias_anti_test_gpt3.5.csv").__dict__ == {
        "dataset": "winobias",
        "split": "anti_test",
        "setting": "few_answer",
        "model": "gpt3.5",
    }
    assert parse_file_name("/x/winobias_pro_test_mistral.csv").split == "pro_test"
    grande = parse_file_name("winogrande_claude.csv")
    assert (grande.dataset, grande.split, grande.setting, grande.model) == (
        "winogrande",
        "train_m",
        "few_answer",
        "claude",
    )
    section2 = parse_file_name("winobias_zero_reason_gpt3.5.csv")
    assert (section2.split, section2.setting, section2.model) == (None, "zero_reason", "gpt3.5")
    both = parse_file_name("winobias_pro_dev_few_answer_mistral.csv")
    assert (both.dataset, both.split, both.setting, both.model) == (
        "winobias",
        "pro_dev",
        "few_answer",
        "mistral",
    )
    assert parse_file_name("to_annotate.csv").setting == "unknown"


def test_each_section3_file_reports_model_split_and_self_contra(section3) -> None:
    for name, (path, n_flags) in section3.items():
        _, dataset, split, model = BUILDERS[name]
        summary = read_annotation_csv(path).summary()
        assert (summary["dataset"], summary["split"], summary["model"], summary["setting"]) == (
            dataset,
            split,
            model,
            "few_answer",
        ), name
        # Self-Contra is the flag, as Table 5's totals count it (see the annotations module docstring).
        assert summary["n_self_contra"] == n_flags, name


def test_extra_columns_are_kept_but_never_take_a_role(section3) -> None:
    anti = read_annotation_csv(section3["winobias_anti_test_gpt3.5.csv"][0])
    assert anti.columns == {
        "question": 1,
        "response": 2,
        "accuracy": 3,
        "self_contra": 4,
        "type": 5,
        "finer": 6,
    }
    assert "row-number column(s) 0 ignored" in anti.inference
    assert anti.rows[0].raw["new_prediction"] == "['the janitor']"
    # Three rows have accuracy but no self-contra: skipped, each with its reason.
    assert [s.reason for s in anti.skipped] == ["partially annotated: self-contra empty (accuracy '0')"] * 3
    # Type cells that hold categories give categories; type codes give types.
    by_number = {row.row_number: row for row in anti.rows}
    assert by_number[5].categories == ["begging_the_question"] and by_number[5].type == "type2"
    assert by_number[8].categories == ["begging_the_question", "wrong_external_knowledge"]
    assert by_number[10].type == "type3"

    pro = read_annotation_csv(section3["winobias_pro_test_gpt3.5.csv"][0])
    # The trailing column of stray zeros is not a type column (it would contradict every flag).
    assert pro.columns == {"question": 0, "response": 1, "accuracy": 2, "self_contra": 3, "finer": 4}
    assert [s.reason for s in pro.skipped] == [
        "self-contra 'f' is not a known code (0/1, or type codes 2/3/4/6)"
    ]
    assert not any("conflicts" in note for row in pro.rows for note in row.notes)
    for name in ("winobias_anti_test_mistral.csv", "winobias_pro_test_mistral.csv", "winogrande_gpt3.5.csv"):
        result = read_annotation_csv(section3[name][0])
        assert set(result.columns) == {"question", "response", "accuracy", "self_contra", "finer"}, name
    grande = read_annotation_csv(section3["winogrande_mistral.csv"][0])
    assert grande.columns["type"] == 4 and grande.rows[0].question.startswith("Janitor0 gave")


def test_flags_the_categories_contradict_are_counted_apart(section3) -> None:
    """The released WB Anti GPT-3.5 file has rows with a right answer and a wrong-reasoning category whose
    flag is 0; the flag counts, and the file reports how many rows its categories read otherwise."""
    path, n_flags = section3["winobias_anti_test_gpt3.5.csv"]
    result = read_annotation_csv(path)
    summary = result.summary()
    assert summary["n_self_contra"] == n_flags
    conflicts = [row for row in result.rows if row.flag_conflict]
    # PATTERN's ("1", "0", "", "") has no category; the five appended bq rows and PATTERN's
    # ("0", "0", "wek") (wrong answer + wrong reasoning = WW, agrees) decide: 5 conflicts.
    assert summary["n_flag_conflicts"] == len(conflicts) == 5
    assert all(not row.self_contra and row.type == "RR" for row in conflicts)
    assert "imply Self-Contra" in conflicts[0].notes[-1]
    for name in BUILDERS:
        if name != "winobias_anti_test_gpt3.5.csv":
            assert read_annotation_csv(section3[name][0]).summary()["n_flag_conflicts"] == 0, name


def test_overrides_and_a_refused_file(section3, tmp_path: Path) -> None:
    undecidable = _write(
        tmp_path / "mystery.csv",
        ["x", "y", "a", "b"],
        [[_prompt(i, False), _response(i), str(i % 2), str(i % 2)] for i in range(6)],
    )
    paths = [path for path, _ in section3.values()] + [undecidable]
    batch = read_annotation_files(paths, split="anti_dev", model="gpt-4")
    assert len(batch.results) == 6
    assert {(r.split, r.model) for r in batch.results} == {("anti_dev", "gpt-4")}
    assert {r.split for r in batch.results for r in r.rows} == {"anti_dev"}
    assert [name for name, _ in batch.skipped] == [str(undecidable)]
    assert "accuracy" in batch.skipped[0][1]


def test_import_command_prints_model_split_and_self_contra_per_file(section3, capsys) -> None:
    from relreason_dagster.cli import main

    files = [str(path) for path, _ in section3.values()]
    assert main(["selfcontra", "import-annotations", *files, "--no-store", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    got = {s["file"]: (s["model"], s["split"], s["n_self_contra"]) for s in report["files"]}
    assert got == {name: (BUILDERS[name][3], BUILDERS[name][2], section3[name][1]) for name in BUILDERS}
    assert main(["selfcontra", "import-annotations", *files, "--no-store"]) == 0
    table = capsys.readouterr().out
    assert "pro_test" in table and "n_flag_conflicts" in table
