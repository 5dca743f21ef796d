"""Generated KOR-Bench Logic items: rules with redefined symbols whose answers are computed.

Most official Logic rules (``logic/rule.jsonl``) ask for free-form symbolisations or explanations
that only a person can mark.  The ones that measure *rule following* with a single checkable answer
share one shape: a rule gives familiar-looking symbols a stated meaning (``=::>`` for "if ... then",
``=`` for "if and only if"), and the question asks for a value that follows mechanically.  This module
draws fresh, seeded items of that shape, so a model that read the rule can answer and one that only
remembers the 250 public items cannot.

Unlike the other generated families (:mod:`.operations`, :mod:`.puzzles`, :mod:`.ciphers`), these
rules are *ours*: every item carries its rule text (written here, not copied from the benchmark), so
items work without the reference folder.  Rules (ids are ours, not the official ``idx``):

1. truth value of a formula under an assignment (``[[T]]``/``[[F]]``);
2. classification of a formula as steadfast / hollow / wavering (tautology / contradiction /
   contingent), options ``[[A]]``/``[[B]]``/``[[C]]``;
3. the numbers of the truth-table rows where a formula is true (``[[1,4,6]]``);
4. validity of a categorical argument in arrow notation (``[[Yes]]``/``[[No]]``);
5. whether a catalogue of clause "bundles" can be kept all at once (``[[Coherent]]``/``[[Broken]]``).

Why the answers can be trusted:

* every gold is computed by exhaustive search, never looked up: full truth tables for 1-3 and 5,
  and for 4 every assignment of sets over a universe proven large enough (see
  :func:`_argument_valid`);
* the answer class is drawn first and a question is redrawn until its computed answer matches, so
  golds are balanced (half ``T``, a third each of A/B/C, ...) and "always answer Yes" scores 50%;
* :func:`solve_question` is a second, independent reader used by the tests: it parses the *question
  text* with its own recursive-descent parser (no generator tree), decides arguments over sets of
  occupied Venn regions instead of sets of elements, and decides bundles by resolution instead of
  a truth table.

Golds are wrapped ``[[...]]`` and contain no spaces, ``;`` or ``.``, so the official logic branch
(which strips spaces and periods) and the robust scorer both accept a gold against itself.
"""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from relreason_dagster.benchmarks.kor.data import RuleItem
from relreason_dagster.benchmarks.kor.generate import check_level, check_rule

# --------------------------------------------------------------------------- items and registry


GeneratedLogicItem = RuleItem
"""The generated logic item type (:class:`~.data.RuleItem`, category ``logic``)."""


@dataclass(frozen=True)
class _Draft:
    question: str
    answer: str
    params: dict


@dataclass(frozen=True)
class LogicRule:
    """One of our logic rules: its title, the text a model is shown, and its generator."""

    rule_id: str
    title: str
    text: str
    generate: Callable[[random.Random, int], _Draft]


# --------------------------------------------------------------------------- formulas

# A formula is a tuple tree: ("var", i) | ("not", f) | (op, f, g) with op in _SYMBOL.
Formula = tuple
_SYMBOL = {"and": "&", "or": "||", "imp": "=::>", "iff": "=", "xor": "<+>"}
_LEVEL_SHAPE = {
    1: (2, 2, ("and", "or")),
    2: (3, 3, ("and", "or", "imp", "iff")),
    3: (4, 3, ("and", "or", "imp", "iff", "xor")),
}
"""Per level: (number of variables, maximum nesting depth, binary connectives used)."""
_MIN_SIZE = {1: (2, 2), 2: (3, 3), 3: (4, 3)}
"""Per level: (fewest binary connectives, fewest distinct variables) of a formula, so that a higher
level is really harder and not a lucky ``p4=~p4``."""


def _random_formula(rng: random.Random, n_vars: int, depth: int, ops: tuple[str, ...]) -> Formula:
    """A random formula whose top is a binary connective and whose nesting is at most ``depth``."""

    def grow(d: int, top: bool) -> Formula:
        if not top and (d == 0 or rng.random() < 0.3):
            node: Formula = ("var", rng.randint(1, n_vars))
            return ("not", node) if rng.random() < 0.3 else node
        node = (rng.choice(ops), grow(d - 1, False), grow(d - 1, False))
        return ("not", node) if not top and rng.random() < 0.2 else node

    return grow(depth, True)


