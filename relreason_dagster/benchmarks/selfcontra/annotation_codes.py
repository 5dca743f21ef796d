"""The Self-Contra annotation vocabulary: what a cell of a released annotation file may say, and how
each reading is normalised (flags and self-contra codes, types, finer-grained categories).

Kept apart from the file reader (``annotations.py``) and the column classifier (``annotation_columns.py``)
because both read cells with it: the classifier counts which column holds codes, types or categories, the
reader turns a row's cells into an :class:`~.annotations.AnnotationRow`. The readings themselves are
documented in ``annotations.py`` (Self-contra codes, Types, Categories).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

CATEGORIES = (
    "evidence_missing",
    "incomplete_reasoning",
    "questionable_cause",
    "begging_the_question",
    "wrong_context_knowledge",
    "wrong_external_knowledge",
    "self_contradictory",
    "no_reasoning",
    "no_answer",
)


TYPES = ("RR", "WW", "type1", "type2", "type3")


FLAG_VALUES = {"1": True, "0": False, "true": True, "false": False, "yes": True, "no": False}


# self-contra cell -> (self-contradictory, implied type, implied category)
SC_CODES: dict[str, tuple[bool, str | None, str | None]] = {
    "0": (False, None, None),
    "1": (True, None, None),
    "2": (True, "type2", None),
    "3": (True, "type3", None),
    "4": (False, None, "no_reasoning"),
    "6": (False, None, "no_answer"),
    "true": (True, None, None),
    "false": (False, None, None),
    "yes": (True, None, None),
    "no": (False, None, None),
}


NOT_SC = "not-self-contra"  # a type cell of "0": explicitly not self-contradictory, answer decides RR/WW


TYPE_VALUES: dict[str, str] = {
    "rr": "RR",
    "ww": "WW",
    "rw": "type1",
    "wr": "type2",
    **dict.fromkeys(("1", "type1", "type 1", "t1"), "type1"),
    **dict.fromkeys(("2", "type2", "type 2", "t2"), "type2"),
    **dict.fromkeys(("3", "type3", "type 3", "t3", "self contra", "self contradictory", "sc"), "type3"),
    "0": NOT_SC,
}


ARROW_TYPE = re.compile(r"^(right|correct|wrong|incorrect) reasoning\s*-*>\s*(right|correct|wrong|incorrect)")


CATEGORY_VALUES: dict[str, str | None] = {
    **dict.fromkeys(("evidence missing", "em", "missing evidence"), "evidence_missing"),
    **dict.fromkeys(("incomplete reasoning", "ir", "incomplete"), "incomplete_reasoning"),
    **dict.fromkeys(("questionable cause", "question cause", "qc", "questionable"), "questionable_cause"),
    **dict.fromkeys(
        ("begging the question", "begging question", "bq", "circular reasoning", "circular", "cr"),
        "begging_the_question",
    ),
    **dict.fromkeys(
        ("wrong context knowledge", "wrong context", "wck", "wrong info", "wrong information"),
        "wrong_context_knowledge",
    ),
    **dict.fromkeys(("wrong external knowledge", "wrong external", "wek"), "wrong_external_knowledge"),
    **dict.fromkeys(
        ("self contra", "sc", "self contradictory", "self contradiction", "self contradicting"),
        "self_contradictory",
    ),
    **dict.fromkeys(("no reasoning", "nr"), "no_reasoning"),
    **dict.fromkeys(("no answer", "no prediction", "na"), "no_answer"),
    **dict.fromkeys(("good reasoning", "good", "none", "n/a", "-"), None),
    **{name.replace("_", " "): name for name in CATEGORIES},
}


# Labels whose reading is a judgement call: each use is noted on the row.
UNSURE_CATEGORY_WORDS = frozenset({"wrong info", "wrong information"})


CATEGORY_SPLIT = re.compile(r"\s*(?:[&/,;+|]|\band\b)\s*")


CODE_NUMBER = re.compile(r"^(\d+)\.0*$")


def code_key(value: str) -> str:
    """'1', '1.0', ' 1 ' -> '1' (spreadsheets export integers as floats); other text lower-cased."""
    value = value.strip().lower()
    match = CODE_NUMBER.match(value)
    return match.group(1) if match else value


def parse_type(value: str) -> tuple[str | None, bool]:
    """(type or NOT_SC or None, recognised)."""
    key = re.sub(r"[\s_-]+", " ", value.strip().lower()).strip(" .")
    if key in TYPE_VALUES:
        return TYPE_VALUES[key], True
    squeezed = key.replace(" ", "")
    if squeezed in TYPE_VALUES:
        return TYPE_VALUES[squeezed], True
    arrow = ARROW_TYPE.match(value.strip().lower())
    if arrow:
        reasoning_right = arrow.group(1) in ("right", "correct")
        answer_right = arrow.group(2) in ("right", "correct")
        table = {(True, True): "RR", (False, False): "WW", (True, False): "type1", (False, True): "type2"}
        return table[(reasoning_right, answer_right)], True
    return None, False


def parse_categories(value: str) -> tuple[list[str], list[str], list[str]]:
    """(categories, unknown words, notes) of one cell of free text or abbreviations."""
    categories: list[str] = []
    unknown: list[str] = []
    notes: list[str] = []
    for token in CATEGORY_SPLIT.split(value.strip()):
        key = re.sub(r"[\s_-]+", " ", token.strip().lower()).strip(" .?!:")
        if not key:
            continue
        if key not in CATEGORY_VALUES:
            unknown.append(token.strip())
            continue
        category = CATEGORY_VALUES[key]
        if key in UNSURE_CATEGORY_WORDS:
            notes.append(f"category '{token.strip()}' read as {category}")
        if category is not None and category not in categories:
            categories.append(category)
    return categories, unknown, notes


def derive_type(correct: bool, self_contra: bool) -> str:
    if self_contra:
        return "type2" if correct else "type1"
    return "RR" if correct else "WW"


def type_agrees(type_: str, correct: bool, self_contra: bool) -> bool:
    if type_ == "type3":
        return self_contra
    if type_ == NOT_SC:
        return not self_contra
    return type_ == derive_type(correct, self_contra)


WRONG_REASONING = frozenset(
    {"questionable_cause", "begging_the_question", "wrong_context_knowledge", "wrong_external_knowledge"}
)


RIGHT_REASONING = frozenset({"evidence_missing", "incomplete_reasoning"})


def implied_by_categories(correct: bool, categories: Sequence[str]) -> bool | None:
    """Self-Contra as §3 defines it from the categories alone, or None when they do not decide.

    A wrong-reasoning category (§3.2) with a right answer is Type2; only correct-reasoning categories
    (§3.1) with a wrong answer is Type1; self-contradictory is Type3; a wrong-reasoning category with a
    wrong answer is WW.  A correct-reasoning category with a right answer (RR) or no category says nothing.
    """
    found = set(categories)
    if "self_contradictory" in found:
        return True
    if found & WRONG_REASONING:
        return correct
    if found & RIGHT_REASONING and not correct:
        return True
    return None


def is_category_cell(value: str) -> bool:
    """A cell of finer-grained categories: a known category, and no more unknown words than known ones."""
    found, unknown, _ = parse_categories(value)
    if found:
        return len(unknown) <= len(found)
    key = re.sub(r"[\s_-]+", " ", value.strip().lower()).strip(" .?!:")
    return key in CATEGORY_VALUES  # "good reasoning", "none": a category cell that names no flaw
