"""SymPy's LaTeX parser (its ANTLR grammar) on the antlr4 runtime this environment has: step 6 working.

Why not ``sympy.parsing.latex.parse_latex``: its ANTLR backend refuses to run unless the installed
``antlr4-python3-runtime`` is version 4.11 (the version SymPy generated its grammar with), and Dagster
requires 4.13 in the same environment, so there it always raises, and the official scorer's step 6
silently falls back to string equality.  The check is a version gate only: the 4.11-generated lexer
and parser load and run on the 4.13 runtime (the serialized grammar format did not change between
them).  :func:`parse_latex` therefore runs SymPy's own lexer, parser, error listener and tree-to-SymPy
conversion (``sympy.parsing.latex._parse_latex_antlr``) exactly as SymPy's ``parse_latex`` does,
minus the gate and the generated code's version warning on stdout.

That this gives identical results was measured, not assumed: every string step 6 sees in the
reference files (response and gold sides of the 45 symbolic Operation items of every model) was
parsed by SymPy's own ``parse_latex`` on a 4.11.1 runtime and by :func:`parse_latex` on 4.13.2, and
the two agree on every ``srepr`` and every error class (``tests/unit/kor/test_kor_paper_scoring.py``,
``test_identical_to_antlr_411``, given a folder holding a 4.11 runtime: see that test).

:func:`require_parser` is the loud part: ``paper`` scoring calls it first, and a parser that cannot
parse a known expression is a one-line :class:`~relreason_dagster.errors.ConfigError` naming the fix,
never a silent fallback.
"""

from __future__ import annotations

import functools
from typing import Any

from relreason_dagster.errors import ConfigError

PARSER_FIX = (
    "reinstall the project (make install, or .venv/bin/pip install -e .) so that sympy>=1.14 and "
    "antlr4-python3-runtime>=4.11,<4.14 are installed"
)
# A probe with a fraction, functions, a root and a power, as step 6 compares them.
_PROBE = r"\frac{1}{x} \cos(\ln(x)) + 2\sqrt{11} + y^{2}"


@functools.cache
def _machinery() -> tuple[Any, Any, Any, Any, Any]:
    """SymPy's generated lexer/parser (version warning silenced), error listener, converter, checks."""
    import antlr4
    from sympy.parsing.latex import _parse_latex_antlr as antlr_latex
    from sympy.parsing.latex import check_matrix_delimiters

    class Lexer(antlr_latex.LaTeXLexer):  # type: ignore[name-defined,misc]
        def checkVersion(self, toolVersion: str) -> None:  # noqa: N802,N803 - antlr4's API
            """The 4.11 grammar on a 4.13 runtime prints a warning on stdout; it runs identically."""

    class Parser(antlr_latex.LaTeXParser):  # type: ignore[name-defined,misc]
        def checkVersion(self, toolVersion: str) -> None:  # noqa: N802,N803 - antlr4's API
            """As :meth:`Lexer.checkVersion`."""

    if antlr_latex.MathErrorListener is None:
        raise ImportError("antlr4's ErrorListener is missing")
    return antlr4, Lexer, Parser, antlr_latex, check_matrix_delimiters


def parse_latex(text: str) -> Any:
    """``sympy.parsing.latex.parse_latex(text)`` (ANTLR backend, not strict) without its version gate.

    Raises what SymPy's raises on bad LaTeX (``LaTeXParsingError`` and others); the caller decides.
    """
    antlr4, lexer_cls, parser_cls, antlr_latex, check_matrix_delimiters = _machinery()
    check_matrix_delimiters(text)
    text = text.strip()
    listener = antlr_latex.MathErrorListener(text)
    lexer = lexer_cls(antlr4.InputStream(text))
    lexer.removeErrorListeners()
    lexer.addErrorListener(listener)
    parser = parser_cls(antlr4.CommonTokenStream(lexer))
    parser.removeErrorListeners()
    parser.addErrorListener(listener)
    return antlr_latex.convert_relation(parser.math().relation())


@functools.cache
def _probe() -> str | None:
    """``None`` if the parser works, else why not (one line)."""
    try:
        import sympy

        x, y = sympy.Symbol("x"), sympy.Symbol("y")
        expected = sympy.cos(sympy.log(x)) / x + 2 * sympy.sqrt(11) + y**2
        got = sympy.simplify(parse_latex(_PROBE))
    except Exception as exc:  # noqa: BLE001 - any failure is the same verdict: the parser is broken
        first = str(exc).splitlines()[0] if str(exc) else ""
        return f"{type(exc).__name__}: {first}".rstrip(": ")
    if sympy.simplify(got - expected) != 0:
        return f"parsed {_PROBE!r} as {got}, expected {expected}"
    return None


def require_parser() -> None:
    """Raise one ConfigError line naming the fix unless SymPy's LaTeX parser works here."""
    problem = _probe()
    if problem is not None:
        raise ConfigError(
            f"the 'paper' KOR scoring needs SymPy's LaTeX parser, which does not work here ({problem}); "
            f"{PARSER_FIX}"
        )
