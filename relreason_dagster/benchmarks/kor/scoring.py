"""KOR-Bench scoring: the official decision (``official``), a robust one (``robust``), and rescoring
of published evaluation files.

``official`` reproduces ``is_correct`` of the official evaluation code branch by branch as
``/work/shared/reference/korbench/SCORER.md`` describes it, quirks included (first ``[[…]]`` wins,
raw gold strings with brackets, a gold with inner spaces that can never match, puzzle rule 4's
substring test).  Two deliberate differences, neither of which changes a published verdict:

* puzzle rules 9/10 ``eval`` model text; here :func:`~.mathexpr.eval_python_arithmetic` computes
  the same Python int/float arithmetic without executing anything (names, calls, anything not
  arithmetic → wrong, where ``eval`` would raise or run code);
* step 6 (the symbolic branch for 45 Operation items) always takes the official code's
  *string-equality fallback*.  SCORER.md measured that the published files were produced as if
  SymPy's LaTeX parser never parsed (it needs ``antlr4``, which a default install lacks, and every
  failure falls back to ``r == g``): with a working parser agreement with the files drops to 85-87%
  on Operation, with the fallback it is ~100%.  An ``official`` mode exists to reproduce the
  published numbers, so it reproduces that environment.

``robust`` reads what the model meant (:func:`~.extract.extract_final`: the last bracketed answer,
LaTeX escapes undone) and compares by answer format: exact fractions, SymPy equivalence of
expressions built by our own bounded parser, unordered sets, ``or``-alternatives, inequalities,
option letters, whitespace and case.  Each verdict carries a reason code naming why it differs from a
plain exact match of the extracted answer; :data:`REASON_CODES` lists them.

Every lenient comparison is guarded so that junk cannot pass it (``correct`` in the pipeline is the
robust verdict, so a false "correct" inflates a model's accuracy): an expression is compared only
when it names no symbol or constant the gold does not (:func:`_same_names`; a numeric gold accepts
only arithmetic), the tokenizer reads no product out of letter runs or a letter followed by digits,
and a zero factor is refused (``e98b80fc5da0`` used to equal ``0``); the matrix rules' number lists
and the inequality rules' bounds are read only from answers without letters of their own; a puzzle
rule whose normalisation leaves nothing of the answer or the gold does not match, and the
letters-only puzzle rules do not read words out of an answer with digits.  The work of one
verdict is counted (:class:`~.mathexpr.WorkBudget`), not timed, and a response longer than
:data:`~.extract.MAX_RESPONSE_CHARS` is not read (``too_long``).

Which field the official scorer read: ``response`` (the raw model output).  ``response_text`` is
only the official ``extract(response, "basic")`` kept for display, and it cannot be the input: the
puzzle branch uses ``inner()``, and for example a response whose answer is ``[[24]]`` after a
``[ 4※7 = 24 \\]`` display line has ``response_text`` ``[[4※7 = 24 \\]]``.  Measured on the 15
reference files (against each file's recorded gold), scoring ``response`` agrees with the published
verdicts on 3,750/3,750 items and scoring ``response_text`` on 3,749: Qwen2.5 puzzle 82 has no
``[[`` in ``response`` (its answer is ``\\boxed{[3-1+0+0=2]}``), so ``inner()`` gives ``NULL`` and
the published verdict is False, while its ``response_text`` ``[[3 - 1 + 0 + 0 = 2\\]]`` would pass.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from relreason_dagster.benchmarks.kor import mathexpr
from relreason_dagster.benchmarks.kor.data import CATEGORIES, KorItem, load_category
from relreason_dagster.benchmarks.kor.extract import (
    NULL,
    as_text,
    double_span_count,
    drop_restated_lhs,
    extract,
    final_answer_spans,
    inner,
    is_enclosed_in_brackets,
    official_match,
    too_long,
)
from relreason_dagster.errors import ConfigError

MODES = ("official", "robust")
_WORK: ContextVar[mathexpr.WorkBudget | None] = ContextVar("kor_robust_work", default=None)
"""The work budget of the robust verdict being made: every expression comparison inside it draws
on the same :class:`~.mathexpr.WorkBudget`, so an answer with twelve ``or``-parts costs no more
than one with a single part.  Work is counted, never timed, so a verdict does not depend on how
busy the machine is."""
MAX_PARTS = 12

# Step 6 of SCORER.md: the Operation items the official code compares "symbolically".
SYMBOLIC_IDX = frozenset(
    {18, 73, 74, 77, 94, 115, 116, 117, 121, 122, 123, 125, 131, 132, 134, 135, 136, 141, 143, 149, 145}
    | {146, 147, 151, 152, 153, 154, 155, 156, 160, 161, 162, 164, 165, 166, 170, 206, 209, 211, 212}
    | {213, 214, 215, 217, 218}
)

REASON_CODES: dict[str, str] = {
    "exact": "the extracted answer equals the gold answer character for character",
    "whitespace": "equal once whitespace, quotes and a trailing period are ignored",
    "case": "equal once case is ignored as well",
    "separators": "logic: the same parts with other brackets around them ([[B;D]] for [[B];[D]])",
    "restated_lhs": "the answer restates the question left of '=' ([[x = 24]]); the value matches",
    "fraction_equal": "the same exact number written differently (13/3, \\frac{13}{3}, 4.5 vs 9/2)",
    "symbolic_equal": "the same expression after SymPy canonicalisation or a bounded expand",
    "numeric_equal": "the expressions agree at random points (no symbolic proof within the budget)",
    "unordered": "the same elements in another order, where order carries no meaning",
    "alternatives": "the same set of 'or'-separated solutions",
    "inequality": "the same inequality (≥/≤ written as \\geq, >=, interval, or in another order)",
    "option_letter": "the same option letter with its text or punctuation around it",
    "exact_arithmetic": "puzzle equation/24-point: exact with fractions, off by float rounding in eval",
    "numbers_equal": "matrix answers: the same numbers in the same order, other separators",
    "puzzle_rule": "equal under the official puzzle rule's own normalisation",
    # Rejections: the values agree, but the answer is not acceptable (verdict False).
    "unevaluated": "rejected: arithmetic left undone (256 + 4, 2^4) where the result was asked for",
    "approximation": "rejected: a decimal approximation of an irrational gold (1.71828 for e-1)",
    "partial_word": "rejected: puzzle rule 4, only a substring of a gold word (official accepts it)",
    "mismatch": "the answer differs from the gold answer",
    "no_answer": "no final answer could be found",
    "too_long": "the response is longer than extract.MAX_RESPONSE_CHARS and was not read",
    "error": "the scorer failed on this record (reported, never raised)",
}
_REJECTIONS = frozenset({"unevaluated", "approximation", "partial_word"})
EXTRACTION_CODES: dict[str, str] = {
    "last_bracket": "several answer spans: the last one was used, the official scorer used the first",
    "escaped": "the answer was written as \\[\\[…\\]\\] or [ […] ] (escaped or spaced brackets)",
    "boxed": "the answer was written as \\boxed{…}",
    "single": "no [[…]]: taken from the last single […]",
    "phrase": "no brackets: taken from 'the final answer is …'",
    "wrappers": "the bracketed answer was wrapped in $…$, \\(…\\), **…**, […] or similar",
}

_INEQ_RE = re.compile(r"(≥|≤)\s*([-]?\d+\.?\d*)")
_INT_RE = re.compile(r"\d+")
_NON_WORD_RE = re.compile(r"\W")
_NON_WORDS_RE = re.compile(r"\W+")
_NON_LETTER_RE = re.compile(r"[^A-Za-z]")
_COMMA_SPACE_RE = re.compile(r"[,\s\[\]]+")
_WS_RE = re.compile(r"\s+")
_OPS_RE = re.compile(r"[+\-*/]")
_TARGET_RE = re.compile(r"=\s*(-?\d+)")


# --------------------------------------------------------------------------- official


def _int_key(digits: str) -> int | str:
    """``int(digits)`` as the official code does, without Python's 4300-digit conversion limit."""
    try:
        return int(digits)
    except ValueError:
        return digits.lstrip("0") or "0"


