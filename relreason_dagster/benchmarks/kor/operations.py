"""Generated KOR-Bench Operation items whose gold answers are computed, never typed in.

KOR-Bench's Operation category defines 25 made-up operators (``rule.jsonl``) and asks 10 questions
about each.  Ten items per rule are too few to tell a model that learnt the rule from one that
remembered the answers, so this module draws fresh, seeded items for every rule: random operands in a
difficulty-controlled range, a *forward* question ("Compute 4※7.") and, where the rule admits a
solution set we can prove complete, an *inverse* one ("If X※14=5, find X.").

Why the answers can be trusted:

* each operator is implemented from the official rule text, exactly: rationals are
  :class:`fractions.Fraction`, and surds, complex numbers, derivatives, integrals, matrices and sets
  are SymPy objects *built in code* (no string is ever parsed or evaluated into an expression);
* an inverse question is only emitted after its solution set was found by exhaustive search over a
  window that the rule's algebra shows to contain every solution (the bound is stated next to each
  generator), so an "or" answer lists all solutions and a single answer is unique;
* :func:`evaluate` reads the simple official sample questions ("Compute 19※28※4※(104※13).") with a
  small precedence parser over *our* operators, so the tests can reproduce the official golds and
  thereby check our reading of every rule against the benchmark's own answers.

Golds are wrapped ``[[...]]`` in the notation the official answers use for that rule (``13/3``,
``9+\\sqrt{6}``, ``-10+11i``, ``((1,2),(9,64))``, ``{1,2,4,5}``, ``4or-12``), and the answer-format
instructions are the official ones, so a generated item can be scored by
:mod:`~relreason_dagster.benchmarks.kor.scoring` like an official one.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from relreason_dagster.benchmarks.kor.data import KorItem
from relreason_dagster.benchmarks.kor.generate import check_level, check_rule
from relreason_dagster.common.lazy_module import LazyModule

# SymPy loads on first use (~1 s): this module is imported with the benchmark registry by every
# `relreason` command, and only generating an operation question needs it (common/lazy_module.py).
sympy: Any = LazyModule("sympy")


def _xy() -> tuple[Any, Any]:
    """The variables x and y (SymPy symbols are equal by name, so these are the same each call)."""
    return sympy.Symbol("x"), sympy.Symbol("y")


_RANGE = {1: 9, 2: 20, 3: 50}
"""Largest operand magnitude per difficulty level (rules with fast-growing operators scale it down)."""

# Official answer-format instructions, copied in style from the rules' sample.jsonl questions.
I_SINGLE = (
    "Please ensure the answer is a single number and wrap it in double square brackets, "
    "like this: [[your answer]]."
)
I_WRAP = "Please wrap the answer in double square brackets, like this: [[your answer]]."
I_NEGATIVE = "The answer may be negative, if so write it in a format such as '-5'.\n"
I_FRACTION = "If the answer is a fraction, write it in 'a/b' text format.Decimals are not allowed.\n" + I_WRAP
I_NUMBER = "The answer should only be given as a number.\n" + I_WRAP
I_NUMBER_FRACTION = (
    "The answer should only be given as a number.\n"
    "If the answer is a fraction, write it in 'a/b' text format.Decimals are not allowed.\n" + I_WRAP
)
I_OR_ANSWER = (
    "When providing your answer, please enclose it in double square brackets, like this: [[answer]]. \n"
    "If there is more than one correct answer, separate the answers with 'or', like this: [[1or2]]."
)
I_OR_NEGATIVE = (
    "The answer should only be given as a number.\n"
    "The answer may be negative; if so, write it in text format like '-5'.\n"
    "If there is more than one answer, please separate them with 'or', e.g., 1 or 2.\n"
    "Ensure that the final answer is wrapped in double square brackets, like this: [[1or2]]."
)
I_OR_EG = (
    "The answer should only be given as a number.\n"
    "If there is more than one answer, please separate them with 'or',e.g.[[1or2]].\n" + I_WRAP
)
I_OR_FINAL = (
    "The answer may be negative, if so write it in a format such as '-5'.\n"
    "If there is more than one answer, please separate them with 'or', e.g.[[1or2]].\n"
    "Please wrap the final answer in double square brackets, like this: [[your answer]]."
)
I_COMPLEX = "If the answer is a complex number, write it in the form x + yi.\n" + I_NEGATIVE + I_WRAP
I_ROOT = (
    "If the answer contains a root sign, write it in the form \\sqrt{x} (x is the number under the root "
    "sign).\n" + I_WRAP
)
I_SET = "Please wrap the answer in double square brackets, like this: [[{the elements in the collection}]]."


def i_matrix(size: int) -> str:
    """The official matrix instruction; its letter template follows the matrix size as in sample 248."""
    letters = iter("abcdefghi")
    rows = ",".join("(" + ",".join(next(letters) for _ in range(size)) + ")" for _ in range(size))
    return f"The answer is a matrix, write it in this form:[[({rows})]]."


# --------------------------------------------------------------------------- items


@dataclass(frozen=True)
class GeneratedOperationItem:
    """One generated question.  ``value`` is the exact answer (Fraction, SymPy object, frozenset of
    solutions for an inverse question); ``gold`` its official notation; ``operands`` what the item
    was built from, so a test can recompute the answer a second, independent way."""

    rule_id: str
    question: str
    gold: str
    value: Any
    seed: int
    kind: str
    index: int = 0
    level: int = 1
    operands: dict[str, Any] = field(default_factory=dict)

    def as_kor_item(self) -> KorItem:
        """A :class:`KorItem` for the scorers; the idx is not numeric, so no official per-idx quirk
        (symbolic or inequality branch) applies to a generated item."""
        rule = RULES[self.rule_id]
        return KorItem(
            category="operation",
            idx=f"gen-{self.rule_id}-{self.seed}-{self.index}",
            rule_id=self.rule_id,
            question=self.question,
            answer=self.gold,
            rule_title=rule.title,
        )


@dataclass(frozen=True)
class _Draft:
    question: str
    value: Any
    answer: str
    kind: str
    operands: dict[str, Any]


@dataclass(frozen=True)
class OperationRule:
    """One official operator rule: its binary operators (for :func:`evaluate`) and its generators."""

    rule_id: str
    title: str
    ops: dict[str, Callable[[Any, Any], Any]]
    forward: Callable[[random.Random, int], _Draft]
    inverse: Callable[[random.Random, int], _Draft | None] | None = None
    symbolic: bool = False
    """Numbers in :func:`evaluate` are SymPy integers (surds, complex numbers) rather than Fractions."""


# --------------------------------------------------------------------------- formatting


def fmt_number(value: Any) -> str:
    """``24``, ``-1``, ``13/3``: the official notation of a rational answer."""
    q = Fraction(int(value.p), int(value.q)) if isinstance(value, sympy.Rational) else Fraction(value)
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def fmt_or(values: frozenset | set | list) -> str:
    """Several solutions joined by ``or`` without spaces (``4or-12``), largest first as the samples do."""
    return "or".join(fmt_number(v) for v in sorted(values, reverse=True))


def fmt_complex(value: Any) -> str:
    """``5+5i``, ``2+i``, ``-i``, ``-16``: the official complex notation (Gaussian integers only)."""
    re_part, im_part = (sympy.Integer(p) for p in sympy.expand(value).as_real_imag())
    if im_part == 0:
        return str(re_part)
    imag = {1: "i", -1: "-i"}.get(int(im_part), f"{im_part}i")
    if re_part == 0:
        return imag
    return f"{re_part}{'' if imag.startswith('-') else '+'}{imag}"


def fmt_surd(value: Any) -> str:
    """``9+\\sqrt{6}``, ``2\\sqrt{11}``: a rational part, then square-root terms."""
    terms = sympy.expand(value).as_coefficients_dict()
    rational = terms.get(sympy.Integer(1), 0)
    parts = [fmt_number(rational)] if rational else []
    for base, coeff in sorted(((b, c) for b, c in terms.items() if b != 1), key=lambda t: str(t[0])):
        radicand = int(base.args[0])
        head = {1: "", -1: "-"}.get(int(coeff), fmt_number(coeff))
        text = f"{head}\\sqrt{{{radicand}}}"
        parts.append(text if not parts or text.startswith("-") else "+" + text)
    return "".join(parts) or "0"


def fmt_matrix(matrix: sympy.Matrix) -> str:
    """``((1,2),(9,64))``."""
    rows = (",".join(str(matrix[i, j]) for j in range(matrix.cols)) for i in range(matrix.rows))
    return "(" + ",".join(f"({row})" for row in rows) + ")"


def fmt_set(values: frozenset) -> str:
    """``{1,2,4,5}`` / ``{a,b,d,e}``: elements sorted, numbers numerically."""
    items = sorted(values, key=lambda v: (0, v, "") if isinstance(v, int) else (1, 0, str(v)))
    return "{" + ",".join(str(v) for v in items) + "}"


def pmatrix(matrix: sympy.Matrix) -> str:
    """The official question layout of a matrix (``\\[ \\begin{pmatrix} ... \\end{pmatrix} \\]``)."""
    rows = [" & ".join(str(matrix[i, j]) for j in range(matrix.cols)) for i in range(matrix.rows)]
    body = " \\\\\n  ".join(rows)
    return f"\\[\n\\begin{{pmatrix}}\n  {body}\n\\end{{pmatrix}}\n\\]"


def poly_text(coeffs: dict[tuple[int, int], int]) -> str:
    """Monomials ``{(i, j): c}`` of c·x^i·y^j in the samples' plain notation (``x^2y+3x-1``)."""
    parts: list[str] = []
    for (i, j), c in sorted(coeffs.items(), key=lambda t: (-(t[0][0] + t[0][1]), -t[0][0])):
        if c == 0:
            continue
        mono = "".join(v if e == 1 else f"{v}^{e}" for v, e in (("x", i), ("y", j)) if e)
        head = str(c) if not mono or abs(c) != 1 else ("-" if c < 0 else "")
        head = head if mono or c < 0 else str(c)
        text = f"{head}{mono}" if mono else str(c)
        parts.append(text if not parts or text.startswith("-") else "+" + text)
    return "".join(parts) or "0"


