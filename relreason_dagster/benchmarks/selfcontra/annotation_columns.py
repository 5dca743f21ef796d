"""Which column of an annotation file is which: header names first, the rest inferred from the values.

The study's files name their columns differently (three have no header at all), so the reader
(``annotations.py``) asks this module for each role: a header's known names win
(:func:`named_columns`), and :func:`infer_column_roles` classifies the other columns from what their
values look like (:class:`ColumnProfile`), never by guessing: when content does not tell accuracy
from self-contra, the file is refused with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from relreason_dagster.benchmarks.selfcontra.annotation_codes import (
    FLAG_VALUES,
    SC_CODES,
    code_key,
    is_category_cell,
    parse_categories,
    parse_type,
    type_agrees,
)

MANDATORY_ROLES = ("question", "response", "accuracy", "self_contra")


HEADER_ALIASES: dict[str, str] = {
    **dict.fromkeys(("question", "questions", "prompt", "prompt-question", "input"), "question"),
    **dict.fromkeys(("result", "results", "response", "responses", "output", "generation"), "response"),
    **dict.fromkeys(("acc", "accuracy", "correct", "is-correct"), "accuracy"),
    **dict.fromkeys(
        ("self-contra", "selfcontra", "self-contradiction", "self-contradictory", "sc"), "self_contra"
    ),
    **dict.fromkeys(("type", "types", "label", "reasoning-type"), "type"),
    **dict.fromkeys(
        ("finer", "finer-grained", "finergrained", "fine-grained", "finer-grained-category", "category")
        + ("categories",),
        "finer",
    ),
    **dict.fromkeys(("response-id", "id"), "response_id"),
    **{name: name for name in ("model", "setting", "dataset", "split", "gold", "predicted")},
}


QUESTION_PREFIX = re.compile(r"^\W*question\b", re.IGNORECASE)


RESPONSE_PREFIX = re.compile(r"^\W*(?:answer|reasoning|response|explanation|output)\b", re.IGNORECASE)


# Header cells that name a position, not a role: pandas' "Unnamed: 3", numbered headers, "col3".
PLACEHOLDER_HEADER = re.compile(
    r"^(?:unnamed:?\s*\d+(?:_level_\d+)?|(?:col|column|field)[\s_-]*\d+|\d+(?:\.0+)?)$", re.IGNORECASE
)


LONG_TEXT = 20  # mean characters of a question/response column; codes and labels are shorter


@dataclass(frozen=True)
class ColumnProfile:
    """What one column's non-empty values look like: the features the role classifier decides on."""

    index: int
    filled: int
    mean_length: float
    question_like: int  # starts with "Question"
    response_like: int  # starts with "Answer"/"Reasoning"/"Response"/"Explanation"/"Output"
    flags: int  # 0/1, true/false, yes/no
    codes: int  # self-contra codes: the flags plus 2/3/4/6
    labels: int  # a type (RR, rw, type 2, "Right reasoning -> wrong answer") or finer-grained categories
    types: int  # a type
    categories: int  # names at least one finer-grained category
    sequence: bool  # 0,1,2,... or 1,2,3,... on every record: a row index that pandas or a sheet added
    # Every type cell is "0" (not self-contra): a stray 0 column (the study's pro-test GPT-3.5 file has
    # one, unnamed, after its last named column), not a type column, which holds RR/WW/RW/WR/codes.
    zeros_only: bool = False

    def share(self, count: int) -> float:
        return count / self.filled if self.filled else 0.0

    @property
    def text(self) -> bool:
        """Question or response text: long on average, and not labels or codes."""
        return (
            self.filled > 0
            and not self.sequence
            and self.mean_length >= LONG_TEXT
            and self.share(self.codes) < 0.5
            and self.share(self.labels) < 0.5
        )

    @property
    def flag_like(self) -> bool:
        """Accuracy or self-contra: nearly all codes, at least half of them 0/1 (types 1/2/3 rarely are)."""
        if not self.filled or self.sequence:
            return False
        return self.share(self.codes) >= 0.9 and self.share(self.flags) >= 0.5

    @property
    def type_like(self) -> bool:
        """Type cells, which the study's files mix with category abbreviations (``rr``, ``Bq``, ``2``)."""
        return (
            not self.sequence
            and not self.zeros_only
            and self.share(self.labels) >= 0.7
            and self.share(self.types) >= 0.25
        )

    @property
    def category_like(self) -> bool:
        return not self.sequence and self.categories > 0 and self.share(self.categories) >= 0.5