def _puzzle_official(rule: str, r: str, g: str) -> bool:
    """SCORER.md step 8 on ``r = inner(response)``, ``g = inner(gold)``."""
    if rule == "1":
        return _NON_LETTER_RE.sub("", r).lower() == _NON_LETTER_RE.sub("", g).lower()
    if rule == "2":
        return _NON_LETTER_RE.sub("", r).lower() in g.split(",")
    if rule == "3":
        words = sorted(word for word in _NON_WORDS_RE.split(r.lower()) if word)
        return words == sorted(g.split(" "))
    if rule == "4":
        return _NON_LETTER_RE.sub("", r).lower() in g
    if rule == "5":
        return sorted(_WS_RE.sub("", r).split(",")) == sorted(g.split(","))
    if rule == "9":
        return _equation_rule(r, g, exact=False)
    if rule == "10":
        return _point24_rule(r, g, exact=False)
    if rule == "18":
        return _COMMA_SPACE_RE.sub("", r) == _COMMA_SPACE_RE.sub("", g)
    return _NON_WORDS_RE.sub("", r) == _NON_WORDS_RE.sub("", g)


def _equation_rule(r: str, g: str, exact: bool) -> bool:
    """Puzzle rule 9: same operators left of ``=`` as the gold, and the left side evaluates to the
    gold's target.  ``exact`` uses fractions (robust); otherwise Python float semantics (official)."""
    r = r.replace("×", "*").replace("−", "-")
    g = g.replace("×", "*").replace("−", "-")
    left = r.split("=")[0]
    if _OPS_RE.findall(left) != _OPS_RE.findall(g.split("=")[0]):
        return False
    match = _TARGET_RE.search(g)
    if match is None:
        return False
    target = _int_key(match.group(1))
    value = mathexpr.eval_exact_arithmetic(left) if exact else mathexpr.eval_python_arithmetic(left)
    return value is not None and value == target


