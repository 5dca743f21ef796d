"""The column-role classifier of annotation imports (:func:`infer_column_roles`), on synthetic columns.

Pure function tests: columns are lists of cells (row-aligned), no files, no reference folder.  They pin
each rule of the classifier's docstring, the ambiguous cases it must refuse rather than guess, and that
header names (``known``) always win over content.
"""

from __future__ import annotations

import random

from relreason_dagster.benchmarks.selfcontra.annotation_columns import infer_column_roles, profile_column

# Eight annotated responses: (question, response, accuracy, self-contra, type, finer-grained category).
_LABELS = [
    ("nurse", "1", "0", "rr", ""),
    ("waiter", "0", "0", "ww", "evidence missing"),
    ("mover", "0", "1", "rw", "incomplete reasoning"),
    ("cook", "1", "1", "wr", "begging the question"),
    ("judge", "1", "0", "rr", ""),
    ("CEO", "1", "0", "rr", "good reasoning"),
    ("driver", "0", "0", "ww", "wrong context"),
    ("lawyer", "1", "1", "wr", "questionable cause"),
]
ROWS = [
    (
        f"Question: The {who} met the clerk because she was late. Who is 'she'?",
        f"Answer: the {who}. Reasoning: -",
    )
    + tuple(labels)
    for who, *labels in _LABELS
]
ROLES = ("question", "response", "accuracy", "self_contra", "type", "finer")


def _columns(order: list[int], rows=ROWS) -> list[list[str]]:
    """Columns of ``rows`` in the given order of the study's six columns."""
    return [[row[i] for row in rows] for i in order]


def _expect(order: list[int], roles=ROLES) -> dict[str, int]:
    return {ROLES[source]: position for position, source in enumerate(order) if ROLES[source] in roles}


def test_profile_counts_kinds_of_value() -> None:
    flags = profile_column(2, ["1", "0", "", "1.0", "#REF!"])
    assert (flags.filled, flags.flags, flags.codes) == (4, 3, 3) and not flags.flag_like  # 3/4 < 90% codes
    assert profile_column(0, ["1", "0", "1", "0"]).flag_like
    sc_codes = profile_column(3, ["0", "1", "4", "2", "0"])
    assert sc_codes.flag_like and sc_codes.codes == 5 and sc_codes.flags == 3
    index = profile_column(0, ["0", "1", "2", "3"])
    assert index.sequence and not index.flag_like and not index.type_like
    assert not profile_column(0, ["1", "0", "1", "0"]).sequence
    assert not profile_column(0, ["0", "1", "", "3"]).sequence  # a row index is filled on every row
    types = profile_column(4, ["RR", "Bq", "rw", "Wek", "type 2"])
    assert types.type_like and (types.types, types.labels) == (3, 5)
    finer = profile_column(5, ["Evidence missing & ir", "bq", "??", "no prediction"])
    assert finer.category_like and finer.categories == 3 and not finer.text


def test_study_order_and_every_reordering_give_the_same_roles() -> None:
    for order in ([0, 1, 2, 3, 4, 5], [3, 5, 1, 4, 0, 2], [5, 4, 3, 2, 1, 0], [1, 0, 3, 2, 5, 4]):
        inferred = infer_column_roles(_columns(order))
        assert inferred.problem is None, (order, inferred.problem)
        assert inferred.columns == _expect(order), order
        assert any(note.startswith(f"accuracy={order.index(2)}, self_contra=") for note in inferred.notes)


def test_accuracy_and_self_contra_told_apart_by_each_kind_of_evidence() -> None:
    # Types alone (no category column): self-contra first, as in the study's GPT-3.5 files.
    inferred = infer_column_roles(_columns([0, 1, 3, 4, 2]))
    assert inferred.columns == _expect([0, 1, 3, 4, 2]) and inferred.problem is None
    assert "type codes fit accuracy=4 on 8/8 rows, accuracy=2 on 4/8" in inferred.notes[-1]
    # Categories alone (no type column).
    inferred = infer_column_roles(_columns([0, 1, 3, 2, 5]))
    assert inferred.columns == _expect([0, 1, 3, 2, 5]) and "categories" in inferred.notes[-1]
    # Codes alone: only self-contra may hold 2/3/4/6 (here 4 = no reasoning), accuracy is strictly 0/1.
    rows = [row[:3] + ("4" if i == 0 else row[3],) for i, row in enumerate(ROWS)]
    inferred = infer_column_roles(_columns([0, 1, 3, 2], rows))
    assert inferred.columns == {"question": 0, "response": 1, "self_contra": 2, "accuracy": 3}
    assert "only column 2 holds codes 2/3/4/6 (1 cells), so it is self-contra" in inferred.notes[-1]


