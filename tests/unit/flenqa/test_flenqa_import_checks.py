"""`relreason flenqa import` checks every field of every row and imports a whole file or nothing (issue 53).

Each test writes the 40 good released-format rows of ``test_flenqa_dataset`` (made-up texts, within
the release's bounds) with one kind of bad value put in, runs the command in this process and checks:
exit 1 (a file that cannot be read at all: 2), one line per problem naming its line, a count, and
nothing imported (an earlier import stays byte for byte).  The re-audit found each of these accepted
or crashing on main before this change.  The bounds themselves (``release_bounds.py``) are checked
against the paper's Appendix B means (``published.csv``) and, when the reference copy holds it,
against the released file.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import pytest

from relreason_dagster.benchmarks.flenqa import dataset, release_bounds
from relreason_dagster.cli import main
from tests.reference_files import flenqa_release
from tests.unit.flenqa.test_flenqa_dataset import released_rows, write_jsonl

FLENQA_DIR = Path(dataset.__file__).parent
REFUSED = "nothing imported (fix them, or download the release again)"
GOOD = released_rows()


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh RELREASON_HOME holding an earlier import of the 40 good rows (to show it survives)."""
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    assert main(["flenqa", "import", str(write_jsonl(tmp_path / "earlier.jsonl", GOOD))]) == 0
    return tmp_path / "home"


def _refused(home: Path, path: Path, capsys: pytest.CaptureFixture[str]) -> list[str]:
    """Import ``path``; it must be refused (exit 1) with nothing imported; the stderr lines."""
    before = dataset.imported_path().read_bytes()
    capsys.readouterr()
    assert main(["flenqa", "import", str(path)]) == 1
    captured = capsys.readouterr()
    assert "imported" not in captured.out
    assert dataset.imported_path().read_bytes() == before  # nothing of it, the earlier import whole
    assert not [p for p in dataset.imported_path().parent.iterdir() if p.name != dataset.IMPORTED_NAME]
    lines = captured.err.splitlines()
    assert lines[-1].startswith(f"{path.name}: ") and "nothing imported" in lines[-1]
    assert "Traceback" not in captured.err
    return lines


def _with(tmp_path: Path, name: str, *bad: Any, at: int = 20) -> Path:
    """The good rows with ``bad`` (rows or raw lines) put in before row ``at``."""
    return write_jsonl(tmp_path / name, [*GOOD[:at], *bad, *GOOD[at:]])