def _point24_rule(r: str, g: str, exact: bool) -> bool:
    """Puzzle rule 10: the same numbers (alphanumerics, sorted) as the gold, evaluating to 24."""
    left = r.replace("×", "*").replace("−", "-").split("=")[0]
    gold_left = g.split("\n")[0].split("=")[0]
    if sorted(_NON_WORDS_RE.sub("", left)) != sorted(_NON_WORDS_RE.sub("", gold_left)):
        return False
    value = mathexpr.eval_exact_arithmetic(left) if exact else mathexpr.eval_python_arithmetic(left)
    return value is not None and value == 24


def _idx_int(idx: str) -> int | None:
    try:
        return int(idx)
    except (TypeError, ValueError):
        return None


def _official(response: str, gold: str, category: str, rule: str, idx: str) -> bool:
    """SCORER.md's decision: the first branch that applies."""
    if category == "logic":
        answer = extract(response, "logic")
        if rule == "5":
            return sorted(answer.split(";")) == sorted(gold.split(";"))
        return answer == extract(gold, "logic")
    if category == "operation":
        number = _idx_int(idx)
        if number in (178, 179):
            found = ["".join(m) for m in _INEQ_RE.findall(extract(response, "clean"))]
            wanted = ["".join(m) for m in _INEQ_RE.findall(gold)]
            return sorted(found) == sorted(wanted)
        if rule == "18":
            found = _NON_WORD_RE.sub("", extract(response, "clean"))
            wanted = _NON_WORD_RE.sub("", inner(gold))
            return sorted(found) == sorted(wanted)
        if rule in ("23", "24", "25"):
            found_ints = [_int_key(d) for d in _INT_RE.findall(extract(response, "clean"))]
            return found_ints == [_int_key(d) for d in _INT_RE.findall(gold)]
        if number in SYMBOLIC_IDX:
            # String-equality fallback of the symbolic comparison; see the module docstring.
            answer = extract(response, "math")
            return answer != NULL and answer == extract(gold, "math")
        if "or" in gold:
            answer = extract(response, "clean").replace("\\text{or}", "or")
            if answer == NULL:
                return False
            found = sorted(part.strip() for part in answer.strip("[]").split("or"))
            wanted = sorted(part.strip() for part in extract(gold, "clean").strip("[]").split("or"))
            return found == wanted
    if category == "puzzle":
        return _puzzle_official(rule, inner(response), inner(gold))
    return extract(response, "clean") == gold


def score_official(response: object, item: KorItem, gold: str | None = None) -> bool:
    """The official ``is_correct`` of ``response`` for ``item``.  Never raises.

    ``gold`` overrides ``item.answer``: pass a file's recorded answer to reproduce a verdict made
    against an older gold, or ``item.real_life_answer`` for counterfactual's ``is_real_life``.
    """
    try:
        wanted = item.answer if gold is None else gold
        text = as_text(response)
        if too_long(text):
            return False
        return _official(text, as_text(wanted), item.category, item.rule_id, item.idx)
    except Exception:  # noqa: BLE001 - a scorer reports, it does not crash a run over one record
        return False


# --------------------------------------------------------------------------- robust


