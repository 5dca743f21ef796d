"""Safe, bounded parsing of model-written arithmetic and LaTeX math.  Nothing here executes text.

Model output is hostile input: it can hold ``__import__('os')``, a megabyte of ``(``, or
``10^{10^{10^{10}}}``.  SymPy's ``sympify``/``parse_expr`` call ``eval`` and its LaTeX parser needs
ANTLR, so both are out; instead a small tokenizer and recursive-descent parser build SymPy objects
explicitly (``Integer``/``Rational``/``Symbol``/``Add``/``Mul``/``Pow``/functions).  Every path is
bounded:

* input length (:data:`MAX_EXPR_CHARS`) and nesting depth (:data:`MAX_DEPTH`) are capped before any
  SymPy object exists;
* a numeric power is built only when its size is bounded (:func:`_checked_pow`), so
  ``10^{10^{10}}`` is a parse error instead of a hang;
* equivalence (:func:`equivalent`) is structural equality, then a bounded ``expand`` (only when an
  upper bound on the number of expanded terms is small and no power in it is high), then evaluation
  of the difference at a few random points with plain ``cmath`` floats (not mpmath, whose arbitrary
  exponents make power towers unbounded), with a node count per evaluation;
* the work of several comparisons (one robust verdict) is drawn from one :class:`WorkBudget` of
  expanded terms and evaluated nodes.

Every bound counts work, none reads a clock: the same text gets the same verdict on an idle and on
a busy machine, so re-parsing stored answers never changes a result.

Two evaluators live here: :func:`eval_python_arithmetic` mirrors what the official scorer's
``eval`` computes for puzzle rules 9/10 (Python int/float semantics, so ``8/(3-8/3)`` is
``24.000000000000004`` there too), and :func:`eval_exact_arithmetic` computes the same expression
with exact fractions for the robust scorer.
"""

from __future__ import annotations

import cmath
import math
import random
import re
from fractions import Fraction

import sympy
from sympy import (
    Add,
    E,
    Float,
    I,
    Integer,
    Mul,
    Pow,
    Rational,
    Symbol,
    pi,
)

MAX_EXPR_CHARS = 1000
MAX_DEPTH = 40
MAX_INT_DIGITS = 60
MAX_RESULT_BITS = 4096
MAX_ROOT_BASE_BITS = 256
MAX_EXPONENT = 1000
MAX_EXPAND_TERMS = 300
MAX_EXPAND_EXPONENT = 24
MAX_EVAL_NODES = 5000
VERDICT_EXPAND_TERMS = 2 * MAX_EXPAND_TERMS
VERDICT_EVAL_NODES = 40 * MAX_EVAL_NODES


class WorkBudget:
    """What the comparisons of one verdict may spend: expanded terms (an upper bound, charged
    before ``expand`` runs) and float-evaluated nodes.  A comparison that cannot afford a step
    skips it, so the answer is "not shown equal", never a hang."""

    def __init__(
        self, expand_terms: int = VERDICT_EXPAND_TERMS, eval_nodes: int = VERDICT_EVAL_NODES
    ) -> None:
        self.expand_terms = expand_terms
        self.eval_nodes = eval_nodes


Number = int | float | complex | Fraction
"""What Python arithmetic on literals can produce (``Fraction`` in the exact evaluator)."""


class MathParseError(ValueError):
    """The text is not an expression this parser accepts (or it exceeds a bound)."""


# --------------------------------------------------------------------------- Python arithmetic

_PY_TOKEN_RE = re.compile(
    r"(?P<num>(?:[0-9]+\.[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|[0-9]+)"
    r"|(?P<op>\*\*|//|[-+*/%()])"
    r"|(?P<ws>[ \t\f]+)"
    r"|(?P<nl>[\r\n]+)"
)