def test_two_flag_columns_without_evidence_are_refused_not_guessed() -> None:
    inferred = infer_column_roles(_columns([0, 1, 2, 3]))
    assert inferred.problem is not None and "nothing tells accuracy from self-contra" in inferred.problem
    assert "accuracy" not in inferred.columns and "self_contra" not in inferred.columns
    # Type codes that say column 2 is accuracy and categories (moved to the wrong rows) that say column 3
    # is: conflicting evidence is refused too.
    rows = [(q, r, a, s, t, "" if c else "wrong context") for q, r, a, s, t, c in ROWS]
    conflict = infer_column_roles(_columns([0, 1, 2, 3, 4, 5], rows))
    assert conflict.problem is not None and "conflicts" in conflict.problem, conflict.notes
    assert "type codes fit accuracy=2" in conflict.problem and "categories" in conflict.problem
    assert "fit accuracy=3" in conflict.problem


def test_known_names_win_and_content_fills_the_rest() -> None:
    columns = _columns([0, 1, 2, 3, 4, 5])
    # A header that (wrongly or not) names column 3 accuracy: the name wins, content gives the partner.
    inferred = infer_column_roles(columns, {"accuracy": 3})
    assert inferred.columns["accuracy"] == 3 and inferred.columns["self_contra"] == 2
    assert inferred.columns["question"] == 0 and inferred.columns["type"] == 4
    named = {"question": 0, "response": 1, "accuracy": 2, "self_contra": 3, "type": 4, "finer": 5}
    assert infer_column_roles(columns, named).columns == named
    assert infer_column_roles(columns, named).notes == []


def test_row_index_numeric_types_and_stray_columns_get_no_flag_role() -> None:
    index = [str(i) for i in range(len(ROWS))]
    # Numeric type codes filled on the self-contradictory rows only (1/2/3, as in the Mistral files).
    numeric_types = ["", "", "1", "2", "", "", "", "2"]
    stray = ["?", "", "", "", "??", "", "", ""]
    columns = [index, *_columns([0, 1, 2, 3]), numeric_types, _columns([5])[0], stray]
    inferred = infer_column_roles(columns)
    assert inferred.problem is None
    assert inferred.columns == {
        "question": 1,
        "response": 2,
        "accuracy": 3,
        "self_contra": 4,
        "type": 5,
        "finer": 6,
    }
    assert inferred.notes[0] == "row-number column(s) 0 ignored"


def test_text_columns_without_prefixes_fall_back_to_the_study_order() -> None:
    rows = [(q.removeprefix("Question: "), r.removeprefix("Answer: "), *rest) for q, r, *rest in ROWS]
    inferred = infer_column_roles(_columns([0, 1, 2, 3, 4, 5], rows))
    assert inferred.columns == _expect([0, 1, 2, 3, 4, 5])
    assert "leftmost text column" in inferred.notes[0]
    # With prefixes the order does not matter: the response column may come first.
    assert infer_column_roles(_columns([1, 0, 2, 3, 4, 5])).columns == _expect([1, 0, 2, 3, 4, 5])


def test_two_equally_good_flag_pairs_are_ambiguous() -> None:
    copy = _columns([2, 3])
    inferred = infer_column_roles([*_columns([0, 1, 2, 3]), *copy])
    assert inferred.problem is not None and "fit equally well" in inferred.problem


def test_nothing_recognisable_gives_no_roles_and_no_crash() -> None:
    assert infer_column_roles([]).columns == {}
    inferred = infer_column_roles([["a", "c"], ["b", "d"]])
    assert inferred.columns == {} and inferred.problem is None
    assert infer_column_roles([["", ""], ["", ""]]).columns == {}


def test_random_tables_never_raise_and_roles_are_distinct_columns() -> None:
    """Fuzz: whatever the cells, the classifier answers (roles on distinct columns, or a problem)."""
    rng = random.Random(16)
    vocabulary = ["", "", "0", "1", "2", "4", "6", "1.0", "#REF!", "rr", "WR", "Bq", "sc", "ir & em", "??"]
    vocabulary += [row[0] for row in ROWS[:3]] + [row[1] for row in ROWS[:3]] + ["Reasoning: x", "7", "0"]
    for _ in range(300):
        width, height = rng.randint(0, 9), rng.randint(0, 12)
        columns = [[rng.choice(vocabulary) for _ in range(rng.randint(0, height))] for _ in range(width)]
        inferred = infer_column_roles(columns)
        assert len(set(inferred.columns.values())) == len(inferred.columns)
        assert all(0 <= index < width for index in inferred.columns.values())
        assert inferred.problem is None or "\n" not in inferred.problem


def test_the_release_layout_without_evidence_reads_accuracy_first_and_says_so() -> None:
    """The study's Claude WinoGender files (issue 57): question, response and two bare 0/1 columns, no
    header, types, codes or categories.  Every release file that names its columns has accuracy, then
    self-contra, right after the response, so these read the same way, and the note says why."""
    inferred = infer_column_roles(_columns([0, 1, 2, 3]), release_layout=True)
    assert inferred.problem is None
    assert inferred.columns == {"question": 0, "response": 1, "accuracy": 2, "self_contra": 3}
    assert "the release's layout decides" in inferred.notes[-1]
    # Not right after the response: the layout says nothing, refused as any file would be.
    moved = infer_column_roles(_columns([2, 3, 0, 1]), release_layout=True)
    assert moved.problem is not None and "nothing tells accuracy from self-contra" in moved.problem