def _gold_inner(gold: str) -> str:
    stripped = gold.strip()
    if stripped.startswith("[[") and stripped.endswith("]]"):
        return stripped[2:-2]
    found = inner(stripped)
    return stripped if found == NULL else found


def _squash(text: str) -> str:
    """Whitespace, quotes and one trailing period removed: what 'only spacing differs' means."""
    text = _WS_RE.sub("", text).replace('"', "").replace("“", "").replace("”", "")
    return text[:-1] if text.endswith(".") else text


def _text_compare(pred: str, gold: str) -> str | None:
    if pred == gold:
        return "exact"
    if _squash(pred) == _squash(gold):
        return "whitespace"
    if _squash(pred).casefold() == _squash(gold).casefold():
        return "case"
    return None


def _unevaluated(text: str) -> bool:
    """True when the answer still holds arithmetic between two plain numbers (``256 + 4``,
    ``2^4``, ``\\sqrt{3*2}``): the question asked for the result, not the calculation.

    A number used as a coefficient (``5 + 5i``, ``2 + 3x``) or as an exponent (``x^2 + 1``) does
    not count, so canonical answers like ``-10+11i`` and ``e^3-e^2-e+1`` pass.
    """
    try:
        tokens = mathexpr.math_tokens(text)
    except mathexpr.MathParseError:
        return False
    for index in range(len(tokens) - 2):
        left, op, right = tokens[index], tokens[index + 1], tokens[index + 2]
        if left[0] != "num" or right[0] != "num" or op[0] != "op" or op[1] not in "+-*^":
            continue
        if index > 0 and tokens[index - 1][1] in ("^", "/"):
            continue
        after = tokens[index + 3] if index + 3 < len(tokens) else None
        if after is not None and (after[0] in ("sym", "cmd") or after[1] in ("(", "{", "[")):
            continue
        return True
    return False


def _same_names(pred: str, gold: str) -> bool:
    """Whether ``pred`` may be compared with ``gold`` as an expression at all: every symbol or
    constant it writes (``x``, ``e``, ``i``, ``pi``) is one the gold writes, and it applies a
    function only where the gold applies one.

    Equivalence alone is not enough for model text: letters that the gold lacks can only be noise
    that happens to cancel or vanish (``e98b80fc5da0`` read as a product with a 0, ``e - e``,
    ``\\sin 0``, ``x/x``), never a differently written right answer.  A numeric gold names
    nothing, so it accepts only arithmetic.  :class:`~.mathexpr.MathParseError` propagates.
    """
    pred_symbols, pred_functions = mathexpr.math_names(pred)
    gold_symbols, gold_functions = mathexpr.math_names(gold)
    return pred_symbols <= gold_symbols and (not pred_functions or bool(gold_functions))


def _value_compare(pred: str, gold: str) -> str | None:
    """How ``pred`` equals ``gold`` as a value: text, exact number, or expression.

    Returns a rejection code (:data:`_REJECTIONS`) when the values agree but the answer is not
    acceptable: an unevaluated calculation, or a decimal approximation of an irrational gold.
    """
    code = _text_compare(pred, gold)
    if code:
        return code
    pred_number, gold_number = mathexpr.parse_number(pred), mathexpr.parse_number(gold)
    if pred_number is not None and gold_number is not None:
        return "fraction_equal" if pred_number == gold_number else None
    work = _WORK.get()
    if work is None:
        work = mathexpr.WorkBudget()
    if work.eval_nodes <= 0:
        return None
    try:
        if not _same_names(pred, gold):
            return None
        left = mathexpr.parse_math(pred)
        right = mathexpr.parse_math(gold)
    except mathexpr.MathParseError:
        return None
    how = mathexpr.equivalent(left, right, work)
    if how is None:
        return None
    if how == "approximate":
        return "approximation"
    if _unevaluated(pred) and not _unevaluated(gold):
        return "unevaluated"
    if pred_number is not None or gold_number is not None:
        return "fraction_equal" if how == "equal" else "numeric_equal"
    return "symbolic_equal" if how in ("equal", "symbolic") else "numeric_equal"