@dataclass
class RoleInference:
    """Column roles (named ones as given, the rest inferred), how each was decided, or why it could not be."""

    columns: dict[str, int]
    notes: list[str] = field(default_factory=list)
    problem: str | None = None


def profile_column(index: int, values: Sequence[str]) -> ColumnProfile:
    """Count the kinds of value in one column (cells stripped; empty cells are not counted)."""
    cells = [value.strip() for value in values if value.strip()]
    keys = [code_key(cell) for cell in cells]
    types = [parse_type(cell)[1] for cell in cells]
    categories = [is_category_cell(cell) for cell in cells]
    numbers = [int(key) if key.isdigit() else None for key in keys]
    sequence = (
        len(cells) >= 3
        and len(cells) == len(values)
        and numbers[0] in (0, 1)
        and all(n is not None and n == numbers[0] + i for i, n in enumerate(numbers))
    )
    return ColumnProfile(
        index=index,
        filled=len(cells),
        mean_length=sum(map(len, cells)) / len(cells) if cells else 0.0,
        question_like=sum(bool(QUESTION_PREFIX.match(cell)) for cell in cells),
        response_like=sum(bool(RESPONSE_PREFIX.match(cell)) for cell in cells),
        flags=sum(key in FLAG_VALUES for key in keys),
        codes=sum(key in SC_CODES for key in keys),
        labels=sum(t or c for t, c in zip(types, categories, strict=True)),
        types=sum(types),
        categories=sum(categories),
        sequence=sequence,
        zeros_only=bool(keys) and all(key == "0" for key in keys),
    )