def render(formula: Formula, top: bool = True) -> str:
    """The formula in rule notation, no spaces: every compound part but the whole in parentheses."""
    kind = formula[0]
    if kind == "var":
        return f"p{formula[1]}"
    if kind == "not":
        return "~" + render(formula[1], top=False)
    text = render(formula[1], False) + _SYMBOL[kind] + render(formula[2], False)
    return text if top else f"({text})"


def evaluate(formula: Formula, values: tuple[bool, ...]) -> bool:
    """The truth value of ``formula`` with ``values[i-1]`` the value of ``pi``."""
    kind = formula[0]
    if kind == "var":
        return values[formula[1] - 1]
    if kind == "not":
        return not evaluate(formula[1], values)
    left, right = evaluate(formula[1], values), evaluate(formula[2], values)
    if kind == "and":
        return left and right
    if kind == "or":
        return left or right
    if kind == "imp":
        return (not left) or right
    if kind == "iff":
        return left == right
    return left != right  # xor


def row_values(row: int, n_vars: int) -> tuple[bool, ...]:
    """The assignment of truth-table row ``row``: binary digits, p1 the most significant."""
    return tuple(bool(row >> (n_vars - 1 - position) & 1) for position in range(n_vars))


def _size(formula: Formula) -> tuple[int, set[int]]:
    """(number of binary connectives, set of variable numbers) of ``formula``."""
    if formula[0] == "var":
        return 0, {formula[1]}
    if formula[0] == "not":
        return _size(formula[1])
    left, right = _size(formula[1]), _size(formula[2])
    return left[0] + right[0] + 1, left[1] | right[1]


def true_rows(formula: Formula, n_vars: int) -> list[int]:
    """The numbers of the rows (0 .. 2**n_vars - 1) in which ``formula`` is true."""
    return [row for row in range(2**n_vars) if evaluate(formula, row_values(row, n_vars))]


def _formula_with(rng: random.Random, level: int, accept: Callable[[list[int], int], bool]) -> Formula:
    """A random formula of the level's shape whose true rows satisfy ``accept``.

    Formulas of the level's shape are redrawn until one fits.  The rarest target is a hollow formula
    at level 3, about 1.7% of draws (measured over 20,000), so 5000 draws all fail with probability
    below 1e-30; a failure is an error rather than a silent fallback.
    """
    n_vars, depth, ops = _LEVEL_SHAPE[level]
    min_ops, min_vars = _MIN_SIZE[level]
    for _ in range(5000):
        formula = _random_formula(rng, n_vars, depth, ops)
        n_ops, used = _size(formula)
        if n_ops >= min_ops and len(used) >= min_vars and accept(true_rows(formula, n_vars), n_vars):
            return formula
    raise RuntimeError("no formula with the requested truth table found")  # pragma: no cover


def _contingent(rows: list[int], n_vars: int) -> bool:
    return 0 < len(rows) < 2**n_vars


def _variables(n_vars: int) -> str:
    return ", ".join(f"p{i}" for i in range(1, n_vars + 1))


_CONNECTIVES = (
    "Formulas are built from the propositional variables p1, p2, p3, p4 with the symbols below. The "
    "symbols mean exactly what is written here, whatever they may mean elsewhere (X and Y stand for "
    "any formulas):\n"
    "- ~X is true exactly when X is false.\n"
    "- X&Y is true exactly when X and Y are both true.\n"
    "- X||Y is true exactly when at least one of X and Y is true.\n"
    "- X=::>Y is false exactly when X is true and Y is false, and true in every other case.\n"
    "- X=Y is true exactly when X and Y have the same truth value.\n"
    "- X<+>Y is true exactly when exactly one of X and Y is true.\n"
    "Every compound part of a formula is enclosed in parentheses, except the formula as a whole, so "
    "no precedence rules are needed; ~ applies to the variable or the parenthesised part right after "
    "it (~~p1 is the negation of ~p1).\n"
    "An assignment gives each variable one of two truth values: T (true) or F (false). A formula's "
    "value under an assignment is found by replacing each variable by its value and applying the "
    "definitions from the innermost parentheses outwards.\n"
)

_TRUTH_RULE = _CONNECTIVES + (
    "Answer format: the truth value of the formula, T or F, in double square brackets, for example [[T]]."
)