def poly_expr(coeffs: dict[tuple[int, int], int]) -> sympy.Expr:
    """The SymPy polynomial of the monomial dict, built term by term."""
    X, Y = _xy()
    return sympy.Add(*(sympy.Integer(c) * X**i * Y**j for (i, j), c in coeffs.items()))


# --------------------------------------------------------------------------- operators


def _integer(value: Any) -> int:
    """An operand the rule says is an integer; anything else is outside the operator's domain."""
    q = Fraction(int(value.p), int(value.q)) if isinstance(value, sympy.Rational) else Fraction(value)
    if q.denominator != 1:
        raise ValueError(f"{value} is not an integer")
    return q.numerator


def op_star(a: Any, b: Any) -> Fraction:
    """Rule 1 ※: a/b+2 if b divides a, b/a+2 if a divides b, else 24 (0※0 undefined)."""
    a, b = _integer(a), _integer(b)
    if a == 0 and b == 0:
        raise ValueError("0※0 is undefined")
    if b != 0 and a % b == 0:
        return Fraction(a, b) + 2
    if a != 0 and b % a == 0:
        return Fraction(b, a) + 2
    return Fraction(24)


def op_circle(a: Any, b: Any) -> Any:
    """Rule 2 ○: (A+3B)×(A+B)."""
    return (a + 3 * b) * (a + b)


def op_angle(a: Any, b: Any, c: Any, d: Any) -> Any:
    """Rule 3 ⟨a,b,c,d⟩ = 2ab+c-d."""
    return 2 * a * b + c - d


def op_hash(a: Any, b: Any) -> Fraction:
    """Rule 4 #: the mean of the even numbers between a and b, both included (either order)."""
    lo, hi = sorted((_integer(a), _integer(b)))
    first, last = lo + lo % 2, hi - hi % 2
    if first > last:
        raise ValueError(f"no even number between {a} and {b}")
    return Fraction(first + last, 2)


def op_inf(a: Any, b: Any) -> Any:
    """Rule 5 ∞: a^2+b^2."""
    return a**2 + b**2


def op_sqrt_plus(a: Any, b: Any) -> Any:
    """Rule 8 ①: √a + b^2."""
    return sympy.sqrt(sympy.Integer(a) if isinstance(a, int) else a) + b**2


def op_sqrt_times(a: Any, b: Any) -> Any:
    """Rule 8 ②: √a × b."""
    return sympy.expand(sympy.sqrt(sympy.Integer(a) if isinstance(a, int) else a) * b)