def _py_tokens(text: str) -> list[str]:
    """Python-literal tokens of an arithmetic expression; anything else is a parse error.

    Newlines are allowed only inside parentheses (implicit line joining), like ``eval``.
    """
    tokens: list[str] = []
    depth = 0
    pos = 0
    text = text.strip(" \t\f\r\n")
    while pos < len(text):
        match = _PY_TOKEN_RE.match(text, pos)
        if match is None:
            raise MathParseError(f"unexpected character {text[pos]!r}")
        pos = match.end()
        kind = match.lastgroup
        if kind == "ws":
            continue
        if kind == "nl":
            if depth == 0:
                raise MathParseError("newline outside parentheses")
            continue
        token = match.group()
        if kind == "num" and len(token) > 1 and token[0] == "0" and token.isdigit() and token.strip("0"):
            raise MathParseError("leading zeros in a decimal integer literal")
        if kind == "num" and len(token) > MAX_INT_DIGITS:
            raise MathParseError("number literal too long")
        depth += token == "("
        depth -= token == ")"
        tokens.append(token)
    return tokens


class _ArithParser:
    """Python's grammar for ``+ - * / // % **`` and parentheses over numeric literals."""

    def __init__(self, tokens: list[str], exact: bool) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.exact = exact

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def parse(self) -> Number:
        if not self.tokens:
            raise MathParseError("empty expression")
        value = self.expr()
        if self.pos != len(self.tokens):
            raise MathParseError(f"unexpected {self.peek()!r}")
        return value

    def expr(self) -> Number:
        value = self.term()
        while self.peek() in ("+", "-"):
            op = self.take()
            right = self.term()
            value = value + right if op == "+" else value - right
            _check_size(value)
        return value

    def term(self) -> Number:
        value = self.factor()
        while self.peek() in ("*", "/", "//", "%"):
            op = self.take()
            right = self.factor()
            if op == "*":
                value = value * right
            elif op == "/":
                value = Fraction(value) / Fraction(right) if self.exact else value / right
            elif op == "//":
                value = value // right
            else:
                value = value % right
            _check_size(value)
        return value

    def factor(self) -> Number:
        if self.peek() in ("+", "-"):
            op = self.take()
            self._enter()
            value = self.factor()
            self.depth -= 1
            return value if op == "+" else -value
        return self.power()

    def power(self) -> Number:
        base = self.atom()
        if self.peek() == "**":
            self.take()
            self._enter()
            exponent = self.factor()
            self.depth -= 1
            return _bounded_pow(base, exponent)
        return base

    def atom(self) -> Number:
        token = self.peek()
        if token is None:
            raise MathParseError("unexpected end")
        if token == "(":
            self.take()
            self._enter()
            value = self.expr()
            self.depth -= 1
            if self.peek() != ")":
                raise MathParseError("missing ')'")
            self.take()
            return value
        if token[0].isdigit() or token[0] == ".":
            self.take()
            if any(ch in token for ch in ".eE"):
                return Fraction(token) if self.exact else float(token)
            return int(token)
        raise MathParseError(f"unexpected {token!r}")

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise MathParseError("nesting too deep")


def _bits(value: object) -> int:
    if isinstance(value, int):
        return value.bit_length()
    if isinstance(value, Fraction):
        return max(value.numerator.bit_length(), value.denominator.bit_length())
    return 0


def _check_size(value: object) -> None:
    if _bits(value) > MAX_RESULT_BITS:
        raise MathParseError("intermediate result too large")


def _bounded_pow(base: Number, exponent: Number) -> Number:
    """``base ** exponent`` unless the result would be huge (the official ``eval`` would hang)."""
    if isinstance(exponent, int | Fraction) and not isinstance(exponent, bool):
        if abs(exponent) > MAX_EXPONENT or _bits(base) * abs(exponent) > MAX_RESULT_BITS:
            if base not in (0, 1, -1):
                raise MathParseError("power too large")
    if isinstance(exponent, Fraction) and exponent.denominator != 1:
        return float(base) ** float(exponent)
    value = base ** (int(exponent) if isinstance(exponent, Fraction) else exponent)
    _check_size(value)
    return value