def infer_column_roles(
    columns: Sequence[Sequence[str]], known: dict[str, int] | None = None, *, release_layout: bool = False
) -> RoleInference:
    """Give a role to every column no header named, from the values alone (pure; ``columns[i][r]`` is row r).

    Names win: ``known`` roles are kept and their columns are not re-used.  A column of consecutive row
    numbers (a pandas/sheet index) never gets a role.  The rest, in this order:

    question, response
        Text columns (long values that are not codes or labels).  The question is the one whose values
        mostly start with "Question", the response the one whose values mostly start with "Answer" or
        "Reasoning" (the most such values wins, so a short stray copy loses to the real column).  Without
        those prefixes, the study's order decides: the leftmost text column is the question, the next text
        column to its right (else the leftmost other one) the response.
    accuracy, self-contra (the 0/1 pair)
        Columns of codes, at least half 0/1.  Annotating a response fills both, so the pair is the two such
        columns filled on the same rows most often (overlap x each column's 0/1 share); when one of the two
        is named, the candidate filled most often with it.  A second pair scoring within 5% of the best is
        ambiguous and stops here.  Which of the two is accuracy is then decided from content, never from
        order, by up to three kinds of evidence, each reported with its counts:

        * codes: only self-contra holds 2/3/4/6 (type codes), accuracy is strictly 0/1;
        * types: RR = right & not SC, WW = wrong & not SC, RW = wrong & SC, WR = right & SC, type3 = SC;
          each way round is scored by how many typed rows agree;
        * categories: the study writes a finer-grained category for a flawed response, so "the row has a
          category" should match "the row is not RR" (right and not SC); each way round is scored likewise.

        A kind of evidence counts when it has at least 3 informative rows and one reading beats the other by
        20 points of agreement.  If the counting kinds agree, that reading is taken; if two disagree, the
        file is not guessed at: ``problem`` says why and the caller skips the file.  If none counts, the
        pair is read in the release's layout only for a file in it (``release_layout``: named as the
        release names its section-2 files, with no header naming a column) when it is the two columns
        right after the response (accuracy first, as every release file that names its columns has them:
        the headerless Claude WinoGender files hold nothing else to tell them apart), and the note says
        so; otherwise the file is skipped.
    type, finer
        The column with the most type cells (at least 70% type or category cells, at least 25% types),
        then the column with the most category cells (at least half).  Both are optional.
    """
    known = dict(known or {})
    height = max((len(column) for column in columns), default=0)
    columns = [list(column) + [""] * (height - len(column)) for column in columns]  # ragged -> padded
    profiles = [profile_column(index, values) for index, values in enumerate(columns)]
    roles = dict(known)
    notes: list[str] = []

    def free() -> list[ColumnProfile]:
        taken = set(roles.values())
        return [p for p in profiles if p.index not in taken and p.filled and not p.sequence]

    sequences = [p.index for p in profiles if p.sequence and p.index not in known.values()]
    if sequences:
        notes.append(f"row-number column(s) {', '.join(map(str, sequences))} ignored")
    _infer_text_roles(roles, free(), notes)

    flag_roles = [role for role in ("accuracy", "self_contra") if role not in roles]
    pair: tuple[int, int] | None = None
    candidates = [p for p in free() if p.flag_like]
    if len(flag_roles) == 1:
        partner = roles["self_contra" if flag_roles[0] == "accuracy" else "accuracy"]
        scored = sorted(
            ((_co_filled(columns, partner, p.index) * p.share(p.flags), p.index) for p in candidates),
            reverse=True,
        )
        if scored and scored[0][0] > 0:
            if len(scored) > 1 and scored[1][0] >= 0.95 * scored[0][0]:
                return RoleInference(
                    roles,
                    notes,
                    f"cannot tell which of columns {scored[0][1]} and {scored[1][1]} is {flag_roles[0]}: "
                    f"both are 0/1 columns filled alongside column {partner}",
                )
            roles[flag_roles[0]] = scored[0][1]
            notes.append(f"{flag_roles[0]}={scored[0][1]}: the 0/1 column filled alongside column {partner}")
    elif len(flag_roles) == 2:
        scored_pairs = sorted(
            (
                (_co_filled(columns, a.index, b.index) * a.share(a.flags) * b.share(b.flags),)
                + (a.index, b.index)
                for i, a in enumerate(candidates)
                for b in candidates[i + 1 :]
            ),
            reverse=True,
        )
        if scored_pairs and scored_pairs[0][0] > 0:
            if len(scored_pairs) > 1 and scored_pairs[1][0] >= 0.95 * scored_pairs[0][0]:
                first, second = scored_pairs[0][1:], scored_pairs[1][1:]
                return RoleInference(
                    roles,
                    notes,
                    f"cannot tell which 0/1 columns are accuracy and self-contra: columns {first} and "
                    f"{second} fit equally well",
                )
            pair = scored_pairs[0][1], scored_pairs[0][2]
            roles["accuracy"], roles["self_contra"] = pair  # provisional: decided below from content

    if "type" not in roles:
        typed = sorted((p.types, -p.index) for p in free() if p.type_like)
        if typed:
            roles["type"] = -typed[-1][1]
            notes.append(f"type={roles['type']}: {typed[-1][0]} type cells (RR/WW/RW/WR/codes)")
    if "finer" not in roles:
        found = sorted((p.categories, -p.index) for p in free() if p.category_like)
        if found:
            roles["finer"] = -found[-1][1]
            notes.append(f"finer={roles['finer']}: {found[-1][0]} finer-grained category cells")

    if pair is not None:
        response = roles.get("response") if release_layout else None
        swapped, reason = _tell_flags_apart(columns, pair, roles.get("type"), roles.get("finer"), response)
        if swapped is None:
            del roles["accuracy"], roles["self_contra"]
            return RoleInference(roles, notes, reason)
        roles["accuracy"], roles["self_contra"] = (pair[1], pair[0]) if swapped else pair
        notes.append(f"accuracy={roles['accuracy']}, self_contra={roles['self_contra']}: {reason}")
    return RoleInference(roles, notes)