def op_power(a: Any, b: Any) -> Fraction:
    """Rule 9 ◇: a^b (an integer exponent, so the result stays a Fraction)."""
    return Fraction(a) ** _integer(b)


def log_ratio(a: int, b: int) -> Fraction | None:
    """log_b(a) when it is rational (a^q = b^p), else ``None``; exact integer arithmetic decides."""
    if a < 2 or b < 2:
        return Fraction(0) if a == 1 and b >= 2 else None
    for q in range(1, 65):
        p = round(q * math.log(a) / math.log(b))
        if p > 0 and a**q == b**p:
            return Fraction(p, q)
    return None


def op_log(a: Any, b: Any) -> Any:
    """Rule 10 ￠: log_b a + log_a b; a Fraction when the logarithms are rational, else SymPy logs."""
    a, b = _integer(a), _integer(b)
    if a < 2 or b < 2:
        raise ValueError("log base must be an integer ≥ 2")
    t = log_ratio(a, b)
    if t is not None:
        return t + 1 / t
    return sympy.log(a) / sympy.log(b) + sympy.log(b) / sympy.log(a)


def op_yen(a: Any, b: Any) -> Fraction:
    """Rule 11 ¥: a^b - b^a (integer operands; a negative exponent gives a Fraction)."""
    a, b = _integer(a), _integer(b)
    if (a == 0 and b < 0) or (b == 0 and a < 0):
        raise ValueError("0 to a negative power")
    if max(abs(a), abs(b)) > 4096:
        # A chained a¥b¥c would otherwise raise to a power with millions of digits and never return.
        raise ValueError("operand too large to evaluate exactly")
    return Fraction(a) ** b - Fraction(b) ** a


def op_percent(a: Any, b: Any) -> Any:
    """Rule 12 %: a^b + √(ab)."""
    a, b = sympy.Integer(_integer(a)), sympy.Integer(_integer(b))
    return a**b + sympy.sqrt(a * b)


def op_oplus(a: Any, b: Any) -> Any:
    """Rule 13 ⊕: a + bi."""
    return sympy.Integer(_integer(a)) + sympy.Integer(_integer(b)) * sympy.I


def op_odot(a: Any, b: Any) -> Any:
    """Rule 14 ◎: (a + bi)^2, expanded."""
    return sympy.expand((sympy.Integer(_integer(a)) + sympy.Integer(_integer(b)) * sympy.I) ** 2)


def op_bigstar(a: Any, b: Any) -> Fraction:
    """Rule 19 ★: ∫_a^b 2x dx, integrated by SymPy."""
    X, _y = _xy()
    value = sympy.integrate(2 * X, (X, sympy.Rational(a), sympy.Rational(b)))
    return Fraction(int(value.p), int(value.q))


def _as_sympy(value: Any) -> Any:
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    return value


# --------------------------------------------------------------------------- generators


def _rng_int(rng: random.Random, level: int, lo: int = 1, scale: float = 1.0) -> int:
    return rng.randint(lo, max(lo + 1, int(_RANGE[level] * scale)))


def _search(f: Callable[[int], Any], target: Any, lo: int, hi: int) -> frozenset[int]:
    """Every integer in [lo, hi] where ``f`` equals ``target`` (points outside f's domain skipped)."""
    return _solutions(f, target, range(lo, hi + 1))


def _solutions(f: Callable[[int], Any], target: Any, candidates: Iterable[int]) -> frozenset[int]:
    """The candidates where ``f`` equals ``target``; points outside f's domain are skipped."""
    found: set[int] = set()
    for n in candidates:
        try:
            if f(n) == target:
                found.add(n)
        except (ValueError, ZeroDivisionError):
            continue
    return frozenset(found)


def _fwd(expr: str, value: Any, answer: str, instruction: str, **operands: Any) -> _Draft:
    return _Draft(f"Compute {expr}.\n{instruction}", value, answer, "forward", operands)


def _inv(equation: str, solutions: frozenset, instruction: str, var: str = "X", **operands: Any) -> _Draft:
    return _Draft(
        f"If {equation}, find {var}.\n{instruction}",
        solutions,
        fmt_or(solutions),
        "inverse",
        operands,
    )


def _chain(op: Callable[[Any, Any], Any], args: list[int]) -> Any:
    value: Any = Fraction(args[0])
    for arg in args[1:]:
        value = op(value, Fraction(arg))
    return value


def _gen_chain(
    symbol: str, op: Callable[[Any, Any], Any], draw: Callable[[random.Random, int], list[int]], instr: str
) -> Callable[[random.Random, int], _Draft]:
    """Forward questions ``a※b※c`` (left to right, as the official samples evaluate them)."""

    def forward(rng: random.Random, level: int) -> _Draft:
        args = draw(rng, level)
        value = _chain(op, args)
        return _fwd(symbol.join(str(a) for a in args), value, fmt_number(value), instr, args=args)

    return forward


# Rule 1 -------------------------------------------------------------------


def _draw_star(rng: random.Random, level: int) -> list[int]:
    """Operands biased towards divisibility, so all three branches of ※ occur."""
    count = 2 if level == 1 else 3
    args = [_rng_int(rng, level, 2)]
    for _ in range(count - 1):
        prev = int(_chain(op_star, args))
        mode = rng.random()
        if mode < 0.35:
            args.append(prev * rng.randint(1, 4))
        elif mode < 0.7 and prev > 1:
            divisors = [d for d in range(1, prev + 1) if prev % d == 0]
            args.append(rng.choice(divisors))
        else:
            args.append(_rng_int(rng, level, 2))
    return args


def _inv_star(rng: random.Random, level: int) -> _Draft | None:
    """X※b=v.  For v ∉ {2, 24} every solution is b(v-2) or b/(v-2), so |X| ≤ |b|·|v-2| bounds the
    search; X=0 gives 2 and is excluded by v ≠ 2."""
    b = _rng_int(rng, level, 2)
    x0 = (
        b * rng.randint(1, 5)
        if rng.random() < 0.6
        else rng.choice([d for d in range(1, b + 1) if b % d == 0])
    )
    v = op_star(x0, b)
    if v in (2, 24):
        return None
    bound = abs(b) * abs(int(v) - 2) + 1
    sols = _search(lambda n: op_star(n, b), v, -bound, bound)
    return _inv(f"X※{b}={fmt_number(v)}", sols, I_OR_ANSWER, b=b, target=v, bound=bound)