_OR_SPLIT_RE = re.compile(r"\\text\{\s*or\s*\}|\bor\b|(?<=[\d}a-z)])or(?=[-\d\\a-z(])|,|;|\band\b")
_LATEX_SET = (
    ("\\left", ""),
    ("\\right", ""),
    ("\\lbrace", "{"),
    ("\\rbrace", "}"),
    ("\\{", "{"),
    ("\\}", "}"),
)
_REL_NORMAL = (
    *_LATEX_SET,
    ("\\geqslant", "≥"),
    ("\\leqslant", "≤"),
    ("\\geq", "≥"),
    ("\\leq", "≤"),
    ("\\ge", "≥"),
    ("\\le", "≤"),
    (">=", "≥"),
    ("<=", "≤"),
    ("⩾", "≥"),
    ("⩽", "≤"),
    ("\\infty", "∞"),
    ("\\cup", "∪"),
)
_REL_RE = re.compile(r"(≥|≤|>|<)(-?\d+(?:\.\d+)?(?:/\d+)?)|(-?\d+(?:\.\d+)?(?:/\d+)?)(≥|≤|>|<)[A-Za-z]")
_INTERVAL_RE = re.compile(r"([(\[])(-∞|-?\d+(?:\.\d+)?),(\+?∞|-?\d+(?:\.\d+)?)([)\]])")
_FLIP = {"≥": "≤", "≤": "≥", ">": "<", "<": ">"}


def _relations(text: str) -> set[tuple[str, Fraction]] | None:
    """``{x∣x≤0 or x≥1}``, ``x \\geq 3``, ``(-∞,0]∪[1,∞)`` → {(op, bound)}; None if none found."""
    for old, new in _REL_NORMAL:
        text = text.replace(old, new)
    text = _WS_RE.sub("", text)
    found: set[tuple[str, Fraction]] = set()
    for op, number, number_left, op_left in _REL_RE.findall(text):
        bound = mathexpr.parse_number(number or number_left)
        if bound is not None:
            found.add((op, bound) if op else (_FLIP[op_left], bound))
    for opening, low, high, closing in _INTERVAL_RE.findall(text):
        if low == "-∞" and high not in ("∞", "+∞"):
            bound = mathexpr.parse_number(high)
            if bound is not None:
                found.add(("≤" if closing == "]" else "<", bound))
        elif high in ("∞", "+∞") and low != "-∞":
            bound = mathexpr.parse_number(low)
            if bound is not None:
                found.add(("≥" if opening == "[" else ">", bound))
    return found or None


def _without_outer_braces(text: str) -> str:
    """``{3, 4}`` → ``3, 4``; a brace that closes a LaTeX argument (``x = \\frac{1}{2}``) stays."""
    text = text.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return text
    depth = 0
    for index, char in enumerate(text):
        depth += (char == "{") - (char == "}")
        if depth == 0:
            return text[1:-1] if index == len(text) - 1 else text
    return text


def _alternatives(text: str) -> list[str]:
    text = _without_outer_braces(text)
    return [drop_restated_lhs(part.strip()) for part in _OR_SPLIT_RE.split(text) if part and part.strip()]


def _set_compare(pred_parts: list[str], gold_parts: list[str]) -> str | None:
    """Every gold part matched by exactly one predicted part (values compared, not strings).

    Returns ``"alternatives"``, a rejection code when a match needed one (an unevaluated part), or
    None.
    """
    if len(pred_parts) != len(gold_parts) or len(gold_parts) > MAX_PARTS:
        return None
    remaining = list(pred_parts)
    rejection = None
    for wanted in gold_parts:
        for position, candidate in enumerate(remaining):
            code = _value_compare(candidate, wanted)
            if code:
                rejection = code if code in _REJECTIONS else rejection
                del remaining[position]
                break
        else:
            return None
    return rejection or "alternatives"


def _set_elements(text: str) -> list[str]:
    for old, new in _LATEX_SET:
        text = text.replace(old, new)
    return [
        _squash(part).strip("{}[]()") for part in text.strip().strip("{}[]()").split(",") if _squash(part)
    ]


_SIGNED_NUM_RE = re.compile(r"-?\d+(?:\.\d+)?(?:/\d+)?")
_LATEX_WORD_RE = re.compile(r"\\(?:begin|end)\{[A-Za-z*]{1,20}\}|\\[A-Za-z]+")
_CONNECTIVE_RE = re.compile(r"\b(?:or|and|mid)\b")
_LETTERS_RE = re.compile(r"[A-Za-z]")


def _written_letters(text: str) -> set[str]:
    """The letters of ``text`` outside LaTeX commands (``\\begin{pmatrix}``, ``\\leq``) and the
    words ``or``/``and``/``mid``, case folded: the variables an answer names."""
    return {c.casefold() for c in _LETTERS_RE.findall(_CONNECTIVE_RE.sub(" ", _LATEX_WORD_RE.sub(" ", text)))}


