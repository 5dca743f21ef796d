"""Readers of model answers: nl statements and tv truth-value lists; they never raise.

Both readers first drop a hallucinated continuation: small models often go on
with a new ``Question:`` (or ``Now this is the question``) after answering, and
statements about that invented question must not count.  Only the last
``MAX_CHARS`` (tv: ``MAX_TV_CHARS``) characters are then read, so a 1 MB answer costs milliseconds.
All regular expressions are linear (no nested quantifiers).

nl: statements in the task's answer format (``P2 has sister``, ``P4 is P0's
uncle``, ``P0 and P3 are 4-connected``, ``P2 has outdegree 1``) are collected
after the last answer marker (``Final answer``, ``Answer:``, ``the answer is``)
when that part holds any, else from the whole text: a CoT answer is judged by
its final answer, and an answer without a marker by all its statements.
Markdown (``**``, backticks, ``$``), curly quotes and bullets are ignored;
negated sentences ("P4 is not P0's uncle") do not match.  A few lenient
paraphrases are accepted: ``a``/``the`` before the word, "P4 is the uncle of
P0", "grandfather"/"grandmother" for grandparent.  Names outside ``P0..P(n-1)``
are dropped and counted in ``detail["out_of_range"]``; an answer whose only
statements name such people is still read (an empty prediction).  No statement
at all is ``na`` unless the answer part starts with "None" (or "no one",
"nobody", "nothing", "no pairs", "empty", "[]"), which is the empty prediction.

tv: the last bracketed list of 0/1 (or True/False) values, nested at most four
deep, is the answer; it must have the target's shape (n values for unary
targets, also accepted as 1 x n or n x 1; n lists of n values for binary ones),
else ``na``.  The bracket scan is hand-written, no ``eval``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from relreason_dagster.benchmarks.relational.tasks import FAMILY, TaskSpec, task_spec

MAX_CHARS = 200_000  # nl answers: statements may be spread over a long CoT
MAX_TV_CHARS = 50_000  # tv answers: a 20 x 20 matrix is about 1,300 characters
MAX_TV_CANDIDATES = 1_000
MAX_TV_WORK = 2_000_000  # characters tokenised over all tv candidates
MAX_DEPTH = 4

Cell = tuple[int, ...]

# Patterns run on the lower-cased answer, so none needs IGNORECASE, and each starts with a
# literal (the name's "p", then a look-behind) so that the regex engine can skip ahead fast.
_NAME = r"p(?<![a-z0-9]p)\s?([0-9]{1,6})(?![0-9])"
_NOW_QUESTION = re.compile(r"now this is the question")
_LINE_QUESTION = re.compile(r"\n[ \t#>*-]*question[ \t]*:")  # a "Question:" line
_ANSWER_MARKER = re.compile(r"answer(?:\s*(?:is|are))?\s*:|answers?\s+(?:is|are)\b")
_NONE = re.compile(
    r"[\s:\-.,;>#]*(?:none|no\s+one|nobody|nothing|no\s+pairs?|no\s+nodes?|no\s+such|empty|\[\s*\])"
)
_STRIP = str.maketrans({"*": None, "`": None, "$": None, "\\": None, "\u2019": "'", "\u2018": "'"})
_TV_TOKEN = re.compile(r"\s*(\[|\]|,|true|false|1|0)")
_BRACKET = re.compile(r"[\[\]]")


@dataclass
class ParseResult:
    """What a reader found: ``ok`` with cells (within the domain) or ``na``."""

    status: str
    cells: set[Cell] = field(default_factory=set)
    detail: dict[str, Any] = field(default_factory=dict)


def _cut_continuation(text: str) -> tuple[str, bool]:
    """The answer up to a hallucinated next question (a question at the very start is kept)."""
    first = len(text) - len(text.lstrip())
    cuts = [
        m.start() for m in (_NOW_QUESTION.search(text, first + 1), _LINE_QUESTION.search(text, first)) if m
    ]
    if not cuts:
        return text, False
    return text[: min(cuts)], True


def _prepare(text: Any, max_chars: int) -> tuple[str, dict[str, Any]]:
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    detail: dict[str, Any] = {"chars": len(text)}
    text, cut = _cut_continuation(text.lower())
    if cut:
        detail["cut_continuation"] = True
    if len(text) > max_chars:
        text = text[-max_chars:]
        detail["truncated"] = True
    return text, detail


# -- nl ------------------------------------------------------------------------------------------------


def _word_regex(spec: TaskSpec) -> str:
    if spec.name == "IsGrandparent":
        return r"grand-?(?:parent|father|mother)"
    if spec.name == "IsMGUncle":
        return r"maternal\s+(?:great|grand)[\s-]*uncle"
    return re.escape(spec.word)


def _statement_patterns(spec: TaskSpec) -> list[tuple[re.Pattern[str], str]]:
    """``(pattern, order)``: order says which group is x (``xy``) or y first (``yx``)."""
    word = _word_regex(spec)
    flags = 0
    if spec.domain == FAMILY and spec.arity == 1:
        return [(re.compile(rf"{_NAME}\s+has\s+(?:an?\s+|the\s+)?(?:relation\s+)?{word}s?\b", flags), "x")]
    if spec.domain == FAMILY:
        return [
            (re.compile(rf"{_NAME}\s+is\s+{_NAME}\s?'\s?s\s+{word}\b", flags), "yx"),
            (re.compile(rf"{_NAME}\s+is\s+(?:the\s+|an?\s+)?{word}\s+of\s+{_NAME}", flags), "yx"),
        ]
    if spec.hops:
        return [
            (re.compile(rf"{_NAME}\s+and\s+{_NAME}\s+are\s+{spec.hops}[\s-]?connected\b", flags), "xy"),
        ]
    return [
        (
            re.compile(
                rf"{_NAME}\s+has\s+(?:an?\s+)?out-?\s?degree\s+(?:of\s+)?(?:exactly\s+)?{spec.degree}(?!\d|\.\d)",
                flags,
            ),
            "x",
        )
    ]


_PATTERNS: dict[str, list[tuple[re.Pattern[str], str]]] = {}


def _patterns(spec: TaskSpec) -> list[tuple[re.Pattern[str], str]]:
    if spec.name not in _PATTERNS:
        _PATTERNS[spec.name] = _statement_patterns(spec)
    return _PATTERNS[spec.name]


def _statements(spec: TaskSpec, text: str) -> list[Cell]:
    cells: list[Cell] = []
    for pattern, order in _patterns(spec):
        for match in pattern.finditer(text):
            if order == "x":
                cells.append((int(match.group(1)),))
            elif order == "xy":
                cells.append((int(match.group(1)), int(match.group(2))))
            else:
                cells.append((int(match.group(2)), int(match.group(1))))
    return cells


def parse_nl(text: Any, task: str, n: int) -> ParseResult:
    """Cells stated in an nl (or CoT) answer; see the module docstring for the rules."""
    try:
        spec = task_spec(task)
        body, detail = _prepare(text, MAX_CHARS)
        body = body.translate(_STRIP)
        markers = list(_ANSWER_MARKER.finditer(body))
        segment = body[markers[-1].end() :] if markers else body
        found = _statements(spec, segment)
        detail["segment"] = "last_answer" if markers else "full"
        if markers and not found and not _NONE.match(segment):
            found = _statements(spec, body)
            detail["segment"] = "full"
        if not found:
            if _NONE.match(segment):
                detail["explicit_none"] = True
                return ParseResult("ok", set(), detail)
            detail["reason"] = "no answer statement"
            return ParseResult("na", set(), detail)
        if spec.symmetric:
            found += [(c[1], c[0]) for c in found]
        inside = {c for c in found if all(0 <= v < n for v in c)}
        detail["statements"] = len(found)
        out_of_range = len({c for c in found if c not in inside})
        if out_of_range:
            detail["out_of_range"] = out_of_range
        return ParseResult("ok", inside, detail)
    except Exception as exc:  # model text must never crash a run
        return ParseResult("na", set(), {"reason": f"parser error: {type(exc).__name__}"})


# -- tv ------------------------------------------------------------------------------------------------


def _bracket_spans(text: str) -> list[tuple[int, int]]:
    """Matched ``[...]`` spans in closing order (so the last-closing one is last)."""
    stack: list[int] = []
    spans: list[tuple[int, int]] = []
    for match in _BRACKET.finditer(text):
        if match.group() == "[":
            stack.append(match.start())
        elif stack:
            spans.append((stack.pop(), match.end()))
    return spans


def _parse_list(text: str, start: int, end: int) -> list[Any] | None:
    """The nested 0/1 list in ``text[start:end]``, or None if it holds anything else."""
    root: list[Any] = []
    stack: list[list[Any]] = [root]
    pos = start
    expect_value = True  # a value or "[" may come; after a value only "," or "]"
    while pos < end:
        match = _TV_TOKEN.match(text, pos, end)
        if match is None:
            if text[pos:end].strip():
                return None
            break
        token = match.group(1).lower()
        pos = match.end()
        if token == "[":
            if not expect_value or len(stack) > MAX_DEPTH:
                return None
            child: list[Any] = []
            stack[-1].append(child)
            stack.append(child)
        elif token == "]":
            if len(stack) == 1:
                return None
            stack.pop()
            expect_value = False
        elif token == ",":
            if expect_value:
                return None
            expect_value = True
            continue
        else:
            if not expect_value or len(stack) == 1:
                return None
            stack[-1].append(1 if token in ("1", "true") else 0)
        expect_value = token == "["
    if len(stack) != 1 or len(root) != 1:
        return None
    return root[0]


def _flat(values: Any, length: int) -> list[int] | None:
    if isinstance(values, list) and len(values) == length and all(isinstance(v, int) for v in values):
        return values
    return None


def _shape_cells(value: list[Any], spec: TaskSpec, n: int) -> set[Cell] | None:
    if spec.arity == 1:
        flat = _flat(value, n)
        if flat is None and len(value) == 1:
            flat = _flat(value[0], n)
        if flat is None and len(value) == n and all(_flat(v, 1) for v in value):
            flat = [v[0] for v in value]
        return None if flat is None else {(x,) for x, v in enumerate(flat) if v}
    if len(value) != n:
        return None
    rows = [_flat(row, n) for row in value]
    if any(row is None for row in rows):
        return None
    return {(x, y) for x, row in enumerate(rows) for y, v in enumerate(row or []) if v}


def parse_tv(text: Any, task: str, n: int) -> ParseResult:
    """Cells of the last 0/1 Python list in a tv answer; wrong shape is ``na``."""
    try:
        spec = task_spec(task)
        body, detail = _prepare(text, MAX_TV_CHARS)
        work = 0
        for tried, (start, end) in enumerate(reversed(_bracket_spans(body))):
            if tried >= MAX_TV_CANDIDATES or work > MAX_TV_WORK:
                break
            work += end - start
            value = _parse_list(body, start, end)
            if value is None:
                continue
            cells = _shape_cells(value, spec, n)
            if cells is None:
                detail["reason"] = "wrong shape"
                return ParseResult("na", set(), detail)
            return ParseResult("ok", cells, detail)
        detail["reason"] = "no 0/1 list"
        return ParseResult("na", set(), detail)
    except Exception as exc:  # model text must never crash a run
        return ParseResult("na", set(), {"reason": f"parser error: {type(exc).__name__}"})
