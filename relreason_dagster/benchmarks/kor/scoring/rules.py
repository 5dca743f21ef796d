"""The official scorer's per-rule comparisons that both KOR-Bench scoring modes use.

``official`` applies them as the official code does (Python float arithmetic for puzzle rules 9
and 10); ``robust`` reuses them, with exact arithmetic as a second chance and its own guards
around them, so the two modes cannot drift apart on what a puzzle rule means.
"""

from __future__ import annotations

import re
from typing import Any

from relreason_dagster.common.lazy_module import LazyModule

# SymPy-backed, loaded on first use: the registry (every command) imports this module (common/lazy_module.py).
mathexpr: Any = LazyModule("relreason_dagster.benchmarks.kor.mathexpr")

NON_WORDS_RE = re.compile(r"\W+")
NON_LETTER_RE = re.compile(r"[^A-Za-z]")
COMMA_SPACE_RE = re.compile(r"[,\s\[\]]+")
WS_RE = re.compile(r"\s+")
_OPS_RE = re.compile(r"[+\-*/]")
_TARGET_RE = re.compile(r"=\s*(-?\d+)")


def int_key(digits: str) -> int | str:
    """``int(digits)`` as the official code does, without Python's 4300-digit conversion limit."""
    try:
        return int(digits)
    except ValueError:
        return digits.lstrip("0") or "0"


def puzzle_official(rule: str, r: str, g: str) -> bool:
    """SCORER.md step 8 on ``r = inner(response)``, ``g = inner(gold)``."""
    if rule == "1":
        return NON_LETTER_RE.sub("", r).lower() == NON_LETTER_RE.sub("", g).lower()
    if rule == "2":
        return NON_LETTER_RE.sub("", r).lower() in g.split(",")
    if rule == "3":
        words = sorted(word for word in NON_WORDS_RE.split(r.lower()) if word)
        return words == sorted(g.split(" "))
    if rule == "4":
        return NON_LETTER_RE.sub("", r).lower() in g
    if rule == "5":
        return sorted(WS_RE.sub("", r).split(",")) == sorted(g.split(","))
    if rule == "9":
        return equation_rule(r, g, exact=False)
    if rule == "10":
        return point24_rule(r, g, exact=False)
    if rule == "18":
        return COMMA_SPACE_RE.sub("", r) == COMMA_SPACE_RE.sub("", g)
    return NON_WORDS_RE.sub("", r) == NON_WORDS_RE.sub("", g)


def equation_rule(r: str, g: str, exact: bool) -> bool:
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
    target = int_key(match.group(1))
    value = mathexpr.eval_exact_arithmetic(left) if exact else mathexpr.eval_python_arithmetic(left)
    return value is not None and value == target


def point24_rule(r: str, g: str, exact: bool) -> bool:
    """Puzzle rule 10: the same numbers (alphanumerics, sorted) as the gold, evaluating to 24."""
    left = r.replace("×", "*").replace("−", "-").split("=")[0]
    gold_left = g.split("\n")[0].split("=")[0]
    if sorted(NON_WORDS_RE.sub("", left)) != sorted(NON_WORDS_RE.sub("", gold_left)):
        return False
    value = mathexpr.eval_exact_arithmetic(left) if exact else mathexpr.eval_python_arithmetic(left)
    return value is not None and value == 24


def idx_int(idx: str) -> int | None:
    try:
        return int(idx)
    except (TypeError, ValueError):
        return None