_CLASS_RULE = _CONNECTIVES + (
    "Every formula belongs to exactly one of three classes, judged over all assignments of the "
    "variables listed in the question:\n"
    "- steadfast: the formula is true under every assignment;\n"
    "- hollow: the formula is false under every assignment;\n"
    "- wavering: the formula is true under at least one assignment and false under at least one.\n"
    "To classify a formula, compute its value under every assignment (its truth table).\n"
    "Answer format: the letter of the option naming the class, in double square brackets, for "
    "example [[A]]."
)

_ROWS_RULE = _CONNECTIVES + (
    "Row numbers: the truth table over the variables p1, ..., pn has 2^n rows, numbered 0 to 2^n-1. "
    "The number of a row is read off its assignment: write 1 for T and 0 for F for p1, p2, ..., pn in "
    "this order and read the digits as a binary number, p1 being the most significant digit. For "
    "example, over p1, p2, p3 the row with p1 F, p2 T, p3 T has number 3 (binary 011), and the row "
    "with p1 T, p2 F, p3 F has number 4 (binary 100).\n"
    "The true rows of a formula are the rows in which its value is T.\n"
    "Answer format: the numbers of the true rows in ascending order, separated by commas without "
    "spaces, in double square brackets, for example [[1,4,6]]."
)

_INSTRUCTION_TRUTH = (
    "What is the value of the formula under this assignment? Answer T or F and wrap it in double "
    "square brackets, like this: [[T]]."
)


def _truth(rng: random.Random, level: int) -> _Draft:
    """Rule 1: a contingent formula and an assignment; the wanted value is drawn first (50/50)."""
    n_vars = _LEVEL_SHAPE[level][0]
    formula = _formula_with(rng, level, _contingent)
    want = rng.random() < 0.5
    rows = [row for row in range(2**n_vars) if evaluate(formula, row_values(row, n_vars)) == want]
    values = row_values(rng.choice(rows), n_vars)
    assignment = ", ".join(f"p{i} is {'T' if v else 'F'}" for i, v in enumerate(values, start=1))
    text = render(formula)
    question = f"Formula: {text}\nAssignment: {assignment}\n{_INSTRUCTION_TRUTH}"
    answer = "T" if evaluate(formula, values) else "F"
    return _Draft(question, answer, {"formula": text, "values": values, "n_vars": n_vars})


_CLASSES = ("steadfast", "hollow", "wavering")
_CLASS_LETTER = dict(zip(_CLASSES, "ABC", strict=True))


def _classify(rows: list[int], n_vars: int) -> str:
    if len(rows) == 2**n_vars:
        return "steadfast"
    return "hollow" if not rows else "wavering"


def _classification(rng: random.Random, level: int) -> _Draft:
    """Rule 2: the class is drawn first (a third each), then formulas are redrawn until one has it."""
    n_vars = _LEVEL_SHAPE[level][0]
    want = rng.choice(_CLASSES)
    formula = _formula_with(rng, level, lambda rows, n: _classify(rows, n) == want)
    text = render(formula)
    options = "##".join(f"{letter}. {name}" for name, letter in _CLASS_LETTER.items())
    question = (
        f"Formula: {text}\nVariables: {_variables(n_vars)}\n"
        "Which class does the formula belong to?\n"
        f"Options: {options}\n"
        "Provide your final answer as a single uppercase letter representing the option (A, B, or C) "
        "and wrap it in double square brackets, like this: [[A]]."
    )
    return _Draft(question, _CLASS_LETTER[want], {"formula": text, "n_vars": n_vars, "class": want})


def _rows(rng: random.Random, level: int) -> _Draft:
    """Rule 3: a contingent formula (so the list is never empty or the whole table)."""
    n_vars = _LEVEL_SHAPE[level][0]
    formula = _formula_with(rng, level, _contingent)
    text = render(formula)
    rows = true_rows(formula, n_vars)
    question = (
        f"Formula: {text}\nVariables: {_variables(n_vars)}\n"
        "List the numbers of the true rows of the formula in its truth table over these variables, in "
        "ascending order, separated by commas, and wrap them in double square brackets, like this: "
        "[[1,4,6]]."
    )
    return _Draft(question, ",".join(map(str, rows)), {"formula": text, "n_vars": n_vars, "rows": rows})


# --------------------------------------------------------------------------- arrow syllogisms

_ARROW = {"A": ">>", "E": ">/", "I": "<>", "O": "</"}
"""Statement forms: A every X is a Y, E no X is a Y, I some X is a Y, O some X is not a Y."""
_TERMS = (
    "glims",
    "vorks",
    "tazzes",
    "plomes",
    "drints",
    "kesters",
    "quobs",
    "snarps",
    "wemlets",
    "fribbles",
    "yorns",
    "brungs",
)