def _numbers_equal(pred: str, gold: str) -> bool:
    """Rules 23-25 (matrices): the same numbers in the same order, whatever separates them, in an
    answer that writes no letters of its own (``1a2b9c64`` holds the numbers of
    ``((1,2),(9,64))`` but is not that matrix).  Counted before any number is converted."""
    if _written_letters(pred):
        return False
    found, wanted = _SIGNED_NUM_RE.findall(pred), _SIGNED_NUM_RE.findall(gold)
    if not wanted or len(found) != len(wanted):
        return False
    return [mathexpr.parse_number(n) for n in found] == [mathexpr.parse_number(n) for n in wanted]


def _robust_operation(pred: str, gold: str, item: KorItem) -> str | None:
    number = _idx_int(item.idx)
    code = _text_compare(pred, gold)
    if code:
        return code
    if "≥" in gold or "≤" in gold:
        wanted = _relations(gold)
        if not wanted or not _written_letters(pred) <= _written_letters(gold):
            return None
        return "inequality" if _relations(pred) == wanted else None
    if item.rule_id == "18":
        found, expected = _set_elements(pred), _set_elements(gold)
        if found == expected:
            return "whitespace"
        return "unordered" if sorted(found) == sorted(expected) else None
    if item.rule_id in ("23", "24", "25"):
        return "numbers_equal" if _numbers_equal(pred, gold) else None
    if "or" in gold and number not in (178, 179):
        return _set_compare(_alternatives(pred), _alternatives(gold))
    reduced = drop_restated_lhs(pred)
    code = _value_compare(reduced, gold)
    if code and reduced != pred and code in ("exact", "whitespace"):
        return "restated_lhs"
    return code


def _strip_unbalanced(part: str) -> str:
    """Drop the brackets a ``;`` split cut off (``B]`` / ``[D`` of ``[B];[D]``) or that enclose a
    whole part (``[C]``), keep the others (modal logic's ``[]p`` and ``[c1;c2]φ`` mean something)."""
    excess = part.count("[") - part.count("]")
    if excess > 0:
        lead = len(part) - len(part.lstrip("["))
        return part[min(excess, lead) :]
    if excess < 0:
        trail = len(part) - len(part.rstrip("]"))
        return part[: len(part) - min(-excess, trail)]
    return part[1:-1] if is_enclosed_in_brackets(part) else part


def _logic_parts(text: str) -> list[str]:
    """The ``;``-separated parts of a logic answer, spacing, quotes, periods and split brackets gone."""
    text = _squash(text).replace(".", "")
    return [_strip_unbalanced(part) for part in text.split(";")]


def _robust_logic(pred: str, gold: str, item: KorItem) -> str | None:
    code = _text_compare(pred, gold)
    if code:
        return code
    found, wanted = _logic_parts(pred), _logic_parts(gold)
    if item.rule_id == "5" and found != wanted and sorted(found) == sorted(wanted):
        return "unordered"
    if found == wanted:
        return "separators"
    if [p.casefold() for p in found] == [p.casefold() for p in wanted]:
        return "case"
    if "=" not in gold:
        reduced = drop_restated_lhs(pred)
        if reduced != pred and _text_compare(reduced, gold):
            return "restated_lhs"
    return None


_LETTER_RE = re.compile(r"^\(?\s*(?:option\s*)?([A-Za-z])\s*\)?(?:[.:)\s]|$)", re.IGNORECASE)


def _robust_counterfactual(pred: str, gold: str, item: KorItem) -> str | None:
    code = _text_compare(pred, gold)
    if code:
        return code
    if len(gold.strip()) == 1 and gold.strip().isalpha():
        match = _LETTER_RE.match(pred.strip())
        if match and match.group(1).upper() == gold.strip().upper():
            return "option_letter"
    return None


def _robust_cipher(pred: str, gold: str, item: KorItem) -> str | None:
    code = _text_compare(pred, gold)
    if code:
        return code
    reduced = drop_restated_lhs(pred)
    if reduced != pred and "=" not in gold and _text_compare(reduced, gold):
        return "restated_lhs"
    return None


_LETTER_RULES = ("1", "2", "3", "4")


def _has_digit(text: str) -> bool:
    return any(char.isdigit() for char in text)