def test_a_mixin_far_longer_than_its_ctx_size_is_refused(home, tmp_path, capsys):
    low, high = release_bounds.mixin_chars(250)
    long_row = {**GOOD[0], "mixin": "The ferry left at dawn. " * (high // 24 + 1)}
    short_row = {**GOOD[0], "mixin": "Wren Halloway walked into the pantry."}
    lines = _refused(home, _with(tmp_path, "long.jsonl", long_row, short_row), capsys)
    assert lines[0] == (
        f"line 21: mixin is {len(long_row['mixin']):,} characters; a 250-token row of the study's has "
        f"{low:,} to {high:,}"
    )
    assert lines[1].startswith("line 22: mixin is 37 characters; a 250-token row")
    assert lines[2] == f"long.jsonl: 2 problem(s) in 2 of 42 rows; {REFUSED}"


def test_a_150_mb_line_is_measured_not_read(home, tmp_path, capsys):
    """The re-audit's 150 MB mixin: reported by its size without being parsed (the line is cut short
    here to 8 MB, well over the longest line a row within the bounds can take)."""
    size = 8 * 2**20
    assert size > release_bounds.max_row_bytes()
    huge = json.dumps({**GOOD[0], "mixin": "x" * size})
    (line,) = [x for x in _refused(home, _with(tmp_path, "huge.jsonl", huge), capsys) if x.startswith("line")]
    assert line.startswith(f"line 21: a line of {len(huge) + 1:,} bytes, longer than any row")


def test_ctx_size_outside_the_studys_lengths_is_refused(home, tmp_path, capsys):
    rows = [
        {**GOOD[0], "ctx_size": 10**30},
        {**GOOD[0], "ctx_size": 1e30},
        {**GOOD[0], "ctx_size": 750},
        {**GOOD[0], "ctx_size": -250},
        {**GOOD[0], "ctx_size": "250"},
        {**GOOD[0], "ctx_size": True},
    ]
    lines = _refused(home, _with(tmp_path, "ctx.jsonl", *rows), capsys)
    lengths = "(the study's: 250, 500, 1000, 2000, 3000)"
    assert lines[:6] == [
        "line 21: ctx_size 1000000000000000000000000000000 is not one of the study's lengths "
        "(250, 500, 1000, 2000, 3000)",
        "line 22: ctx_size 1e+30 is not one of the study's lengths (250, 500, 1000, 2000, 3000)",
        "line 23: ctx_size 750 is not one of the study's lengths (250, 500, 1000, 2000, 3000)",
        "line 24: ctx_size -250 is not one of the study's lengths (250, 500, 1000, 2000, 3000)",
        f"line 25: ctx_size is a text, not a number of tokens {lengths}",
        f"line 26: ctx_size is true/false, not a number of tokens {lengths}",
    ]


def test_an_id_that_is_not_a_scalar_is_refused(home, tmp_path, capsys):
    rows = [
        {**GOOD[0], "sample_id": {"id": 7}},
        {**GOOD[0], "sample_id": [7]},
        {**GOOD[0], "global_sample_id": {"nested": {"deeper": [1, 2]}}},
        {**GOOD[0], "sample_id": 7.5},
        {**GOOD[0], "sample_id": True},
        {**GOOD[0], "sample_id": "x" * 101},
        {**GOOD[0], "global_sample_id": 10**12},
    ]
    lines = _refused(home, _with(tmp_path, "ids.jsonl", *rows), capsys)
    assert lines[:7] == [
        "line 21: sample_id is a JSON object; an id is a text or a whole number",
        "line 22: sample_id is a list; an id is a text or a whole number",
        "line 23: global_sample_id is a JSON object; an id is a text or a whole number",
        "line 24: sample_id is a decimal number; an id is a text or a whole number",
        "line 25: sample_id is true/false; an id is a text or a whole number",
        "line 26: sample_id is 101 characters; an id is at most 100",
        "line 27: global_sample_id 1000000000000 is out of range (0 to 999,999,999)",
    ]


@pytest.mark.parametrize("constant", ["Infinity", "-Infinity", "NaN"])
def test_nan_and_infinity_are_one_line_not_a_traceback(home, tmp_path, capsys, constant):
    """``"ctx_size": Infinity`` was a 17-line OverflowError traceback."""
    line = json.dumps(GOOD[0]).replace('"ctx_size": 250', f'"ctx_size": {constant}')
    assert constant in line
    lines = _refused(home, _with(tmp_path, "inf.jsonl", line), capsys)
    assert (
        lines[0] == f"line 21: holds {constant}, which is not JSON (no field of the release is a non-number)"
    )


def test_huge_numbers_are_one_line(home, tmp_path, capsys):
    digits = json.dumps(GOOD[0]).replace('"ctx_size": 250', '"ctx_size": ' + "9" * 5000)
    overflow = json.dumps(GOOD[0]).replace('"ctx_size": 250', '"ctx_size": 1e400')  # Python reads inf
    lines = _refused(home, _with(tmp_path, "big.jsonl", digits, overflow), capsys)
    assert (
        lines[0] == "line 21: holds a number too long to read (no field of the release is a number that long)"
    )
    assert (
        lines[1]
        == "line 22: ctx_size inf is not a whole number of tokens (the study's: 250, 500, 1000, 2000, 3000)"
    )


def test_deep_nesting_is_one_line(home, tmp_path, capsys):
    deep = json.dumps(GOOD[0]).replace('"sample_id": 7', '"sample_id": ' + "[" * 100_000 + "]" * 100_000)
    shallow = {**GOOD[0], "facts": [[["Wren Halloway walked into the pantry."]]]}
    lines = _refused(home, _with(tmp_path, "deep.jsonl", deep, shallow), capsys)
    assert (
        lines[0]
        == "line 21: nested too deeply to read (no field of the release nests more than a list of texts)"
    )
    assert lines[1] == "line 22: facts item 1 is a list, not a text"


def test_wrong_types_in_every_field_are_named(home, tmp_path, capsys):
    row = {
        "global_sample_id": None,  # optional: null is no value, fine
        "sample_id": 7,
        "label": ["True"],
        "dataset": 5,
        "facts": "",
        "assertion/question": {"q": 1},
        "mixin": ["text"],
        "padding_type": None,
        "dispersion": "x" * 1000,
        "ctx_size": 250,
        "rule": 3,
    }
    lines = _refused(home, _with(tmp_path, "types.jsonl", row), capsys)
    assert lines[:-1] == [
        "line 21: missing padding_type",
        "line 21: dataset is a whole number, not a text (MonoRel, PIR, Simplified RuleTaker)",
        "line 21: dispersion is 1,000 characters, not a name (first, middle, last, random)",
        "line 21: label is a list, not True or False",
        "line 21: assertion/question is a JSON object, not a text",
        "line 21: mixin is a list, not a text",
        "line 21: facts is an empty text",
        "line 21: rule is a whole number, not a list of texts",
    ]
    assert lines[-1].startswith("types.jsonl: 8 problem(s) in 1 of 41 rows")


def _raw(rows: list[Any]) -> bytes:
    """JSONL bytes as a UTF-8 writer (not escaping to ASCII) writes them."""
    return b"".join(json.dumps(r, ensure_ascii=False).encode() + b"\n" for r in rows)


def test_non_utf8_bytes_name_their_line(home, tmp_path, capsys):
    latin1 = json.dumps({**GOOD[0], "facts": ["Wén Halloway walked into the pantry.", GOOD[0]["facts"][1]]})
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(
        _raw(GOOD[:20]) + latin1.replace("\\u00e9", "é").encode("latin-1") + b"\n" + _raw(GOOD[20:])
    )
    lines = _refused(home, path, capsys)
    column = latin1.replace("\\u00e9", "é").index("é") + 1
    assert lines[0] == f"line 21: not UTF-8 text (byte 0xe9 at byte {column}); save the file as UTF-8"


@pytest.mark.parametrize("cut", ["after 1 byte", "after 200 bytes", "before its last brace", "mid-character"])
def test_a_truncated_file_is_reported_as_truncated_at_its_last_line(home, tmp_path, capsys, cut):
    """A download cut off mid-row imported "as far as it goes" with exit 0, its last line called
    "not a JSON object"."""
    last = {**GOOD[-1], "mixin": GOOD[-1]["mixin"] + " Zoë"}
    whole = _raw([*GOOD[:-1], last])
    start = len(whole) - len(_raw([last]))  # where line 40 begins
    end = {
        "after 1 byte": start + 1,
        "after 200 bytes": start + 200,
        "before its last brace": len(whole) - 2,
        "mid-character": whole.rindex("ë".encode()) + 1,  # between the two bytes of ë
    }[cut]
    path = tmp_path / "cut.jsonl"
    path.write_bytes(whole[:end])
    lines = _refused(home, path, capsys)
    assert lines == [
        "line 40: the file ends mid-row here: it is truncated; download it again",
        "cut.jsonl: 1 problem(s) in 1 of 40 rows; nothing imported (fix them, or download the release again)",
    ]


def test_problems_are_capped_then_counted(home, tmp_path, capsys):
    bad = [{**row, "ctx_size": 1e30, "sample_id": {}} for row in GOOD]  # two problems per row
    lines = _refused(home, write_jsonl(tmp_path / "all_bad.jsonl", bad), capsys)
    shown = [x for x in lines if x.startswith("line ")]
    assert len(shown) == 20 and shown[0].startswith("line 1: sample_id is a JSON object")
    assert lines[20] == "… and 60 more"
    assert lines[21] == f"all_bad.jsonl: 80 problem(s) in 40 of 40 rows; {REFUSED}"
    assert len(lines) == 22


HOSTILE: list[tuple[str, str]] = [
    ("NaN", "NaN"),
    ("Infinity", "Infinity"),
    ("-Infinity", "-Infinity"),
    ("1e400", "1e400"),
    ("-1e400", "-1e400"),
    ("10**30", str(10**30)),
    ("5000 digits", "7" * 5000),
    ("-0.0", "-0.0"),
    ("true", "true"),
    ("null", "null"),
    ("empty text", '""'),
    ("empty object", "{}"),
    ("empty list", "[]"),
    ("object", '{"a": {"b": [1, {"c": null}]}}'),
    ("list of nulls", "[null, null]"),
    ("deep list", "[" * 5000 + "]" * 5000),
    ("deep object", '{"a":' * 5000 + "1" + "}" * 5000),
    ("long text", json.dumps("y" * 200_000)),
    ("escaped surrogate", '"\\ud800"'),
    ("control characters", '"\\u0000\\n\\r\\t"'),
]


# The release's fields (the study's analysis notebook, alonj/Same-Task-More-Tokens), named here rather
# than read from dataset.py so the test does not take its cases from the code it checks.
RELEASE_FIELDS = (
    "global_sample_id",
    "sample_id",
    "label",
    "dataset",
    "facts",
    "rule",
    "statement",
    "assertion/question",
    "mixin",
    "padding_type",
    "dispersion",
    "ctx_size",
)


def test_the_release_fields_are_the_ones_checked():
    assert set(dataset.FIELDS) == set(RELEASE_FIELDS)


@pytest.mark.parametrize("field", RELEASE_FIELDS)
def test_no_json_value_in_any_field_raises(home, tmp_path, capsys, field):
    """Every field x every hostile value: exit 1, one line per problem (no newline inside a line, no
    traceback), nothing imported.  Only the values a field may hold import: null where the field may be
    absent (``global_sample_id``; ``rule``, ``statement`` on a PIR row), ``true`` as a label."""
    for name, literal in HOSTILE:
        row = json.dumps({**GOOD[0], field: "PLACEHOLDER"}).replace('"PLACEHOLDER"', literal)
        path = _with(tmp_path, "hostile.jsonl", row)
        valid = {("global_sample_id", "null"), ("rule", "null"), ("statement", "null"), ("label", "true")}
        if (field, name) in valid:
            assert main(["flenqa", "import", str(path)]) == 0, name
            continue
        lines = _refused(home, path, capsys)
        assert lines[0].startswith("line 21: "), (name, lines)
        assert all(len(line) < 400 for line in lines), (name, lines)


def test_a_failed_write_leaves_the_earlier_import_whole(home, tmp_path, capsys, monkeypatch):
    """The disk fills mid-write: one line, and the earlier import stays byte for byte (written whole or
    not at all); an unwritable folder is one line too."""
    from relreason_dagster.benchmarks.flenqa import commands

    before = dataset.imported_path().read_bytes()
    real = json.dumps
    calls = {"n": 0}

    def full_after_ten(value: Any, **kwargs: Any) -> str:
        calls["n"] += 1
        if calls["n"] > 10:
            raise OSError(28, "No space left on device")
        return real(value, **kwargs)

    other = [{**row, "sample_id": 8} for row in GOOD]
    path = write_jsonl(tmp_path / "other.jsonl", other)
    with monkeypatch.context() as patched:
        patched.setattr(commands.json, "dumps", full_after_ten)
        assert main(["flenqa", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not written (No space left on device); it is as it was" in err
    assert dataset.imported_path().read_bytes() == before
    assert [p.name for p in dataset.imported_path().parent.iterdir()] == [dataset.IMPORTED_NAME]

    def read_only(value: Any, **kwargs: Any) -> str:
        raise OSError(30, "Read-only file system")

    with monkeypatch.context() as patched:
        patched.setattr(commands.json, "dumps", read_only)
        assert main(["flenqa", "import", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "(Read-only file system); nothing imported" in err
    assert dataset.imported_path().read_bytes() == before


def test_the_bounds_cover_the_papers_token_means():
    """``STUDY_MEAN_TO_TARGET`` and ``STUDY_LENGTHS`` hold every Appendix B cell (published.csv)."""
    with (FLENQA_DIR / "published.csv").open(encoding="utf-8") as handle:
        means = [r for r in csv.DictReader(handle) if r["metric"] == "mean_tokens"]
    assert len(means) == 30
    low, high = release_bounds.STUDY_MEAN_TO_TARGET
    assert {int(r["length"]) for r in means} == set(release_bounds.STUDY_LENGTHS)
    ratios = [float(r["value"]) / int(r["length"]) for r in means]
    assert low <= min(ratios) and max(ratios) <= high
    assert math.isclose(min(ratios), 238.06 / 250) and math.isclose(max(ratios), 305.36 / 250)
    assert release_bounds.mixin_chars(250) == (237, 4920)
    assert release_bounds.mixin_chars(3000) == (2850, 59040)
    for row in GOOD:  # the test's made-up rows are within the bounds too
        assert dataset.check_row(row)[2] == []


@pytest.mark.skipif(
    not flenqa_release(),
    reason="the reference copy holds no FLenQA release (RELREASON_REFERENCE_DIR/flenqa/)",
)
def test_the_released_file_passes_every_bound():
    """The study's own rows are within every bound (run whenever the reference copy holds them)."""
    for path in flenqa_release():
        checked = dataset.check_file(path)
        assert checked.problems == [], f"{path}: {checked.problems[:5]}"
        assert {facts["length"] for _, _, facts in checked.rows} <= set(release_bounds.STUDY_LENGTHS)