_ARGUMENT_RULE = (
    "Terms are names of kinds of things. They are made-up words: nothing is known about them except "
    "what the statements say. Four statement forms relate two terms X and Y:\n"
    "- X >> Y means: every X is a Y.\n"
    "- X >/ Y means: no X is a Y.\n"
    "- X <> Y means: at least one X is a Y.\n"
    "- X </ Y means: at least one X is not a Y.\n"
    "A kind may have no members at all. A statement about every X (>> or >/) is true when there are no "
    "Xs, and a statement about at least one X (<> or </) is false when there are no Xs.\n"
    "An argument consists of premises and a conclusion. It is valid when the conclusion is true in "
    "every situation (every way of deciding which things belong to which kinds) in which all the "
    "premises are true; otherwise it is invalid.\n"
    "Answer format: [[Yes]] if the argument is valid, [[No]] if it is not."
)

Statement = tuple[str, int, int]
"""(form, subject term, predicate term), terms as indices into the argument's term list."""


def _holds(form: str, subject: int, predicate: int) -> bool:
    """A statement over sets given as bitmasks (``subject``/``predicate`` members)."""
    if form == "A":
        return subject & ~predicate == 0
    if form == "E":
        return subject & predicate == 0
    if form == "I":
        return subject & predicate != 0
    return subject & ~predicate != 0  # O


def _argument_valid(premises: list[Statement], conclusion: Statement, n_terms: int) -> bool:
    """Validity by brute force over every assignment of sets to the terms in a small universe.

    Universe size: a counter-model needs one witness per particular premise (``<>``/``</``) and, when
    the conclusion is universal, one witness that falsifies it.  Restricting any counter-model to
    those witnesses keeps it a counter-model (universal statements stay true on a subset, and every
    particular one keeps its witness), so a universe of that many elements (at least 1) contains a
    counter-model whenever one exists: the search is complete, not a sample.
    """
    size = sum(form in "IO" for form, _, _ in premises) + (conclusion[0] in "AE")
    size = max(size, 1)
    for sets in itertools.product(range(2**size), repeat=n_terms):
        if all(_holds(f, sets[s], sets[p]) for f, s, p in premises) and not _holds(
            conclusion[0], sets[conclusion[1]], sets[conclusion[2]]
        ):
            return False
    return True


_FIGURES = {1: ((2, 1), (0, 2)), 2: ((1, 2), (0, 2)), 3: ((2, 1), (2, 0)), 4: ((1, 2), (2, 0))}
"""Classical figures with S=0, P=1, M=2: (major premise terms, minor premise terms)."""


def _propose_syllogism(rng: random.Random) -> tuple[list[Statement], Statement, int]:
    figure = rng.choice(sorted(_FIGURES))
    (a, b), (c, d) = _FIGURES[figure]
    f1, f2, f3 = (rng.choice("AEIO") for _ in range(3))
    return [(f1, a, b), (f2, c, d)], (f3, 0, 1), 3


def _propose_chain(rng: random.Random, n_terms: int) -> tuple[list[Statement], Statement, int]:
    """A chain t0 - t1 - ... - tk, mostly "every t_i is a t_(i+1)", with one negative or particular
    end and then, half the time, one random change: a cheap proposal that is valid often enough for
    rejection sampling, whose validity is then *computed*, never assumed."""
    last = n_terms - 1
    premises: list[Statement] = [("A", i, i + 1) for i in range(last)]
    variant = rng.randrange(3)
    if variant == 0:
        conclusion: Statement = ("A", 0, last)
    elif variant == 1:
        premises[-1] = ("E", *rng.choice(((last - 1, last), (last, last - 1))))
        conclusion = rng.choice((("E", 0, last), ("E", last, 0), ("O", 0, last)))
    else:
        premises[0] = ("I", *rng.choice(((0, 1), (1, 0))))
        conclusion = rng.choice((("I", 0, last), ("I", last, 0)))
    if rng.random() < 0.5:
        change = rng.randrange(3)
        position = rng.randrange(len(premises))
        form, s, p = premises[position]
        if change == 0:
            premises[position] = (form, p, s)
        elif change == 1:
            particular = any(f in "IO" for f, _, _ in premises)
            forms = "AE" if particular and form not in "IO" else "AEIO"
            premises[position] = (rng.choice(forms), s, p)
        else:
            conclusion = (rng.choice("AEIO"), conclusion[2], conclusion[1])
    return premises, conclusion, n_terms


