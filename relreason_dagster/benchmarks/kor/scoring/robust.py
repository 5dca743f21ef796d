"""KOR-Bench's robust decision: what the model meant to answer, compared by answer format.

:func:`score_robust` reads what the model meant (:func:`~..parsing.extract_final`: the last
bracketed answer, LaTeX escapes undone) and compares by answer format: exact fractions, SymPy equivalence of
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
:data:`~..parsing.MAX_RESPONSE_CHARS` is not read (``too_long``).
"""

from __future__ import annotations

import re
from contextvars import ContextVar
from fractions import Fraction
from typing import Any

from relreason_dagster.benchmarks.kor.data import KorItem
from relreason_dagster.benchmarks.kor.parsing import (
    NULL,
    as_text,
    double_span_count,
    drop_restated_lhs,
    final_answer_spans,
    inner,
    is_enclosed_in_brackets,
    official_match,
    too_long,
)
from relreason_dagster.benchmarks.kor.scoring.rules import (
    COMMA_SPACE_RE,
    NON_LETTER_RE,
    NON_WORDS_RE,
    WS_RE,
    equation_rule,
    idx_int,
    point24_rule,
    puzzle_official,
)
from relreason_dagster.common.lazy_module import LazyModule

# SymPy-backed, loaded on first use: the registry (every command) imports this module (common/lazy_module.py).
mathexpr: Any = LazyModule("relreason_dagster.benchmarks.kor.mathexpr")

_WORK: ContextVar[mathexpr.WorkBudget | None] = ContextVar("kor_robust_work", default=None)
"""The work budget of the robust verdict being made: every expression comparison inside it draws
on the same :class:`~.mathexpr.WorkBudget`, so an answer with twelve ``or``-parts costs no more
than one with a single part.  Work is counted, never timed, so a verdict does not depend on how
busy the machine is."""
MAX_PARTS = 12

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
    "too_long": "the response is longer than parsing.MAX_RESPONSE_CHARS and was not read",
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


def _gold_inner(gold: str) -> str:
    stripped = gold.strip()
    if stripped.startswith("[[") and stripped.endswith("]]"):
        return stripped[2:-2]
    found = inner(stripped)
    return stripped if found == NULL else found


def _squash(text: str) -> str:
    """Whitespace, quotes and one trailing period removed: what 'only spacing differs' means."""
    text = WS_RE.sub("", text).replace('"', "").replace("“", "").replace("”", "")
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
    text = WS_RE.sub("", text)
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
    number = idx_int(item.idx)
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
        return not NON_LETTER_RE.sub("", text)
    if rule in ("5", "9", "10"):
        return False
    if rule == "18":
        return not COMMA_SPACE_RE.sub("", text)
    return not NON_WORDS_RE.sub("", text)


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
        word = NON_LETTER_RE.sub("", pred).lower()
        options = {NON_LETTER_RE.sub("", w).lower() for w in re.split(r"[\s,]+", gold)}
        if word and word in options:
            return "puzzle_rule"
        return "partial_word" if puzzle_official(rule, pred, gold) else None
    if rule in ("9", "10"):
        if puzzle_official(rule, pred, gold):
            return "puzzle_rule"
        exact = equation_rule(pred, gold, exact=True) if rule == "9" else point24_rule(pred, gold, exact=True)
        return "exact_arithmetic" if exact else None
    if puzzle_official(rule, pred, gold):
        return "puzzle_rule"
    if puzzle_official(rule, pred.lower(), gold.lower()):
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