# Rule 2 -------------------------------------------------------------------


def _inv_circle(rng: random.Random, level: int) -> _Draft | None:
    """X○b=v is the quadratic X²+4bX+3b²-v=0: SymPy's roots of the polynomial built from its
    coefficients give the complete solution set (at most two, over the reals)."""
    X, _y = _xy()
    b = _rng_int(rng, level, 1) * rng.choice((1, -1))
    x0 = _rng_int(rng, level, 1) * rng.choice((1, -1))
    v = op_circle(x0, b)
    poly = sympy.Poly([1, 4 * b, 3 * b * b - v], X)
    roots = frozenset(Fraction(int(r.p), int(r.q)) for r in sympy.roots(poly) if r.is_rational)
    return _inv(f"X○{b}={v}" if b >= 0 else f"X○({b})={v}", roots, I_OR_NEGATIVE, b=b, target=v)


# Rule 3 -------------------------------------------------------------------


def _fwd_angle(rng: random.Random, level: int) -> _Draft:
    args = [_rng_int(rng, level, 1) for _ in range(4)]
    value = Fraction(op_angle(*args))
    return _fwd(f"⟨{','.join(map(str, args))}⟩", value, fmt_number(value), I_SINGLE, args=args)


def _inv_angle(rng: random.Random, level: int) -> _Draft | None:
    """⟨a,b,c,d⟩ is linear in each argument; the coefficient of X (2b, 2a, 1 or -1) is nonzero, so the
    solution is unique and exact as a Fraction."""
    args = [_rng_int(rng, level, 1) for _ in range(4)]
    v = op_angle(*args)
    pos = rng.randrange(4)
    a, b, c, d = (Fraction(n) for n in args)
    if pos == 0:
        sol = (v - c + d) / (2 * b)
    elif pos == 1:
        sol = (v - c + d) / (2 * a)
    elif pos == 2:
        sol = v - 2 * a * b + d
    else:
        sol = 2 * a * b + c - v
    shown = [str(n) for n in args]
    shown[pos] = "X"
    return _inv(f"⟨{','.join(shown)}⟩={v}", frozenset({sol}), I_NUMBER_FRACTION, args=args, pos=pos, target=v)


# Rule 4 -------------------------------------------------------------------


def _draw_hash(rng: random.Random, level: int) -> list[int]:
    a = _rng_int(rng, level, 1)
    return [a, a + rng.randint(1, _RANGE[level])]


def _inv_hash(rng: random.Random, level: int) -> _Draft | None:
    """X#b=v: the evens run from one end to the other, so the mean v is at most the larger end and at
    least the smaller; |X| ≤ 2|v|+|b|+2 bounds every solution."""
    b = _rng_int(rng, level, 2)
    x0 = rng.randint(1, b + _RANGE[level])
    try:
        v = op_hash(x0, b)
    except ValueError:
        return None
    bound = 2 * abs(int(v)) + abs(b) + 2
    sols = _search(lambda n: op_hash(n, b), v, -bound, bound)
    return _inv(f"X#{b}={fmt_number(v)}", sols, I_OR_EG, b=b, target=v, bound=bound)


# Rule 5 -------------------------------------------------------------------


def _inv_inf(rng: random.Random, level: int) -> _Draft | None:
    """X∞b=v over positive integers: X² = v-b², so X ≤ √v bounds the search."""
    b, x0 = _rng_int(rng, level, 1), _rng_int(rng, level, 1)
    v = op_inf(x0, b)
    sols = _search(lambda n: op_inf(n, b), v, 1, math.isqrt(v) + 1)
    return _inv(f"X∞{b}={v}", sols, I_NUMBER, b=b, target=v)


# Rule 6 -------------------------------------------------------------------

_ARITH = {"+": lambda p, q: p + q, "-": lambda p, q: p - q, "×": lambda p, q: p * q, "/": lambda p, q: p / q}


def _fwd_maxmin(rng: random.Random, level: int) -> _Draft:
    a, b, c, d = (_rng_int(rng, level, 1) for _ in range(4))
    first, second = rng.sample(["§", "$"], 2)
    arith = rng.choice(list(_ARITH))
    ops = {"§": max, "$": min}
    left, right = Fraction(ops[first](a, b)), Fraction(ops[second](c, d))
    value = _ARITH[arith](left, right)
    instr = I_NUMBER_FRACTION if arith == "/" else (I_NEGATIVE + I_SINGLE if arith == "-" else I_SINGLE)
    expr = f"({a}{first}{b}){arith}({c}{second}{d})"
    return _fwd(expr, value, fmt_number(value), instr, args=[a, b, c, d], ops=[first, second, arith])


# Rule 7 -------------------------------------------------------------------


def _venus(a: Any, b: Any) -> Fraction:
    return Fraction(a + b) / 2


def _mars(a: Any, b: Any) -> Fraction:
    return Fraction(a) * 4 + b


def _fwd_venus(rng: random.Random, level: int) -> _Draft:
    a, b, c = (_rng_int(rng, level, 1) for _ in range(3))
    if rng.random() < 0.5:
        value, expr, form = _mars(_venus(a, b), c), f"({a}♀{b})♂{c}", "left"
    else:
        value, expr, form = _mars(a, _venus(b, c)), f"{a}♂({b}♀{c})", "right"
    instr = I_FRACTION if Fraction(value).denominator != 1 else I_SINGLE
    return _fwd(expr, value, fmt_number(value), instr, args=[a, b, c], form=form)


def _inv_venus(rng: random.Random, level: int) -> _Draft | None:
    """(X♀b)♂c = 2X+2b+c and a♂(X♀c) = 4a+(X+c)/2 are strictly increasing in X: one solution."""
    x0, b, c = (_rng_int(rng, level, 1) for _ in range(3))
    if rng.random() < 0.5:
        v = _mars(_venus(x0, b), c)
        sol = (v - c) / 2 - b
        eq, form = f"(X♀{b})♂{c}={fmt_number(v)}", "left"
    else:
        v = _mars(b, _venus(x0, c))
        sol = 2 * (v - 4 * b) - c
        eq, form = f"{b}♂(X♀{c})={fmt_number(v)}", "right"
    return _inv(eq, frozenset({sol}), I_NUMBER, b=b, c=c, target=v, form=form)


# Rule 8 -------------------------------------------------------------------