def eval_python_arithmetic(text: str) -> Number | None:
    """What Python's ``eval`` would return for an arithmetic string, or None where ``eval`` would
    raise (or where the result would be too large to compute in bounded time).

    Used by the official scorer's puzzle rules 9/10, which call ``eval`` on model text: the same
    numbers come out (float rounding included) without running anything.  Names, calls, tuples and
    every other non-arithmetic construct are rejected (they would raise or be unsafe in ``eval``).
    """
    if not isinstance(text, str) or len(text) > MAX_EXPR_CHARS:
        return None
    try:
        return _ArithParser(_py_tokens(text), exact=False).parse()
    except (MathParseError, ArithmeticError, ValueError, TypeError):
        return None


def eval_exact_arithmetic(text: str) -> Fraction | None:
    """The same arithmetic with exact fractions (``8/(3-8/3)`` is exactly 24); None if invalid."""
    if not isinstance(text, str) or len(text) > MAX_EXPR_CHARS:
        return None
    try:
        value = _ArithParser(_py_tokens(text), exact=True).parse()
    except (MathParseError, ArithmeticError, ValueError, TypeError):
        return None
    if isinstance(value, int | Fraction):
        return Fraction(value)
    return None


# --------------------------------------------------------------------------- numbers

_FRAC_NUM_RE = re.compile(r"^(-?)\\[dt]?frac\{(-?\d+)\}\{(-?\d+)\}$")
_SLASH_NUM_RE = re.compile(r"^([-+]?\d+(?:\.\d+)?)/([-+]?\d+(?:\.\d+)?)$")
_DEC_NUM_RE = re.compile(r"^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$")
_THOUSANDS_RE = re.compile(r"^[-+]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$")


def parse_number(text: str) -> Fraction | None:
    """An exact number from ``24``, ``-3.5``, ``13/3``, ``\\frac{13}{3}``, ``-\\frac{1}{3}``,
    ``1,000`` or ``50%`` (= 1/2); None for anything else.  Exact, so 0.333 is not 1/3."""
    if not isinstance(text, str):
        return None
    s = text.strip().replace(" ", "").replace("−", "-").replace("{,}", "")
    if not s or len(s) > 2 * MAX_INT_DIGITS:
        return None
    scale = Fraction(1)
    if s.endswith("\\%") or s.endswith("%"):
        s = s[:-2] if s.endswith("\\%") else s[:-1]
        scale = Fraction(1, 100)
    if s.startswith("+"):
        s = s[1:]
    try:
        if _DEC_NUM_RE.match(s):
            return Fraction(s) * scale
        if _THOUSANDS_RE.match(s):
            return Fraction(s.replace(",", "")) * scale
        match = _SLASH_NUM_RE.match(s)
        if match:
            denominator = Fraction(match.group(2))
            return None if denominator == 0 else Fraction(match.group(1)) / denominator * scale
        match = _FRAC_NUM_RE.match(s)
        if match:
            denominator = Fraction(match.group(3))
            if denominator == 0:
                return None
            value = Fraction(match.group(2)) / denominator
            return (-value if match.group(1) else value) * scale
    except (ValueError, ZeroDivisionError):
        return None
    return None


# --------------------------------------------------------------------------- LaTeX / plain math

_FUNCTIONS = {
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "cot": sympy.cot,
    "sec": sympy.sec,
    "csc": sympy.csc,
    "arcsin": sympy.asin,
    "arccos": sympy.acos,
    "arctan": sympy.atan,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "tanh": sympy.tanh,
    "ln": sympy.log,
    "log": sympy.log,
    "exp": sympy.exp,
}
_PLAIN_WORDS = sorted([*_FUNCTIONS, "sqrt", "pi"], key=len, reverse=True)
_IGNORED_COMMANDS = {"left", "right", "displaystyle", "quad", "qquad", "big", "Big", "bigl", "bigr", "mathrm"}
_SPACING = ("\\,", "\\;", "\\:", "\\!", "\\ ", "~")
_UNICODE = {
    "×": "*",
    "·": "*",
    "⋅": "*",
    "∙": "*",
    "÷": "/",
    "−": "-",
    "–": "-",
    "√": "\\sqrt",
    "π": "\\pi",
    "²": "^2",
    "³": "^3",
}
_MATH_TOKEN_RE = re.compile(
    r"(?P<num>\d+(?:\.\d+)?|\.\d+)"
    r"|(?P<cmd>\\[A-Za-z]+)"
    r"|(?P<word>[A-Za-z]+)"
    r"|(?P<op>\*\*|[-+*/^(){}\[\]])"
    r"|(?P<ws>\s+)"
)