def _statement_text(statement: Statement, names: list[str]) -> str:
    form, s, p = statement
    return f"{names[s]} {_ARROW[form]} {names[p]}"


def _argument(rng: random.Random, level: int) -> _Draft:
    """Rule 4: level 1 a classical two-premise syllogism (random figure and mood), levels 2/3 a
    shuffled chain of 3/4 premises over 4/5 terms; valid and invalid drawn 50/50."""
    want = rng.random() < 0.5
    n_terms = level + 2
    names = rng.sample(_TERMS, n_terms)
    for _ in range(2000):
        if level == 1:
            premises, conclusion, n = _propose_syllogism(rng)
        else:
            premises, conclusion, n = _propose_chain(rng, n_terms)
        if _argument_valid(premises, conclusion, n) == want:
            break
    else:  # pragma: no cover - both classes are common among proposals
        raise RuntimeError("no argument with the requested validity found")
    premises = list(premises)
    rng.shuffle(premises)
    lines = "\n".join(
        f"Premise {number}: {_statement_text(s, names)}" for number, s in enumerate(premises, start=1)
    )
    question = (
        f"{lines}\nConclusion: {_statement_text(conclusion, names)}\n"
        "Is this argument valid? Answer Yes or No and wrap it in double square brackets, like this: "
        "[[Yes]]."
    )
    params = {
        "premises": [_statement_text(s, names) for s in premises],
        "conclusion": _statement_text(conclusion, names),
        "valid": want,
    }
    return _Draft(question, "Yes" if want else "No", params)


# --------------------------------------------------------------------------- bundles (clause sets)

_BUNDLE_RULE = (
    "Variables q1, q2, q3, ... are each either on or off. A literal is a variable written plainly "
    "(q3, satisfied when q3 is on) or with a minus sign (-q3, satisfied when q3 is off).\n"
    "A bundle is a set of literals written in braces, for example {q1, -q2, q4}. A setting of all "
    "the variables keeps a bundle when at least one of the bundle's literals is satisfied.\n"
    "A catalogue is a list of bundles. A catalogue is Coherent when some single setting of the "
    "variables keeps every bundle of the catalogue at the same time, and Broken when no setting "
    "does.\n"
    "Answer format: [[Coherent]] or [[Broken]]."
)
_BUNDLE_SHAPE = {1: (3, (5, 7)), 2: (4, (7, 10)), 3: (5, (10, 14))}
"""Per level: (number of variables, range of the number of bundles)."""

Clause = tuple[tuple[int, bool], ...]
"""Literals (variable, positive?) in variable order."""


def _random_clause(rng: random.Random, n_vars: int) -> Clause:
    width = rng.choices((1, 2, 3), weights=(1, 4, 4))[0]
    chosen = sorted(rng.sample(range(1, n_vars + 1), width))
    return tuple((v, rng.random() < 0.5) for v in chosen)


def _satisfiable(clauses: list[Clause], n_vars: int) -> bool:
    """Brute force: some assignment of the 2**n_vars keeps every clause."""
    for row in range(2**n_vars):
        values = row_values(row, n_vars)
        if all(any(values[v - 1] == positive for v, positive in clause) for clause in clauses):
            return True
    return False


def _clause_text(clause: Clause) -> str:
    return "{" + ", ".join(("" if positive else "-") + f"q{v}" for v, positive in clause) + "}"


def _bundles(rng: random.Random, level: int) -> _Draft:
    """Rule 5: Broken and Coherent drawn 50/50; catalogues (distinct bundles) redrawn until the
    brute-force verdict matches."""
    n_vars, (low, high) = _BUNDLE_SHAPE[level]
    want_sat = rng.random() < 0.5
    for _ in range(5000):
        count = rng.randint(low, high)
        clauses: list[Clause] = []
        while len(clauses) < count:
            clause = _random_clause(rng, n_vars)
            if clause not in clauses:
                clauses.append(clause)
        if _satisfiable(clauses, n_vars) == want_sat:
            break
    else:  # pragma: no cover
        raise RuntimeError("no catalogue with the requested verdict found")
    lines = "\n".join(f"B{number} = {_clause_text(c)}" for number, c in enumerate(clauses, start=1))
    question = (
        f"Variables: {', '.join(f'q{i}' for i in range(1, n_vars + 1))}\n"
        f"Catalogue:\n{lines}\n"
        "Is this catalogue Coherent or Broken? Wrap your answer in double square brackets, like this: "
        "[[Coherent]]."
    )
    answer = "Coherent" if want_sat else "Broken"
    return _Draft(question, answer, {"clauses": [_clause_text(c) for c in clauses], "n_vars": n_vars})


