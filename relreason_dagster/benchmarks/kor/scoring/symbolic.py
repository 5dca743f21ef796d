"""Step 6 of the official scorer with SymPy working: how the paper's Table 2 compared 45 Operation items.

The official code (``compare_math_expressions``) takes the ``math`` extraction of response and gold;
a ``NULL`` response is wrong; if the gold contains ``or`` both are split on ``or`` and compared as
sets of simplified expressions, otherwise the two simplified expressions are compared with ``==``
(structural equality after ``simplify``).  Any exception while parsing or simplifying falls back to
string equality of the two extractions: that per-item fallback is part of the official judgement and
is kept.  What is *not* kept is a parser that never works (the released files): ``paper`` mode
checks the parser first (:func:`~.latex.require_parser`).

Bounds the official code does not have, so that model text cannot stall a run: an extraction longer
than :data:`MAX_CHARS` (which also bounds the tree: about one node per two characters; the longest
on the reference files is 37), nested deeper than :data:`MAX_DEPTH` brackets (reference: 3; 20
nested ``sin(`` took SymPy minutes) or with more than :data:`MAX_BARS` ``|``, or a
numeric power exponent, factorial or binomial argument over :data:`MAX_NUMBER` in size (power
towers included) is treated as a parse failure (string-equality fallback) before ``simplify`` runs.
The caps are counted, not timed, so a verdict does not depend on the machine; none of them fires on
any reference item.  Nesting too deep for Python's recursion limit is a parse failure too (the
official code's ``except Exception`` catches ``RecursionError`` the same way).
"""

from __future__ import annotations

import functools
from typing import Any

from relreason_dagster.benchmarks.kor.parsing import NULL, extract
from relreason_dagster.benchmarks.kor.scoring.latex import parse_latex

MAX_CHARS = 200
MAX_DEPTH = 10  # brackets ((, {, [) nested; SymPy's simplify grows steeply with nested functions
MAX_BARS = 12  # | (absolute values), whose nesting the bracket count cannot see
MAX_NUMBER = 1000


class Refused(ValueError):
    """An expression outside the bounds above; the caller treats it as a parse failure."""


def _numeric_size(value: Any) -> float:
    """|value| of a number expression, evaluated in floating point (huge values become ``inf``).

    Safe because the traversal below is bottom-up: every power inside ``value`` already has a
    bounded exponent, so a power tower is refused at its first level over the bound.
    """
    return abs(complex(value.evalf(15)))


def _check_bounds(expr: Any) -> None:
    import sympy

    for node in sympy.postorder_traversal(expr):
        if isinstance(node, sympy.Pow) and node.exp.is_number and _numeric_size(node.exp) > MAX_NUMBER:
            raise Refused(f"exponent over {MAX_NUMBER}")
        if isinstance(node, sympy.factorial | sympy.binomial):
            for arg in node.args:
                if arg.is_number and _numeric_size(arg) > MAX_NUMBER:
                    raise Refused(f"factorial or binomial argument over {MAX_NUMBER}")


@functools.lru_cache(maxsize=4096)
def simplified(text: str) -> Any:
    """``sympy.simplify(parse_latex(text))`` within the bounds; raises on anything else."""
    import sympy

    if len(text) > MAX_CHARS:
        raise Refused(f"longer than {MAX_CHARS} characters")
    if _depth(text) > MAX_DEPTH or text.count("|") > MAX_BARS:
        raise Refused(f"nested deeper than {MAX_DEPTH} brackets or more than {MAX_BARS} bars")
    expr = parse_latex(text)
    _check_bounds(expr)
    return sympy.simplify(expr)


def _depth(text: str) -> int:
    deepest = depth = 0
    for ch in text:
        if ch in "({[":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in ")}]":
            depth = max(0, depth - 1)
    return deepest


def _split_or(text: str) -> list[str]:
    return [part.strip() for part in text.split("or")]


def compare_math(response: str, gold: str) -> bool:
    """The official ``compare_math_expressions(response, gold)`` with a working parser."""
    answer = extract(response, "math")
    wanted = extract(gold, "math")
    if answer == NULL:
        return False
    try:
        if "or" in wanted:
            found = {simplified(part) for part in _split_or(answer)}
            return found == {simplified(part) for part in _split_or(wanted)}
        return bool(simplified(answer) == simplified(wanted))
    except Exception:  # noqa: BLE001 - the official per-item fallback: any parse/simplify error
        return answer == wanted