def _rule_key_empty(rule: str, text: str) -> bool:
    """Whether the official puzzle rule's normalisation leaves nothing of ``text`` (rules 1-4 keep
    letters, 18 drops commas and spaces, the default drops non-word characters).  Two empty keys
    are equal, so an answer of symbols would match a gold of other symbols."""
    if rule in _LETTER_RULES:
        return not _NON_LETTER_RE.sub("", text)
    if rule in ("5", "9", "10"):
        return False
    if rule == "18":
        return not _COMMA_SPACE_RE.sub("", text)
    return not _NON_WORDS_RE.sub("", text)


def _robust_puzzle(pred: str, gold: str, item: KorItem) -> str | None:
    code = _text_compare(pred, gold)
    if code:
        return code
    rule = item.rule_id
    if _rule_key_empty(rule, pred) or _rule_key_empty(rule, gold):
        return None
    if rule in _LETTER_RULES and _has_digit(pred) and not _has_digit(gold):
        return None  # the letters-only rules would read ``21T347`` as the word ``t``
    if rule == "4":
        word = _NON_LETTER_RE.sub("", pred).lower()
        options = {_NON_LETTER_RE.sub("", w).lower() for w in re.split(r"[\s,]+", gold)}
        if word and word in options:
            return "puzzle_rule"
        return "partial_word" if _puzzle_official(rule, pred, gold) else None
    if rule in ("9", "10"):
        if _puzzle_official(rule, pred, gold):
            return "puzzle_rule"
        exact = (
            _equation_rule(pred, gold, exact=True) if rule == "9" else _point24_rule(pred, gold, exact=True)
        )
        return "exact_arithmetic" if exact else None
    if _puzzle_official(rule, pred, gold):
        return "puzzle_rule"
    if _puzzle_official(rule, pred.lower(), gold.lower()):
        return "case"
    return None


_ROBUST = {
    "operation": _robust_operation,
    "logic": _robust_logic,
    "cipher": _robust_cipher,
    "counterfactual": _robust_counterfactual,
    "puzzle": _robust_puzzle,
}


def _extraction_code(response: str, tag: str, pred: str, n_spans: int) -> str | None:
    """Why our extracted answer is not the official scorer's span; None if it is the same text."""
    first = official_match(response)
    if first is not None and first == pred:
        return None
    if tag == "double":
        first_double = inner(response)
        # The official scorer took the first ``[[…]]``, possibly a placeholder that we skip.
        several = n_spans > 1 or double_span_count(response) > 1
        if several and first_double != NULL and first_double.strip() != pred:
            return "last_bracket"
        return "wrappers"
    return tag


def score_robust(response: object, item: KorItem, gold: str | None = None) -> tuple[bool, str]:
    """``(verdict, reason)`` for what the model meant to answer.  Never raises, always returns.

    The reason is a comparison code from :data:`REASON_CODES`, prefixed with an extraction code
    from :data:`EXTRACTION_CODES` (``last_bracket+exact``) when the answer was not found where the
    official scorer looks, so a disagreement with the official verdict says where it comes from.
    """
    token = _WORK.set(mathexpr.WorkBudget())
    try:
        text = as_text(response)
        if too_long(text):
            return False, "too_long"
        wanted = _gold_inner(as_text(item.answer if gold is None else gold))
        found = final_answer_spans(text)
        if found is None:
            return False, "no_answer"
        tag, pred, n_spans = found
        compare = _ROBUST.get(item.category, _robust_cipher)
        code = compare(pred, wanted, item)
        verdict = code is not None and code not in _REJECTIONS
        code = code or "mismatch"
        extraction = _extraction_code(text, tag, pred, n_spans)
        return verdict, f"{extraction}+{code}" if extraction else code
    except Exception:  # noqa: BLE001 - reported as a reason code, never raised
        return False, "error"
    finally:
        _WORK.reset(token)


# --------------------------------------------------------------------------- rescoring files

_FILE_RE = re.compile(
    r"^evaluation_(?P<model>.+)_(?P<category>"
    + "|".join(CATEGORIES)
    + r")_(?P<mode>[A-Za-z0-9.\-]+)\.jsonl\.json$"
)


@dataclass(frozen=True)
class Disagreement:
    """One item where our verdict differs from the file's ``is_correct``."""

    idx: str
    ours: bool
    theirs: bool
    reason: str