# --------------------------------------------------------------------------- registry and generate

RULES: dict[str, LogicRule] = {
    "1": LogicRule("1", "Redefined Connectives: Truth Value", _TRUTH_RULE, _truth),
    "2": LogicRule("2", "Redefined Connectives: Steadfast, Hollow or Wavering", _CLASS_RULE, _classification),
    "3": LogicRule("3", "Redefined Connectives: True Row Numbers", _ROWS_RULE, _rows),
    "4": LogicRule("4", "Arrow Syllogisms", _ARGUMENT_RULE, _argument),
    "5": LogicRule("5", "Bundles and Catalogues", _BUNDLE_RULE, _bundles),
}


def generate(rule_id: str, n: int, seed: int, level: int = 1) -> list[GeneratedLogicItem]:
    """``n`` items of one rule, reproducible: item i draws from its own RNG seeded by
    (rule, seed, i, level), so any prefix regenerates identically and items are independent."""
    check_rule("logic", rule_id, RULES)
    check_level("logic", level)
    rule = RULES[rule_id]
    items: list[GeneratedLogicItem] = []
    for index in range(n):
        rng = random.Random(f"kor-logic:{rule_id}:{seed}:{index}:{level}")
        draft = rule.generate(rng, level)
        items.append(
            GeneratedLogicItem(
                category="logic",
                rule_id=rule_id,
                title=rule.title,
                rule=rule.text,
                question=draft.question,
                gold=f"[[{draft.answer}]]",
                seed=seed,
                index=index,
                level=level,
                params={**draft.params, "level": level},
            )
        )
    return items


# =========================================================================== independent checker
#
# Reads only the question text and shares no code with the generators above: formulas are parsed
# by recursive descent and evaluated on the fly, arguments are decided over sets of occupied Venn
# regions, and catalogues by resolution saturation.

_FORMULA_TOKEN_RE = re.compile(r"=::>|<\+>|\|\||p\d+|[~&=()]")
_BINARY_CHECK: dict[str, Callable[[bool, bool], bool]] = {
    "&": lambda a, b: a and b,
    "||": lambda a, b: a or b,
    "=::>": lambda a, b: b or not a,
    "=": lambda a, b: a is b,
    "<+>": lambda a, b: a ^ b,
}


def _check_value(text: str, env: dict[str, bool]) -> bool:
    """The value of a rule-notation formula, parsed by recursive descent.

    Grammar: formula := unit (binop unit)?; unit := '~' unit | 'pN' | '(' formula ')'.  At most one
    binary connective per parenthesis level, as the rule promises; anything else is an error.
    """
    compact = text.replace(" ", "")
    tokens = _FORMULA_TOKEN_RE.findall(compact)
    if "".join(tokens) != compact:
        raise ValueError(f"unreadable formula {text!r}")
    position = 0

    def unit() -> bool:
        nonlocal position
        token = tokens[position]
        position += 1
        if token == "~":
            return not unit()
        if token == "(":
            value = formula()
            if tokens[position] != ")":
                raise ValueError("unbalanced parentheses")
            position += 1
            return value
        if token.startswith("p"):
            return env[token]
        raise ValueError(f"unexpected {token!r}")

    def formula() -> bool:
        nonlocal position
        left = unit()
        if position < len(tokens) and tokens[position] in _BINARY_CHECK:
            op = tokens[position]
            position += 1
            return _BINARY_CHECK[op](left, unit())
        return left

    value = formula()
    if position != len(tokens):
        raise ValueError("trailing tokens")
    return value


def _line(question: str, label: str) -> str:
    match = re.search(rf"^{label}: (.+)$", question, re.MULTILINE)
    if match is None:
        raise ValueError(f"no {label} line")
    return match.group(1).strip()