def _infer_text_roles(roles: dict[str, int], free: list[ColumnProfile], notes: list[str]) -> None:
    """question and response (see :func:`infer_column_roles`); fills ``roles`` and ``notes`` in place."""
    text = [p for p in free if p.text]
    for role, prefixed in (("question", "question_like"), ("response", "response_like")):
        if role in roles:
            continue
        best = max(
            (p for p in text if p.index not in roles.values() and getattr(p, prefixed) >= 0.5 * p.filled),
            key=lambda p: (getattr(p, prefixed), -p.index),
            default=None,
        )
        if best is not None:
            roles[role] = best.index
            word = "Question" if role == "question" else "Answer/Reasoning"
            notes.append(f"{role}={best.index}: {getattr(best, prefixed)} values start with {word}")
    rest = [p.index for p in text if p.index not in roles.values()]
    if "question" not in roles and rest:
        roles["question"] = rest.pop(0)
        notes.append(f"question={roles['question']}: leftmost text column (no 'Question' prefix)")
    if "response" not in roles and rest:
        after = [index for index in rest if index > roles.get("question", -1)]
        roles["response"] = (after or rest)[0]
        notes.append(f"response={roles['response']}: next text column (no 'Answer'/'Reasoning' prefix)")


def _co_filled(columns: Sequence[Sequence[str]], a: int, b: int) -> int:
    """Rows where both columns hold a value."""
    return sum(1 for x, y in zip(columns[a], columns[b], strict=True) if x.strip() and y.strip())


def _flags(accuracy_cell: str, sc_cell: str) -> tuple[bool, bool] | None:
    """(correct, self-contradictory) when both cells read as those roles, else None."""
    correct = FLAG_VALUES.get(code_key(accuracy_cell))
    code = SC_CODES.get(code_key(sc_cell))
    return None if correct is None or code is None else (correct, code[0])


def _tell_flags_apart(
    columns: Sequence[Sequence[str]],
    pair: tuple[int, int],
    type_at: int | None,
    finer_at: int | None,
    response_at: int | None = None,
) -> tuple[bool | None, str]:
    """(swapped, why): is the left column of ``pair`` self-contra rather than accuracy?  None if undecided.

    The rules are in :func:`infer_column_roles`; ``why`` carries every count so a reader can check them.
    """
    left, right = (columns[i] for i in pair)
    rows = [i for i, (a, b) in enumerate(zip(left, right, strict=True)) if a.strip() and b.strip()]
    verdicts: list[tuple[bool, str]] = []

    def extra_codes(cells: Sequence[str]) -> int:
        keys = [code_key(cells[i]) for i in rows]
        return sum(1 for key in keys if key in SC_CODES and key not in FLAG_VALUES)

    extra_left, extra_right = extra_codes(left), extra_codes(right)
    if bool(extra_left) != bool(extra_right):
        swapped = extra_left > 0
        verdicts.append(
            (
                swapped,
                f"only column {pair[0] if swapped else pair[1]} holds codes 2/3/4/6 "
                f"({max(extra_left, extra_right)} cells), so it is self-contra",
            )
        )

    def score(name: str, judge: Any) -> None:
        """``judge(i, flags)`` -> True/False (agrees or not), None (row not informative)."""
        as_is = swapped_ = informative = 0
        for i in rows:
            reading, flipped = _flags(left[i], right[i]), _flags(right[i], left[i])
            verdict = judge(i, reading), judge(i, flipped)
            if verdict == (None, None):
                continue
            informative += 1
            as_is += bool(verdict[0])
            swapped_ += bool(verdict[1])
        if informative >= 3 and abs(as_is - swapped_) >= 0.2 * informative:
            verdicts.append(
                (
                    swapped_ > as_is,
                    f"{name} fit accuracy={pair[1] if swapped_ > as_is else pair[0]} on "
                    f"{max(as_is, swapped_)}/{informative} rows, accuracy="
                    f"{pair[0] if swapped_ > as_is else pair[1]} on {min(as_is, swapped_)}/{informative}",
                )
            )

    def type_of(i: int) -> str | None:
        if type_at is None or i >= len(columns[type_at]):
            return None
        return parse_type(columns[type_at][i])[0]

    def by_type(i: int, flags: tuple[bool, bool] | None) -> bool | None:
        type_ = type_of(i)
        if type_ is None:
            return None
        return flags is not None and type_agrees(type_, *flags)

    def by_category(i: int, flags: tuple[bool, bool] | None) -> bool | None:
        cells = [columns[finer_at][i]] if finer_at is not None else []
        if type_at is not None and type_of(i) is None:
            cells.append(columns[type_at][i])
        found = {c for cell in cells for c in parse_categories(cell)[0]} - {"no_reasoning", "no_answer"}
        return flags is not None and bool(found) == (not (flags[0] and not flags[1]))

    if type_at is not None:
        score("type codes", by_type)
    if finer_at is not None or type_at is not None:
        score("finer-grained categories (a category marks a response that is not RR)", by_category)
    decided = {swapped for swapped, _ in verdicts}
    evidence = "; ".join(reason for _, reason in verdicts)
    if len(decided) == 1:
        return decided.pop(), evidence
    if decided:
        return None, (
            f"0/1 columns {pair[0]} and {pair[1]}: the evidence for which is accuracy and which self-contra "
            f"conflicts ({evidence}); name them in a header row"
        )
    if response_at is not None and sorted(pair) == [response_at + 1, response_at + 2]:
        # The last resort, for the release's own layout only (its Claude WinoGender files: no header, no
        # type column, no codes, no categories): every file of the release that names its columns puts
        # accuracy, then self-contra, right after the response, so these two read the same way.
        return pair[0] > pair[1], (
            f"nothing in the values tells accuracy from self-contra, so the release's layout decides: every "
            f"release file that names its columns has accuracy, then self-contra, right after the response "
            f"(column {response_at})"
        )
    return None, (
        f"0/1 columns {pair[0]} and {pair[1]}: nothing tells accuracy from self-contra (no header names "
        "them, no codes 2/3/4/6, too few type codes or categories that fit one reading); "
        "name them in a header row"
    )