def math_tokens(text: str) -> list[tuple[str, str]]:
    """(kind, text) tokens; words are split into known function names and single-letter symbols.

    Strict where model text could otherwise turn into an accidental value: a run of two or more
    letters must be function names with at most single letters between them (``sinx``, ``xsinx``),
    never a product of letters (``fc``, ``da`` in ``e98b80fc5da0`` are not ``f*c``, ``d*a``).
    Longer text than :data:`MAX_EXPR_CHARS` is refused before it is scanned.
    """
    if len(text) > MAX_EXPR_CHARS:
        raise MathParseError("expression too long")
    for old, new in _UNICODE.items():
        text = text.replace(old, new)
    for spacing in _SPACING:
        text = text.replace(spacing, " ")
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        match = _MATH_TOKEN_RE.match(text, pos)
        if match is None:
            raise MathParseError(f"unexpected character {text[pos]!r}")
        pos = match.end()
        kind = match.lastgroup or ""
        value = match.group()
        if kind == "ws":
            continue
        if kind == "num" and len(value) > MAX_INT_DIGITS:
            raise MathParseError("number literal too long")
        if kind == "cmd":
            name = value[1:]
            if name in _IGNORED_COMMANDS:
                continue
            if name in ("cdot", "times", "ast"):
                tokens.append(("op", "*"))
            elif name == "div":
                tokens.append(("op", "/"))
            else:
                tokens.append(("cmd", name))
        elif kind == "word":
            tokens.extend(_split_word(value))
        elif kind == "op":
            tokens.append(("op", "^" if value == "**" else value))
        else:
            tokens.append((kind, value))
    return tokens


def _split_word(word: str) -> list[tuple[str, str]]:
    """``sinx`` → ``sin``, ``x``; ``xsinx`` → ``x``, ``sin``, ``x``.

    Two single letters next to each other (``xy``, ``fc``) are refused: reading them as a product
    is what let random letters equal a number (``a0`` as ``a*0``), and no gold answer writes one.
    """
    out: list[tuple[str, str]] = []
    pos = 0
    while pos < len(word):
        for name in _PLAIN_WORDS:
            if word.startswith(name, pos):
                out.append(("cmd", name))
                pos += len(name)
                break
        else:
            if out and out[-1][0] == "sym":
                raise MathParseError(f"letters {word!r} are not a function name or one symbol")
            out.append(("sym", word[pos]))
            pos += 1
    return out


CONSTANT_NAMES = frozenset({"e", "i", "pi"})