def _table(question: str) -> tuple[str, list[str], list[bool]]:
    """Formula text, variable names and the formula's value in each row (itertools order = p1 major)."""
    formula = _line(question, "Formula")
    names = [name.strip() for name in _line(question, "Variables").split(",")]
    values = [
        _check_value(formula, dict(zip(names, combo, strict=True)))
        for combo in itertools.product((False, True), repeat=len(names))
    ]
    return formula, names, values


_STATEMENT_RE = re.compile(r"^(\w+) (>>|>/|<>|</) (\w+)$")


def _check_argument(question: str) -> bool:
    """Validity over sets of occupied Venn regions (membership patterns of one thing).

    With at most 3 terms every set of regions is tried (2**8 models, no bound needed).  With more,
    only sets of at most w regions, w = the number of statements that need a witness (particular
    premises, a universal conclusion); more regions can be dropped from any counter-model.
    """
    texts = re.findall(r"^Premise \d+: (.+)$", question, re.MULTILINE)
    parsed = [_STATEMENT_RE.match(t.strip()) for t in [*texts, _line(question, "Conclusion")]]
    if not all(parsed):
        raise ValueError("unreadable statement")
    triples = [(m.group(2), m.group(1), m.group(3)) for m in parsed if m]
    terms = sorted({t for _, s, p in triples for t in (s, p)})
    regions = list(itertools.product((False, True), repeat=len(terms)))
    index = {term: i for i, term in enumerate(terms)}

    def true_in(world: tuple, arrow: str, s: str, p: str) -> bool:
        pairs = [(r[index[s]], r[index[p]]) for r in world]
        if arrow == ">>":
            return not any(a and not b for a, b in pairs)
        if arrow == ">/":
            return not any(a and b for a, b in pairs)
        if arrow == "<>":
            return any(a and b for a, b in pairs)
        return any(a and not b for a, b in pairs)

    premises, conclusion = triples[:-1], triples[-1]
    if len(terms) <= 3:
        limit = len(regions)
    else:
        limit = sum(a in ("<>", "</") for a, _, _ in premises) + (conclusion[0] in (">>", ">/"))
    for size in range(limit + 1):
        for world in itertools.combinations(regions, size):
            if all(true_in(world, *t) for t in premises) and not true_in(world, *conclusion):
                return False
    return True


_BUNDLE_RE = re.compile(r"\{([^}]*)\}")


def _check_bundles(question: str) -> bool:
    """True (Coherent) unless resolution derives the empty bundle (resolution is refutation
    complete).  Given-clause saturation with subsumption: a resolvent that contains a kept bundle
    adds nothing, so the kept set stays small."""
    pending: list[frozenset[str]] = []
    for body in _BUNDLE_RE.findall(question.split("Catalogue:", 1)[1]):
        pending.append(frozenset(part.strip() for part in body.split(",") if part.strip()))

    def flip(literal: str) -> str:
        return literal[1:] if literal.startswith("-") else "-" + literal

    kept: list[frozenset[str]] = []
    while pending:
        pending.sort(key=len)
        given = pending.pop(0)
        if not given:
            return False
        if any(old <= given for old in kept):
            continue
        kept = [old for old in kept if not given <= old]
        for old in kept:
            for literal in given:
                if flip(literal) in old:
                    resolvent = (given - {literal}) | (old - {flip(literal)})
                    if not any(flip(x) in resolvent for x in resolvent):
                        pending.append(frozenset(resolvent))
        kept.append(given)
    return True


def solve_question(rule_id: str, question: str) -> str:
    """The answer to a generated question, with ``[[...]]``, read from its text alone.

    Used by the tests to check every stored gold a second way; raises ValueError on a question it
    cannot read.
    """
    if rule_id == "1":
        assignment = dict(re.findall(r"(p\d+) is ([TF])", _line(question, "Assignment")))
        env = {name: value == "T" for name, value in assignment.items()}
        return "[[T]]" if _check_value(_line(question, "Formula"), env) else "[[F]]"
    if rule_id == "2":
        _, _, values = _table(question)
        letter = "A" if all(values) else "B" if not any(values) else "C"
        return f"[[{letter}]]"
    if rule_id == "3":
        _, _, values = _table(question)
        return "[[" + ",".join(str(row) for row, value in enumerate(values) if value) + "]]"
    if rule_id == "4":
        return "[[Yes]]" if _check_argument(question) else "[[No]]"
    if rule_id == "5":
        return "[[Coherent]]" if _check_bundles(question) else "[[Broken]]"
    raise ValueError(f"no checker for logic rule {rule_id!r}")