def normalise_header(cell: str) -> str:
    return re.sub(r"[\s_]+", "-", cell.strip().lower())


def header_kind(first: Sequence[str], rest: Sequence[Sequence[str]]) -> str | None:
    """How the first record names the columns, or None when it is data (a prompt, not a column name).

    * ``named``: at least one known column name (the rest may be anything).
    * ``placeholder``: only position names (``0,1,2``, ``1,2,3``, ``Unnamed: 0``, ``col3``) and empty
      cells, as pandas and spreadsheets write them.  A blank first record counts as a blank header: it
      holds no annotation either way, and the records are numbered after it.
    * ``unknown``: unknown words, told from a data record by the body: wherever the other records hold long
      text (the question, the response), this record holds a short label that starts like neither.
    """
    cells = [cell.strip() for cell in first]
    if any("\n" in cell or len(cell) > 80 for cell in cells):
        return None
    if any(HEADER_ALIASES.get(normalise_header(cell)) for cell in cells):
        return "named"
    if all(not cell or PLACEHOLDER_HEADER.match(cell) for cell in cells):
        return "placeholder"
    text_columns = [
        profile.index
        for profile in (
            profile_column(i, [r[i] if i < len(r) else "" for r in rest]) for i in range(len(cells))
        )
        if profile.text
    ]
    labels = [cells[i] for i in text_columns if i < len(cells)]
    if text_columns and all(
        len(cell) < LONG_TEXT and not QUESTION_PREFIX.match(cell) and not RESPONSE_PREFIX.match(cell)
        for cell in labels
    ):
        return "unknown"
    return None


def header_label(kind: str | None, inferred: set[str]) -> str:
    """``ImportResult.header``: "named" only when every role came from a column name."""
    if kind == "named":
        return "named + inferred" if inferred else "named"
    return {None: "none", "placeholder": "numbered/unnamed", "unknown": "unknown names"}[kind] + " (inferred)"


def named_columns(first: Sequence[str]) -> dict[str, int]:
    """Roles of the columns a header row names (the first column wins when two carry one name)."""
    columns: dict[str, int] = {}
    for index, cell in enumerate(first):
        role = HEADER_ALIASES.get(normalise_header(cell))
        if role is not None and role not in columns:
            columns[role] = index
    return columns
