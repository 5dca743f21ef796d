"""The five KOR-Bench answer formats (Appendix C.2, Table 5), read off an item's gold answer.

The official data does not label items with their format, but the marts break accuracy down by it
(a model that handles numbers but not structured grids shows up there).  The rule below is ours,
written from Table 5's definitions; on the official data it gives the distribution the README
compares with Table 6:

* cipher → TR and counterfactual → MC, as Table 6 has them (100% each);
* MC: option letters only (``A``, ``[B];[C]``, ``A,B``);
* NR: numbers only — integers, decimals, fractions, separated by commas, spaces or ``or``;
* SD: a structure the question prescribes — several ``name = value`` pairs, tuples, braces,
  matrices, or several comma-separated groups of numbers;
* ME: any other answer with mathematical notation (operators, LaTeX commands, ``=``, relations);
* TR: the rest (words, symbol strings).

Table 6 names the formats each category uses (Operation NR/ME/SD, Logic NR/TR/MC, Puzzle
NR/ME/TR/SD); an answer whose generic format is outside its category's list gets the category's
catch-all (Operation ME, Logic TR, Puzzle TR) — e.g. a logic answer ``[[p1&p2];[p3]]`` is the
textual answer the question asked for, not an expression to compare symbolically.
"""

from __future__ import annotations

import re

FORMATS: tuple[str, ...] = ("NR", "ME", "TR", "MC", "SD")

_NUMBER = r"-?\d+(?:\.\d+)?(?:/\d+)?"
_NR_RE = re.compile(rf"^{_NUMBER}(?:\s*(?:,|;|or)\s*{_NUMBER})*$")
_MC_RE = re.compile(r"^\[?[A-Z]\]?(?:\s*[;,]\s*\[?[A-Z]\]?)*$")
_ASSIGN_RE = re.compile(r"[A-Za-z]\w*\s*=\s*-?\w+")
_GROUP_RE = re.compile(rf"^{_NUMBER}(?:\s+{_NUMBER})+$")
_MATH_RE = re.compile(r"[=+*/^<>≤≥√∫≠]|\\[a-zA-Z]+|\d\s*-\s*\d|\bsqrt\b|\d[a-z]\b|\bx\b|\bi\b")

ALLOWED: dict[str, tuple[tuple[str, ...], str]] = {
    # category: (formats Table 6 lists for it, catch-all for anything else)
    "operation": (("NR", "ME", "SD"), "ME"),
    "logic": (("NR", "TR", "MC"), "TR"),
    "puzzle": (("NR", "ME", "TR", "SD"), "TR"),
}


def gold_inner(answer: str) -> str:
    """The gold without its ``[[...]]``."""
    text = answer.strip()
    if text.startswith("[[") and text.endswith("]]"):
        text = text[2:-2]
    return text.strip()


def _generic_format(text: str) -> str:
    if _MC_RE.match(text):
        return "MC"
    if _NR_RE.match(text):
        return "NR"
    groups = [g.strip() for g in re.split(r"[,;]", text)]
    if len(_ASSIGN_RE.findall(text)) >= 2 or re.search(r"\\begin|matrix", text):
        return "SD"
    if any(_GROUP_RE.match(g) for g in groups) and all(_NR_RE.match(g) or _GROUP_RE.match(g) for g in groups):
        return "SD"  # rows of numbers: a grid
    if re.search(r"\\[a-zA-Z]", text):
        return "ME"
    if re.search(r"[({]", text):
        return "SD"
    if _MATH_RE.search(text):
        return "ME"
    return "TR"


def answer_format(category: str, answer: str) -> str:
    """NR, ME, TR, MC or SD for one gold answer (rule in the module docstring)."""
    if category == "cipher":
        return "TR"
    if category == "counterfactual":
        return "MC"
    found = _generic_format(gold_inner(answer))
    allowed, catch_all = ALLOWED.get(category, (FORMATS, "TR"))
    return found if found in allowed else catch_all