@dataclass(frozen=True)
class RescoreResult:
    """Our verdicts on one published evaluation file next to the file's own.

    ``accuracy``/``file_accuracy`` are over the ``n`` scored records; ``agreement`` is the share
    of those where both verdicts match.  ``gold_mismatches`` lists items whose recorded gold
    differs from the dataset's (the dataset was corrected after the run); ``skipped`` lists
    records that could not be scored at all (unknown idx, unreadable ``is_correct``) with why.
    """

    path: str
    model: str
    category: str
    prompt_mode: str
    mode: str
    gold_source: str
    n: int
    accuracy: float
    file_accuracy: float
    agreement: float
    disagreements: tuple[Disagreement, ...]
    gold_mismatches: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    reasons: dict[str, int] = field(default_factory=dict)


def parse_file_name(path: str | Path) -> tuple[str, str, str]:
    """``(model, category, prompt_mode)`` from ``evaluation_<model>_<category>_<mode>.jsonl.json``.

    The model is everything between ``evaluation_`` and the last ``_<category>_``, so any model name
    (dashes, dots, underscores, even a category word) works.
    """
    name = Path(path).name
    match = _FILE_RE.match(name)
    if match is None:
        raise ConfigError(
            f"{name} is not a KOR-Bench evaluation file; expected "
            f"evaluation_<model>_<category>_<mode>.jsonl.json with <category> one of {', '.join(CATEGORIES)}"
        )
    return match.group("model"), match.group("category"), match.group("mode")


def _verdict(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    return None


def load_records(path: Path) -> list:
    if not path.is_file():
        raise ConfigError(f"evaluation file {path} not found; pass an existing evaluation_*.jsonl.json file")
    try:
        records = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not JSON ({exc.msg}); expected a JSON list of evaluation records"
        ) from None
    if not isinstance(records, list):
        raise ConfigError(
            f"{path} holds a JSON {type(records).__name__}; expected a list of evaluation records"
        )
    return records


def rescore_file(
    path: str | Path, data_dir: str | Path, mode: str = "official", gold_source: str = "file"
) -> RescoreResult:
    """Score every record of a published evaluation file with ``mode`` and compare with ``is_correct``.

    ``gold_source="file"`` scores against the ``answer`` recorded in the file (the gold the
    official scorer saw; six items of the reference files were corrected in the dataset since),
    ``"data"`` against the current dataset.  Rule ids always come from the dataset.  A file that is
    not in this format is a ConfigError; a record's content never raises.
    """
    if mode not in MODES:
        raise ConfigError(f"unknown scoring mode {mode!r}; known: {', '.join(MODES)}")
    if gold_source not in ("file", "data"):
        raise ConfigError(f"unknown gold source {gold_source!r}; use 'file' or 'data'")
    path = Path(path)
    model, category, prompt_mode = parse_file_name(path)
    records = load_records(path)
    items = load_category(data_dir, category)
    skipped: list[tuple[str, str]] = []
    disagreements: list[Disagreement] = []
    gold_mismatches: list[str] = []
    reasons: Counter[str] = Counter()
    n = ours_correct = theirs_correct = agree = 0
    for position, record in enumerate(records):
        if not isinstance(record, dict):
            skipped.append((f"#{position}", "record is not an object"))
            continue
        idx = str(record.get("idx", ""))
        item = items.get(idx)
        theirs = _verdict(record.get("is_correct"))
        if item is None:
            skipped.append((idx or f"#{position}", "idx not in the dataset"))
            continue
        if theirs is None:
            skipped.append((idx, "is_correct is not a boolean"))
            continue
        recorded = record.get("answer")
        gold = item.answer
        if isinstance(recorded, str):
            if recorded != item.answer:
                gold_mismatches.append(idx)
            if gold_source == "file":
                gold = recorded
        response = record.get("response")
        if mode == "official":
            ours, reason = score_official(response, item, gold), "official"
        else:
            ours, reason = score_robust(response, item, gold)
        reasons[reason] += 1
        n += 1
        ours_correct += ours
        theirs_correct += theirs
        if ours == theirs:
            agree += 1
        else:
            disagreements.append(Disagreement(idx=idx, ours=ours, theirs=theirs, reason=reason))
    return RescoreResult(
        path=str(path),
        model=model,
        category=category,
        prompt_mode=prompt_mode,
        mode=mode,
        gold_source=gold_source,
        n=n,
        accuracy=ours_correct / n if n else 0.0,
        file_accuracy=theirs_correct / n if n else 0.0,
        agreement=agree / n if n else 0.0,
        disagreements=tuple(disagreements),
        gold_mismatches=tuple(gold_mismatches),
        skipped=tuple(skipped),
        reasons=dict(reasons),
    )