def _fwd_roots(rng: random.Random, level: int) -> _Draft:
    """Perfect squares under every root, so the answer is an integer (as in most official samples)."""
    s, t, c = (_rng_int(rng, level, 1, 0.5) for _ in range(3))
    if rng.random() < 0.5:
        value, expr, form = op_sqrt_times(s * s, op_sqrt_plus(t * t, c)), f"{s * s}②({t * t}①{c})", "times"
    else:
        value, expr, form = op_sqrt_plus(s * s, op_sqrt_times(t * t, c)), f"{s * s}①({t * t}②{c})", "plus"
    return _fwd(expr, value, fmt_surd(value), I_SINGLE, args=[s * s, t * t, c], form=form)


def _exact_sqrt(n: int) -> int | None:
    """√n when it is an integer; otherwise √n is irrational (so never equal to a rational target)."""
    if n < 0:
        return None
    root = math.isqrt(n)
    return root if root * root == n else None


def _inv_roots(rng: random.Random, level: int) -> _Draft | None:
    """a②(X①c) = √a(√X+c²) is strictly increasing in X ≥ 0, so the solution is unique; the target v is
    an integer, and √X irrational would make the left side irrational, so only perfect squares X ≤
    (v/√a)² need checking: the search tests exactly those."""
    s, t, c = (_rng_int(rng, level, 1, 0.5) for _ in range(3))
    v = int(op_sqrt_times(s * s, op_sqrt_plus(t * t, c)))

    def lhs(n: int) -> int | None:
        root = _exact_sqrt(n)
        return None if root is None else s * (root + c * c)

    sols = _search(lhs, v, 0, (v // s) ** 2 + 1)
    return _inv(f"{s * s}②(X①{c})={v}", sols, I_NUMBER, a=s * s, c=c, target=v)


# Rule 9 -------------------------------------------------------------------


def _draw_power(rng: random.Random, level: int) -> list[int]:
    if level == 1:
        return [rng.randint(1, 9), rng.randint(1, 4)]
    return [rng.randint(1, 5), rng.randint(1, 3), rng.randint(1, 3)]


def _inv_power(rng: random.Random, level: int) -> _Draft | None:
    """X◇b=v over positive integers: X^b is increasing, X ≤ v bounds it; a◇X with a ≥ 2 likewise."""
    if rng.random() < 0.5:
        b, x0 = rng.randint(2, 4), rng.randint(2, 3 * level + 3)
        v = x0**b
        sols = _search(lambda n: n**b, v, 1, math.isqrt(v) + 1)
        return _inv(f"X◇{b}={v}", sols, I_NUMBER, side="left", b=b, target=v)
    a, x0 = rng.randint(2, 3 * level + 3), rng.randint(1, 5)
    v = a**x0
    sols = _search(lambda n: a**n, v, 1, v.bit_length() + 1)
    return _inv(f"{a}◇X={v}", sols, I_NUMBER, side="right", a=a, target=v)


# Rule 10 ------------------------------------------------------------------


def _fwd_log(rng: random.Random, level: int) -> _Draft:
    """Both operands powers of one base, so the logarithms are rational and the answer a Fraction."""
    base = rng.choice((2, 3) if level < 3 else (2, 3, 5))
    p, q = rng.randint(1, 3 + level), rng.randint(1, 3 + level)
    a, b = base**p, base**q
    value = op_log(a, b)
    return _fwd(f"{a}￠{b}", value, fmt_number(value), I_FRACTION, args=[a, b])


def _inv_log(rng: random.Random, level: int) -> _Draft | None:
    """a￠X = t+1/t with t = log_a X; t+1/t=v has the two roots t₀ and 1/t₀, so X ∈ {a^t₀, a^(1/t₀)}.
    Both candidates are checked exactly (an integer X = a^(p/q) needs a^p to be a q-th power)."""
    base = rng.choice((2, 3))
    p, q = rng.randint(1, 4), rng.randint(1, 4)
    a, x0 = base**p, base**q
    v = op_log(a, x0)
    t = Fraction(q, p)
    sols = set()
    for r in (t, 1 / t):
        root, exact = sympy.integer_nthroot(a**r.numerator, r.denominator)
        if exact and root >= 2:
            sols.add(int(root))
    return _inv(f"{a}￠X={fmt_number(v)}", frozenset(sols), I_NUMBER, a=a, target=v)


# Rule 11 ------------------------------------------------------------------


def _draw_yen(rng: random.Random, level: int) -> list[int]:
    return [rng.randint(1, 3 + 2 * level), rng.randint(1, 3 + 2 * level)]


def _inv_yen(rng: random.Random, level: int) -> _Draft | None:
    """a¥X = a^X - X^a over positive integers.  For a=1 it is 1-X (one solution); for a ≥ 2 the
    function increases without bound from X = 2a+2 on (a^X outgrows X^a), so once f exceeds |v| past
    that point no larger X can solve it: the search stops there."""
    a, x0 = rng.randint(1, 4), rng.randint(1, 4 + level)
    v = op_yen(a, x0)
    hi = max(2 * a + 2, 3)
    while a >= 2 and op_yen(a, hi) <= abs(v):
        hi += 1
    if a == 1:
        hi = int(1 - v) + 1
    sols = _search(lambda n: op_yen(a, n), v, 1, hi)
    return _inv(f"{a}¥X={fmt_number(v)}", sols, I_NUMBER, a=a, target=v)


# Rule 12 ------------------------------------------------------------------


def _fwd_percent(rng: random.Random, level: int) -> _Draft:
    """√(ab) is either an integer or a square-free surd, the two forms the official golds use."""
    while True:
        a, b = rng.randint(1, 3 + 2 * level), rng.randint(1, 4)
        if math.isqrt(a * b) ** 2 == a * b or sympy.ntheory.factor_.core(a * b) == a * b:
            break
    value = op_percent(a, b)
    instr = I_SINGLE if value.is_Integer else I_ROOT
    return _fwd(f"{a}%{b}", value, fmt_surd(value), instr, args=[a, b])


def _inv_percent(rng: random.Random, level: int) -> _Draft | None:
    """X%b is strictly increasing in positive X, and X ≤ v: one solution in [1, v]."""
    b, x0 = rng.randint(1, 3), rng.randint(1, 3 + 2 * level)
    v = op_percent(x0, b)
    if not v.is_Integer:
        return None

    def lhs(n: int) -> int | None:
        root = _exact_sqrt(n * b)  # an irrational √(nb) can never meet the integer target
        return None if root is None else n**b + root

    sols = _search(lhs, int(v), 1, int(v))
    return _inv(f"X%{b}={v}", sols, I_NUMBER, b=b, target=int(v))


# Rules 13, 14 -------------------------------------------------------------

_C_ARITH = {"+": lambda p, q: p + q, "-": lambda p, q: p - q, "×": lambda p, q: p * q}


def _signed(rng: random.Random, level: int) -> int:
    return rng.randint(-_RANGE[level], _RANGE[level]) // (2 if level > 1 else 1)


def _gen_complex(symbol: str, op: Callable[[Any, Any], Any]) -> Callable[[random.Random, int], _Draft]:
    def forward(rng: random.Random, level: int) -> _Draft:
        a, b, c, d = (rng.randint(1, _RANGE[level] // (1 if symbol == "⊕" else 2) + 1) for _ in range(4))
        arith = rng.choice(list(_C_ARITH))
        value = sympy.expand(_C_ARITH[arith](op(a, b), op(c, d)))
        expr = f"({a}{symbol}{b}){arith}({c}{symbol}{d})"
        return _fwd(expr, value, fmt_complex(value), I_COMPLEX, args=[a, b, c, d], arith=arith)

    return forward


def _gen_complex_inverse(symbol: str, op: Callable[[Any, Any], Any]) -> Callable[..., _Draft | None]:
    """(X·b)+(c·d)=v with real X: the imaginary part is linear in X (b for ⊕, 2Xb for ◎ with b ≠ 0),
    so X is unique; the search over |X| ≤ the range, where it lies, confirms it."""

    def inverse(rng: random.Random, level: int) -> _Draft | None:
        x0, b, c, d = (rng.randint(1, _RANGE[level]) for _ in range(4))
        v = sympy.expand(op(x0, b) + op(c, d))
        sols = _search(
            lambda n: sympy.expand(op(n, b) + op(c, d) - v) == 0, True, -_RANGE[level], _RANGE[level]
        )
        return _inv(
            f"({symbol.join(('X', str(b)))})+({c}{symbol}{d})={fmt_complex(v)}",
            sols,
            I_NUMBER,
            b=b,
            c=c,
            d=d,
            target=v,
        )

    return inverse


# Rules 15-17, 22: derivatives -----------------------------------------------


def _rand_poly(rng: random.Random, level: int, variables: int = 1) -> dict[tuple[int, int], int]:
    degree = 2 if level < 3 else 3
    coeffs: dict[tuple[int, int], int] = {}
    for _ in range(rng.randint(1, 3)):
        i = rng.randint(0, degree)
        j = rng.randint(0, degree - i) if variables == 2 else 0
        coeffs[(i, j)] = coeffs.get((i, j), 0) + rng.choice((1, 1, 2, 3, -1, -2))
    coeffs = {k: c for k, c in coeffs.items() if c}
    return coeffs or {(1, 0): 1}


def _gen_derivative(rule_id: str) -> Callable[[random.Random, int], _Draft]:
    """The operator applied by SymPy to polynomials built in code, then evaluated at an integer point,
    the official "find the value of f△g when x=..." form: an exact integer answer."""
    symbol = {"15": "△", "16": "□", "17": "▽", "22": "■"}[rule_id]

    def forward(rng: random.Random, level: int) -> _Draft:
        X, Y = _xy()
        two = rule_id == "22"
        f, g = _rand_poly(rng, level, 2 if two else 1), _rand_poly(rng, level, 2 if two else 1)
        fx, gx = poly_expr(f), poly_expr(g)
        if rule_id == "15":
            expr = sympy.diff(fx.subs(X, gx), X)
        elif rule_id == "16":
            expr = sympy.diff(fx, X) + sympy.diff(gx, X)
        elif rule_id == "17":
            expr = fx + sympy.diff(gx, X, 2)
        else:
            expr = sympy.diff(fx, X) + sympy.diff(gx, X)
        x0 = rng.randint(-3, 3)
        point = {X: x0}
        where = f"x={x0}"
        if two:
            y0 = rng.randint(-3, 3)
            point[Y] = y0
            where = f"x={x0}, y={y0}"
        value = sympy.Integer(expr.subs(point))
        args = "(x,y)" if two else "(x)"
        question = (
            f"f{args}={poly_text(f)}, g{args}={poly_text(g)}, find the value of f{symbol}g when {where}.\n"
            + I_NEGATIVE
            + I_SINGLE
        )
        return _Draft(
            question, value, fmt_number(value), "forward", {"f": f, "g": g, "point": (x0, point.get(Y))}
        )

    return forward


# Rules 19-21: integrals -----------------------------------------------------


def _inv_bigstar(rng: random.Random, level: int) -> _Draft | None:
    """a★b = b²-a²: fixing b, a² = b²-v has exactly the solutions ±√(b²-v) (one if it is 0)."""
    a0, b = _rng_int(rng, level, 1), _rng_int(rng, level, 1) * rng.choice((1, -1))
    v = op_bigstar(a0, b)
    sols = frozenset(Fraction(s) for s in (a0, -a0))
    return _inv(
        f"a★{b}={fmt_number(v)}" if b > 0 else f"a★({b})={fmt_number(v)}",
        sols,
        I_OR_FINAL,
        var="a",
        b=b,
        target=v,
    )


def _fwd_bigstar(rng: random.Random, level: int) -> _Draft:
    a, b = _signed(rng, level), _signed(rng, level)
    value = op_bigstar(a, b)
    return _fwd(f"{a}★{b}", value, fmt_number(value), I_NEGATIVE + I_SINGLE, args=[a, b])


def op_bullet(f: dict[tuple[int, int], int], a: int, b: int) -> Fraction:
    """Rule 20 ●: ∫_a^b f(x) dx + 6 for a polynomial f (monomial dict), integrated by SymPy."""
    X, _y = _xy()
    integral = sympy.integrate(poly_expr(f), (X, a, b)) + 6
    return Fraction(int(integral.p), int(integral.q))


def op_diamond(f: dict[tuple[int, int], int], box: tuple[int, int, int, int]) -> Fraction:
    """Rule 21 ◆: ∬_D f(x, y) dx dy over the rectangle x0≤x≤x1, y0≤y≤y1, integrated by SymPy."""
    X, Y = _xy()
    x0, x1, y0, y1 = box
    integral = sympy.integrate(poly_expr(f), (X, x0, x1), (Y, y0, y1))
    return Fraction(int(integral.p), int(integral.q))


def _fwd_bullet(rng: random.Random, level: int) -> _Draft:
    """∫_a^b f(x) dx + 6 of a polynomial f, integrated by SymPy: an exact rational."""
    f = _rand_poly(rng, level)
    a = rng.randint(-3, 3)
    b = a + rng.randint(1, 3)
    value = op_bullet(f, a, b)
    question = f"Given f(x)={poly_text(f)}, compute {a}●{b}.\n" + I_NEGATIVE + I_FRACTION
    return _Draft(question, value, fmt_number(value), "forward", {"f": f, "a": a, "b": b})


def _fwd_diamond(rng: random.Random, level: int) -> _Draft:
    """∬_D f over a rectangle D, integrated by SymPy (x inner, then y): an exact rational."""
    f = _rand_poly(rng, level, 2)
    x0, y0 = rng.randint(-2, 2), rng.randint(-2, 2)
    x1, y1 = x0 + rng.randint(1, 3), y0 + rng.randint(1, 3)
    value = op_diamond(f, (x0, x1, y0, y1))
    question = f"f(x,y)={poly_text(f)},D:{x0}≤x≤{x1}, {y0}≤y≤{y1}, compute f◆D.\n" + I_NEGATIVE + I_FRACTION
    return _Draft(question, value, fmt_number(value), "forward", {"f": f, "box": (x0, x1, y0, y1)})


# Rule 18: sets ----------------------------------------------------------------


def _fwd_sets(rng: random.Random, level: int) -> _Draft:
    """Finite sets of integers or letters; A￡B = (A∪B)−(A∩B) taken literally on frozensets (SymPy
    cannot decide equality of distinct letter Symbols inside its set algebra)."""
    pool: list[Any]
    if rng.random() < 0.5:
        pool = list(range(1, 3 * _RANGE[level] // 2 + 4))
    else:
        pool = list("abcdefghijklmnopqrstuvwxyz"[: 6 + 4 * level])
    size = 2 + level
    a, b = frozenset(rng.sample(pool, size)), frozenset(rng.sample(pool, size))
    value = (a | b) - (a & b)
    question = f"A={fmt_set(a)}, B={fmt_set(b)}.\nCompute A￡B.\n{I_SET}"
    return _Draft(question, value, fmt_set(value), "forward", {"A": a, "B": b})


# Rules 23-25: matrices ------------------------------------------------------


def _gen_matrix(rule_id: str) -> Callable[[random.Random, int], _Draft]:
    symbol = {"23": "&", "24": "@", "25": "€"}[rule_id]

    def forward(rng: random.Random, level: int) -> _Draft:
        size = 2 if level < 3 else 3
        hi = {"23": 6 + level, "24": _RANGE[level], "25": _RANGE[level]}[rule_id]
        lo = 0 if rule_id == "23" else (-hi if rule_id == "25" and level > 1 else 0)
        a = sympy.Matrix(
            size, size, [rng.randint(lo if rule_id != "23" else 1, hi) for _ in range(size * size)]
        )
        b = sympy.Matrix(
            size,
            size,
            [rng.randint(0, 3) if rule_id == "23" else rng.randint(lo, hi) for _ in range(size * size)],
        )
        if rule_id == "23":
            value = sympy.Matrix(size, size, lambda i, j: a[i, j] ** b[i, j])
        elif rule_id == "24":
            value = sympy.Matrix(size, size, lambda i, j: sympy.Max(a[i, j], b[i, j]))
        else:
            value = 2 * a + 3 * b
        question = f"A=\n{pmatrix(a)}\nB=\n{pmatrix(b)}\nCompute A{symbol}B.\n{i_matrix(size)}"
        return _Draft(question, value, fmt_matrix(value), "forward", {"A": a, "B": b})

    return forward


# --------------------------------------------------------------------------- registry


def _pair(lo: int, scale: float = 1.0) -> Callable[[random.Random, int], list[int]]:
    return lambda rng, level: [_rng_int(rng, level, lo, scale), _rng_int(rng, level, lo, scale)]


def _triple_or_pair(rng: random.Random, level: int) -> list[int]:
    return [_rng_int(rng, level, 1, 0.5) for _ in range(2 if level == 1 else 3)]


RULES: dict[str, OperationRule] = {
    r.rule_id: r
    for r in (
        OperationRule("1", "※", {"※": op_star}, _gen_chain("※", op_star, _draw_star, I_SINGLE), _inv_star),
        OperationRule(
            "2", "○", {"○": op_circle}, _gen_chain("○", op_circle, _triple_or_pair, I_SINGLE), _inv_circle
        ),
        OperationRule("3", "<>", {}, _fwd_angle, _inv_angle),
        OperationRule("4", "#", {"#": op_hash}, _gen_chain("#", op_hash, _draw_hash, I_SINGLE), _inv_hash),
        OperationRule("5", "∞", {"∞": op_inf}, _gen_chain("∞", op_inf, _pair(1), I_SINGLE), _inv_inf),
        OperationRule(
            "6",
            "Multiple Operators 1",
            {"§": lambda a, b: max(a, b), "$": lambda a, b: min(a, b)},
            _fwd_maxmin,
        ),
        OperationRule("7", "Multiple Operators 2", {"♀": _venus, "♂": _mars}, _fwd_venus, _inv_venus),
        OperationRule(
            "8",
            "Multiple Operators 3",
            {"①": op_sqrt_plus, "②": op_sqrt_times},
            _fwd_roots,
            _inv_roots,
            symbolic=True,
        ),
        OperationRule(
            "9", "◇", {"◇": op_power}, _gen_chain("◇", op_power, _draw_power, I_SINGLE), _inv_power
        ),
        OperationRule("10", "￠", {"￠": op_log}, _fwd_log, _inv_log),
        OperationRule(
            "11", "¥", {"¥": op_yen}, _gen_chain("¥", op_yen, _draw_yen, I_NEGATIVE + I_SINGLE), _inv_yen
        ),
        OperationRule("12", "%", {"%": op_percent}, _fwd_percent, _inv_percent, symbolic=True),
        OperationRule(
            "13",
            "⊕",
            {"⊕": op_oplus},
            _gen_complex("⊕", op_oplus),
            _gen_complex_inverse("⊕", op_oplus),
            symbolic=True,
        ),
        OperationRule(
            "14",
            "◎",
            {"◎": op_odot},
            _gen_complex("◎", op_odot),
            _gen_complex_inverse("◎", op_odot),
            symbolic=True,
        ),
        OperationRule("15", "△", {}, _gen_derivative("15")),
        OperationRule("16", "□", {}, _gen_derivative("16")),
        OperationRule("17", "▽", {}, _gen_derivative("17")),
        OperationRule("18", "￡", {}, _fwd_sets),
        OperationRule("19", "★", {"★": op_bigstar}, _fwd_bigstar, _inv_bigstar),
        OperationRule("20", "●", {}, _fwd_bullet),
        OperationRule("21", "◆", {}, _fwd_diamond),
        OperationRule("22", "■", {}, _gen_derivative("22")),
        OperationRule("23", "&", {}, _gen_matrix("23")),
        OperationRule("24", "@", {}, _gen_matrix("24")),
        OperationRule("25", "€", {}, _gen_matrix("25")),
    )
}


def generate(rule_id: str, n: int, seed: int, level: int = 1) -> list[GeneratedOperationItem]:
    """``n`` items of one rule, reproducible from ``seed``: item i draws from its own RNG seeded by
    (rule, seed, i), so regenerating any prefix gives the same items.  Rules with an inverse
    generator alternate forward and inverse questions; a draw whose inverse has no valid solution
    set is redrawn from the same RNG."""
    check_rule("operation", rule_id, RULES)
    check_level("operation", level)
    rule = RULES[rule_id]
    items: list[GeneratedOperationItem] = []
    for index in range(n):
        rng = random.Random(f"kor-operation:{rule_id}:{seed}:{index}:{level}")
        draft: _Draft | None = None
        if rule.inverse is not None and index % 2 == 1:
            for _ in range(100):
                draft = rule.inverse(rng, level)
                if draft is not None and 0 < len(draft.value) <= 2:
                    break
                draft = None
        if draft is None:
            draft = rule.forward(rng, level)
        items.append(
            GeneratedOperationItem(
                rule_id=rule_id,
                question=draft.question,
                gold=f"[[{draft.answer}]]",
                value=draft.value,
                seed=seed,
                kind=draft.kind,
                index=index,
                level=level,
                operands=draft.operands,
            )
        )
    return items


# --------------------------------------------------------------------------- evaluating official questions

_TOKEN_RE = re.compile(r"\s*(\d+|[A-Za-z]|[()⟨⟩,+\-−×*/]|\S)")
_PRECEDENCE = {"+": 1, "-": 1, "−": 1, "×": 2, "*": 2, "/": 2}


def evaluate(rule_id: str, text: str, x: Any = None) -> Any:
    """The value of an official-style expression (``19※28※4※(104※13)``, ``(3§5)+(2$4)``,
    ``⟨2,3,5,1⟩``) under our operators; the variable ``X`` takes ``x``.  The rule's operators bind
    tighter than arithmetic and associate to the left, as the official golds evaluate them.  A
    precedence parser over tokens: nothing is ever handed to ``eval`` or ``sympify``."""
    rule = RULES[rule_id]
    tokens = [t for t in _TOKEN_RE.findall(text) if t.strip()]
    pos = 0

    def number(n: int) -> Any:
        return sympy.Integer(n) if rule.symbolic else Fraction(n)

    def peek() -> str | None:
        return tokens[pos] if pos < len(tokens) else None

    def take(expected: str | None = None) -> str:
        nonlocal pos
        if pos >= len(tokens) or (expected is not None and tokens[pos] != expected):
            raise ValueError(f"expected {expected!r} at token {pos} of {text!r}")
        pos += 1
        return tokens[pos - 1]

    def atom() -> Any:
        token = take()
        if token.isdigit():
            if peek() == "i" and rule_id in ("13", "14"):
                take("i")
                return number(int(token)) * sympy.I
            return number(int(token))
        if token == "i" and rule_id in ("13", "14"):
            return sympy.I
        if token in ("-", "−"):
            return -atom()
        if token == "(":
            value = expr(0)
            take(")")
            return value
        if token == "⟨" and rule_id == "3":
            args = [expr(0)]
            while peek() == ",":
                take(",")
                args.append(expr(0))
            take("⟩")
            return op_angle(*args)
        if token.isalpha() and x is not None:
            return x
        raise ValueError(f"unexpected {token!r} in {text!r}")

    def expr(min_prec: int) -> Any:
        value = atom()
        while True:
            token = peek()
            prec = 3 if token in rule.ops else _PRECEDENCE.get(token or "", 0)
            if token is None or prec == 0 or prec < min_prec:
                return value
            take()
            right = expr(prec + 1)
            if token in rule.ops:
                value = rule.ops[token](value, right)
            elif token in ("+",):
                value = value + right
            elif token in ("-", "−"):
                value = value - right
            elif token in ("×", "*"):
                value = value * right
            else:
                value = value / right
            if rule.symbolic:
                value = sympy.expand(_as_sympy(value))

    result = expr(0)
    if pos != len(tokens):
        raise ValueError(f"trailing tokens in {text!r}")
    return result


def format_value(rule_id: str, value: Any) -> str:
    """A value of :func:`evaluate` in the official notation of ``rule_id``'s golds."""
    if rule_id in ("13", "14"):
        return fmt_complex(value)
    if isinstance(value, Fraction | int) or (isinstance(value, sympy.Basic) and value.is_Rational):
        return fmt_number(value)
    if rule_id == "10" and isinstance(value, sympy.Add):
        logs = sorted(value.atoms(sympy.log), key=str)
        a, b = (int(lg.args[0]) for lg in logs)
        return f"\\log_{{{b}}}{{{a}}}+\\log_{{{a}}}{{{b}}}"
    return fmt_surd(value)


def solve_integer(rule_id: str, lhs: str, rhs: str, candidates: Iterable[int]) -> frozenset[int]:
    """Every candidate integer X with ``lhs`` = ``rhs`` under the rule's operators (brute force)."""
    target = evaluate(rule_id, rhs)

    def f(n: int) -> Any:
        return evaluate(rule_id, lhs, sympy.Integer(n) if RULES[rule_id].symbolic else Fraction(n))

    return _solutions(f, target, candidates)