def math_names(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """``(symbols, functions)`` written in ``text``: single-letter symbols with the constants
    ``e``, ``i``, ``pi`` among them, and function names (``sin``, ``sqrt``, ``ln``...).

    Read from the tokens, before SymPy simplifies anything away (``e - e`` names ``e`` although it
    is 0): the robust scorer accepts an equivalent expression only when its names are the gold's.
    :class:`MathParseError` where :func:`math_tokens` refuses the text.
    """
    symbols: set[str] = set()
    functions: set[str] = set()
    for kind, value in math_tokens(text):
        if kind == "sym":
            symbols.add(value)
        elif kind == "cmd" and value in CONSTANT_NAMES:
            symbols.add(value)
        elif kind == "cmd" and value not in ("frac", "dfrac", "tfrac"):
            functions.add(value)
    return frozenset(symbols), frozenset(functions)


def _checked(value: sympy.Expr) -> sympy.Expr:
    """Reject exact numbers beyond :data:`MAX_RESULT_BITS` (SymPy would happily keep growing them)."""
    if value.is_Rational:
        if max(abs(value.p).bit_length(), abs(value.q).bit_length()) > MAX_RESULT_BITS:
            raise MathParseError("number too large")
    return value


def _checked_pow(base: sympy.Expr, exponent: sympy.Expr) -> sympy.Expr:
    """``base ** exponent`` when its evaluation is bounded.

    SymPy evaluates a power of exact numbers eagerly (``10**(10**10)`` would allocate gigabytes) and
    takes roots of integers by factoring, so numeric exponents and the sizes of roots' bases are
    bounded before the power is built.  A symbolic exponent stays unevaluated and is safe.
    """
    if exponent.is_Number:
        if not exponent.is_Rational:
            raise MathParseError("non-rational exponent")
        if abs(exponent.p) > MAX_EXPONENT or exponent.q > 64:
            if not (base.is_Number and base in (0, 1, -1)):
                raise MathParseError("exponent too large")
        if base.is_Rational:
            bits = max(abs(base.p).bit_length(), abs(base.q).bit_length())
            if bits * abs(exponent.p) > MAX_RESULT_BITS:
                if base not in (0, 1, -1):
                    raise MathParseError("power too large")
            if exponent.q != 1 and bits > MAX_ROOT_BASE_BITS:
                raise MathParseError("root of a too large number")
            if base == 0 and exponent.is_negative:
                raise MathParseError("division by zero")
    return _checked(Pow(base, exponent))


def _product(left: sympy.Expr, right: sympy.Expr) -> sympy.Expr:
    """``left * right``, refusing a zero factor: ``0x``, ``0 \\cdot e`` or ``\\frac{0}{y}`` equal
    0 whatever the letters are, so no answer that means something is written that way."""
    if left == 0 or right == 0:
        raise MathParseError("a product with a zero factor")
    return _checked(Mul(left, right))


class _MathParser:
    """Recursive descent over LaTeX and plain math.

    Grammar (implicit multiplication binds like ``*``; ``^`` is right-associative; a unary minus
    binds looser than ``^`` so ``-x^2`` is ``-(x^2)``)::

        expr   := term (('+'|'-') term)*
        term   := unary (('*'|'/') unary | <implicit> power)*
        unary  := ('+'|'-') unary | power
        power  := atom ('^' exponent)?
        atom   := number | symbol | '(' expr ')' | '{' expr '}' | '[' expr ']'
                | \\frac{..}{..} | \\sqrt[n]{..} | \\pi | function ('^' exponent)? argument
    """

    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expect(self, value: str) -> None:
        token = self.peek()
        if token is None or token[1] != value or token[0] != "op":
            raise MathParseError(f"expected {value!r}")
        self.pos += 1

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise MathParseError("nesting too deep")

    def leave(self) -> None:
        self.depth -= 1

    def parse(self) -> sympy.Expr:
        if not self.tokens:
            raise MathParseError("empty expression")
        value = self.expr()
        if self.pos != len(self.tokens):
            raise MathParseError(f"unexpected {self.peek()!r}")
        return value

    def expr(self) -> sympy.Expr:
        self.enter()
        value = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            right = self.term()
            value = _checked(Add(value, right if op == "+" else -right))
        self.leave()
        return value

    def _starts_atom(self, token: tuple[str, str] | None) -> bool:
        if token is None:
            return False
        kind, value = token
        if kind in ("num", "sym", "cmd"):
            return True
        return kind == "op" and value in ("(", "{", "[")

    def term(self) -> sympy.Expr:
        value = self.unary()
        while True:
            token = self.peek()
            if token in (("op", "*"), ("op", "/")):
                op = self.take()[1]
                right = self.unary()
                if op == "/":
                    if right == 0:
                        raise MathParseError("division by zero")
                    right = _checked_pow(right, Integer(-1))
                value = _product(value, right)
            elif self._starts_atom(token):
                if token is not None and token[0] == "num":
                    # ``x2``, ``e98``, ``(x+1)2``: a number after a factor is not a product anyone
                    # writes, but it is how random letters and digits would multiply out.
                    raise MathParseError("a number right after a factor needs an operator")
                value = _product(value, self.power())
            else:
                return value

    def unary(self) -> sympy.Expr:
        """Signs, then a power: also the exponent's grammar (``2^-3``, ``-2^2`` = -(2^2))."""
        token = self.peek()
        if token in (("op", "+"), ("op", "-")):
            self.take()
            self.enter()
            value = self.unary()
            self.leave()
            return -value if token[1] == "-" else value
        return self.power()

    def power(self) -> sympy.Expr:
        base = self.atom()
        if self.peek() == ("op", "^"):
            self.take()
            self.enter()
            exponent = self.unary()
            self.leave()
            return _checked_pow(base, exponent)
        return base

    def group(self, close: str) -> sympy.Expr:
        value = self.expr()
        self.expect(close)
        return value

    def argument(self) -> sympy.Expr:
        """A LaTeX argument: ``{...}``, or a single token (``\\frac12`` is 1/2)."""
        token = self.peek()
        if token == ("op", "{"):
            self.take()
            return self.group("}")
        if token is None:
            raise MathParseError("missing argument")
        kind, value = token
        if kind == "num" and len(value) > 1 and "." not in value:
            self.tokens[self.pos] = ("num", value[1:])
            return Integer(int(value[0]))
        return self.atom()

    def atom(self) -> sympy.Expr:
        token = self.peek()
        if token is None:
            raise MathParseError("unexpected end")
        kind, value = token
        self.enter()
        try:
            if kind == "num":
                self.take()
                number = Fraction(value)
                return _checked(Rational(number.numerator, number.denominator))
            if kind == "sym":
                self.take()
                if value == "i":
                    return I
                if value == "e":
                    return E
                return Symbol(value)
            if kind == "op" and value in ("(", "{", "["):
                self.take()
                return self.group({"(": ")", "{": "}", "[": "]"}[value])
            if kind == "cmd":
                self.take()
                return self.command(value)
            raise MathParseError(f"unexpected {value!r}")
        finally:
            self.leave()

    def command(self, name: str) -> sympy.Expr:
        if name in ("frac", "dfrac", "tfrac"):
            numerator = self.argument()
            denominator = self.argument()
            if denominator == 0:
                raise MathParseError("division by zero")
            return _product(numerator, _checked_pow(denominator, Integer(-1)))
        if name == "sqrt":
            index = Integer(2)
            if self.peek() == ("op", "["):
                self.take()
                index = self.group("]")
                if not (index.is_Integer and 2 <= int(index) <= 64):
                    raise MathParseError("unsupported root index")
            return _checked_pow(self.argument(), Rational(1, int(index)))
        if name == "pi":
            return pi
        if name == "e":
            return E
        if name in _FUNCTIONS:
            power = None
            if self.peek() == ("op", "^"):
                self.take()
                power = self.unary()
            token = self.peek()
            if token in (("op", "("), ("op", "{"), ("op", "[")):
                argument = self.atom()
            else:
                argument = self.power()
            value = _FUNCTIONS[name](argument)
            return _checked_pow(value, power) if power is not None else value
        raise MathParseError(f"unsupported command \\{name}")


def parse_math(text: str) -> sympy.Expr:
    """A SymPy expression for LaTeX or plain math text; :class:`MathParseError` if not accepted.

    Accepts numbers, single-letter symbols (``i`` is the imaginary unit and ``e`` Euler's number,
    as in KOR-Bench's gold answers ``5+5i`` and ``2e-2``), ``+ - * / ^ **``, ``\\cdot``,
    ``\\times``, implicit multiplication, ``\\frac``, ``\\sqrt[n]{}``, ``\\pi`` and the usual
    functions with or without a backslash.  Bounded by :data:`MAX_EXPR_CHARS` and :data:`MAX_DEPTH`.
    """
    if not isinstance(text, str):
        raise MathParseError("not text")
    if len(text) > MAX_EXPR_CHARS:
        raise MathParseError("expression too long")
    if "\x00" in text:
        raise MathParseError("NUL byte")
    tokens = math_tokens(text)
    try:
        return _MathParser(tokens).parse()
    except RecursionError:
        raise MathParseError("nesting too deep") from None
    except (ArithmeticError, TypeError, ValueError, AttributeError) as exc:
        if isinstance(exc, MathParseError):
            raise
        raise MathParseError(f"cannot build expression ({type(exc).__name__})") from None


# --------------------------------------------------------------------------- equivalence


class _Unsupported(Exception):
    """A node the float evaluator does not know."""


_CMATH = {
    sympy.sin: cmath.sin,
    sympy.cos: cmath.cos,
    sympy.tan: cmath.tan,
    sympy.exp: cmath.exp,
    sympy.log: cmath.log,
    sympy.asin: cmath.asin,
    sympy.acos: cmath.acos,
    sympy.atan: cmath.atan,
    sympy.sinh: cmath.sinh,
    sympy.cosh: cmath.cosh,
    sympy.tanh: cmath.tanh,
}


def _numeval(expr: sympy.Basic, env: dict[Symbol, complex], budget: list[int]) -> complex:
    """``expr`` at the point ``env`` with complex floats; work bounded by ``budget`` nodes."""
    budget[0] -= 1
    if budget[0] < 0:
        raise _Unsupported("too many nodes")
    if expr.is_Integer or expr.is_Rational:
        return complex(float(Fraction(int(expr.p), int(expr.q))))
    if isinstance(expr, Float):
        return complex(float(expr))
    if expr is I:
        return 1j
    if expr is pi:
        return complex(math.pi)
    if expr is E:
        return complex(math.e)
    if isinstance(expr, Symbol):
        if expr not in env:
            raise _Unsupported(str(expr))
        return env[expr]
    if isinstance(expr, Add):
        return sum((_numeval(arg, env, budget) for arg in expr.args), 0j)
    if isinstance(expr, Mul):
        value = 1 + 0j
        for arg in expr.args:
            value *= _numeval(arg, env, budget)
        return value
    if isinstance(expr, Pow):
        base = _numeval(expr.args[0], env, budget)
        exponent = _numeval(expr.args[1], env, budget)
        if exponent.imag == 0 and float(exponent.real).is_integer() and abs(exponent.real) <= 64:
            return base ** int(exponent.real)
        return base**exponent
    for function, implementation in _CMATH.items():
        if isinstance(expr, function):
            return implementation(*(_numeval(arg, env, budget) for arg in expr.args))
    for reciprocal, inverse in ((sympy.cot, cmath.tan), (sympy.sec, cmath.cos), (sympy.csc, cmath.sin)):
        if isinstance(expr, reciprocal):
            return 1 / inverse(_numeval(expr.args[0], env, budget))
    raise _Unsupported(type(expr).__name__)


def _expansion_bound(expr: sympy.Basic, cap: int = MAX_EXPAND_TERMS) -> int:
    """An upper bound on the work of ``expand(expr)`` in terms, saturating at ``cap + 1``.

    A power above :data:`MAX_EXPAND_EXPONENT` saturates it whatever its base: ``(x+1)^{999}`` has
    only 1000 terms, but their thousand-bit coefficients make ``expand`` take seconds.  A function's
    arguments count too, since ``expand`` also expands inside ``\\sin(...)``.
    """
    if isinstance(expr, Add):
        return min(cap + 1, sum(_expansion_bound(arg, cap) for arg in expr.args))
    if isinstance(expr, Mul):
        total = 1
        for arg in expr.args:
            total = min(cap + 1, total * _expansion_bound(arg, cap))
        return total
    if isinstance(expr, Pow):
        base, exponent = expr.args
        if exponent.is_Integer and abs(int(exponent)) > MAX_EXPAND_EXPONENT:
            return cap + 1
        if exponent.is_Integer and int(exponent) > 1:
            terms = _expansion_bound(base, cap)
            if terms > cap:
                return cap + 1
            return min(cap + 1, math.comb(int(exponent) + terms - 1, terms - 1))
        if exponent.is_Integer and int(exponent) < -1:
            return min(cap + 1, _expansion_bound(Pow(base, -exponent, evaluate=False), cap))
        return min(cap + 1, _expansion_bound(base, cap) + _expansion_bound(exponent, cap))
    if expr.args:
        return min(cap + 1, max(1, sum(_expansion_bound(arg, cap) for arg in expr.args)))
    return 1


def _evaluate_pair(
    left: sympy.Expr, right: sympy.Expr, env: dict[Symbol, complex], work: WorkBudget
) -> tuple[complex, complex]:
    """Both sides at ``env``, the nodes visited charged to ``work`` (at most
    :data:`MAX_EVAL_NODES` per side); :class:`_Unsupported` when the budget is spent."""
    values = []
    for side in (left, right):
        allowance = min(MAX_EVAL_NODES, work.eval_nodes)
        budget = [allowance]
        try:
            values.append(_numeval(side, env, budget))
        finally:
            work.eval_nodes -= allowance - max(0, budget[0])
    return values[0], values[1]


def equivalent(left: sympy.Expr, right: sympy.Expr, work: WorkBudget | None = None) -> str | None:
    """How ``left`` and ``right`` are equal, or None if they are not (or it could not be shown).

    ``"equal"``: the same expression after SymPy's automatic canonicalisation (``2+x`` vs
    ``x + 2``); ``"symbolic"``: the difference expands to 0 (only tried when the expansion is
    provably small); ``"numeric"``: the difference vanishes (relative 1e-9) at 5 random points —
    real points in [0.3, 2.7] keep ``sqrt``/``log`` on their principal branch on both sides;
    ``"approximate"``: a rational constant within 1e-6 of an irrational one (never equal: a
    decimal approximation, which the caller rejects).
    Its work is drawn from ``work`` (a fresh :class:`WorkBudget` if None) and bounded by the
    parser's size limits; the same inputs and budget always give the same answer.
    """
    work = WorkBudget() if work is None else work
    try:
        if left == right:
            return "equal"
        difference = _checked(Add(left, -right))
        if difference == 0:
            return "equal"
        terms = _expansion_bound(difference)
        if terms <= min(MAX_EXPAND_TERMS, work.expand_terms):
            work.expand_terms -= terms
            if sympy.expand(difference) == 0:
                return "symbolic"
        symbols = sorted(difference.free_symbols, key=str)
        if not symbols and bool(left.is_Rational) != bool(right.is_Rational):
            # A rational and an irrational constant are never equal; close ones are approximations.
            try:
                a, b = _evaluate_pair(left, right, {}, work)
            except (ArithmeticError, ValueError, _Unsupported):
                return None
            return "approximate" if abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b)) else None
        rng = random.Random(20240917)
        agreed = 0
        for _ in range(8):
            if agreed >= 5 or work.eval_nodes <= 0:
                break
            env = {symbol: complex(rng.uniform(0.3, 2.7)) for symbol in symbols}
            try:
                a, b = _evaluate_pair(left, right, env, work)
            except (ArithmeticError, ValueError, _Unsupported):
                continue
            if not all(math.isfinite(part) for part in (a.real, a.imag, b.real, b.imag)):
                continue
            if abs(a - b) > 1e-9 * max(1.0, abs(a), abs(b)):
                return None
            agreed += 1
            if not symbols:
                break
        if agreed >= (1 if not symbols else 3):
            return "numeric"
        return None
    except (RecursionError, MathParseError, ArithmeticError, TypeError, ValueError, AttributeError):
        return None
