"""Read the learned program back out of a trained DLM.

At evaluation every selection is an argmax, so each unit is exactly
``op(atom_a, atom_b)`` over named candidates.  Starting from the head and
following only the units it reaches (pruning everything else), each
candidate is unfolded into a formula: ``own`` channels refer to the previous
layer, ``expand`` drops the last variable, ``exists``/``forall`` quantify a
fresh variable, a permutation renames arguments, a negated candidate is ¬.
The formula is simplified bottom-up (True/False absorption, double negation,
idempotence, ``a ∧ ¬a``, vacuous quantifiers, negations pushed to the atoms;
commutative operands sorted),
so copy units (``a ∧ True``) vanish and the program reads like the study's
formulas: a trained HasFather becomes ``HasFather(x) ← ∃y IsFather(x, y)``.

Quantifiers range over objects other than the quantified atom's remaining
arguments, and over nothing when those arguments repeat (the network's
reductions see only cells of pairwise distinct objects); ``evaluate`` applies
the same rule, so a program can be checked against the network's own predictions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from relreason_dagster.benchmarks.relational.dlm.model import DLM, Selector, Source

Expr = tuple[Any, ...]
TRUE: Expr = ("true",)
FALSE: Expr = ("false",)
VARIABLES = ("x", "y", "z", "w", "u", "v", "s", "t")


@dataclass(frozen=True)
class Program:
    """The extracted rule: head arguments, body formula and its text."""

    target: str
    args: tuple[str, ...]
    body: Expr
    units_used: int

    @property
    def text(self) -> str:
        return f"{self.target}({', '.join(self.args)}) ← {render(self.body)}"


# -- simplification --------------------------------------------------------------------------------


def _not(e: Expr) -> Expr:
    """Negation pushed down to the atoms (De Morgan, ¬∀ = ∃¬), which reads far better than ¬(∀z ¬(...))."""
    kind = e[0]
    if e == TRUE:
        return FALSE
    if e == FALSE:
        return TRUE
    if kind == "not":
        return e[1]
    if kind in ("and", "or"):
        dual = "or" if kind == "and" else "and"
        out = _not(e[1])
        for child in e[2:]:
            out = _junction(dual, out, _not(child))
        return out
    if kind in ("exists", "forall"):
        return ("forall" if kind == "exists" else "exists", e[1], e[2], _not(e[3]))
    return ("not", e)


def _junction(op: str, a: Expr, b: Expr) -> Expr:
    unit, zero = (TRUE, FALSE) if op == "and" else (FALSE, TRUE)
    items: list[Expr] = []
    for e in (a, b):
        items.extend(e[1:] if e[0] == op else [e])
    if zero in items:
        return zero
    kept = sorted({e for e in items if e != unit}, key=render)
    if any(_not(e) in kept for e in kept):
        return zero
    if not kept:
        return unit
    if len(kept) == 1:
        return kept[0]
    return (op, *kept)


def _quantify(kind: str, var: str, excluded: tuple[str, ...], body: Expr) -> Expr:
    """``∃var body`` (or ∀); a vacuous one still says that the excluded arguments are distinct."""
    if var not in free_vars(body):
        if len(excluded) < 2:
            return body
        guard: Expr = ("distinct", tuple(sorted(excluded)))
        return _junction("and", body, guard) if kind == "exists" else _junction("or", body, _not(guard))
    return (kind, var, excluded, body)


def free_vars(e: Expr) -> set[str]:
    kind = e[0]
    if kind == "atom":
        return set(e[2])
    if kind in ("true", "false"):
        return set()
    if kind == "distinct":
        return set(e[1])
    if kind == "not":
        return free_vars(e[1])
    if kind in ("and", "or"):
        return set().union(*(free_vars(c) for c in e[1:]))
    return (free_vars(e[3]) | set(e[2])) - {e[1]}


# -- rendering and evaluation ----------------------------------------------------------------------


def render(e: Expr) -> str:
    kind = e[0]
    if kind == "atom":
        return f"{e[1]}({', '.join(e[2])})"
    if kind == "true":
        return "True"
    if kind == "false":
        return "False"
    if kind == "distinct":
        return " ≠ ".join(e[1]) if len(e[1]) == 2 else f"distinct({', '.join(e[1])})"
    if kind == "not":
        if e[1][0] == "distinct" and len(e[1][1]) == 2:
            return " = ".join(e[1][1])
        inner = render(e[1])
        return "¬" + (inner if e[1][0] in ("atom", "not", "true", "false", "distinct") else f"({inner})")
    if kind in ("and", "or"):
        sep = " ∧ " if kind == "and" else " ∨ "
        parts = [render(c) if c[0] not in ("and", "or") else f"({render(c)})" for c in e[1:]]
        return sep.join(parts)
    symbol = "∃" if kind == "exists" else "∀"
    body = render(e[3])
    simple = e[3][0] in ("atom", "not", "exists", "forall")
    return f"{symbol}{e[1]} {body}" if simple else f"{symbol}{e[1]} ({body})"


def evaluate(e: Expr, env: dict[str, int], facts: dict[str, set[tuple[int, ...]]], n: int) -> bool:
    """Truth of ``e`` in a world of ``n`` objects with base ``facts`` under the assignment ``env``."""
    kind = e[0]
    if kind == "atom":
        return tuple(env[v] for v in e[2]) in facts.get(e[1], set())
    if kind == "true":
        return True
    if kind == "false":
        return False
    if kind == "distinct":
        return len({env[v] for v in e[1]}) == len(e[1])
    if kind == "not":
        return not evaluate(e[1], env, facts, n)
    if kind == "and":
        return all(evaluate(c, env, facts, n) for c in e[1:])
    if kind == "or":
        return any(evaluate(c, env, facts, n) for c in e[1:])
    var, excluded, body = e[1], {env[v] for v in e[2]}, e[3]
    if len(excluded) < len(e[2]):  # a repeated argument: the network's reduction ranges over nothing
        return kind == "forall"
    values = (evaluate(body, {**env, var: o}, facts, n) for o in range(n) if o not in excluded)
    return any(values) if kind == "exists" else all(values)


# -- extraction ------------------------------------------------------------------------------------


class _Extractor:
    def __init__(self, model: DLM, base_names: tuple[str, ...]) -> None:
        self.model = model
        self.base_names = base_names
        self.choice = {}
        for layer, selectors in enumerate(model.layers):
            for r, selector in enumerate(selectors):
                self.choice[(layer, r)] = selector.logits.detach().argmax(dim=1).tolist()
        self.head_choice = model.head.logits.detach().argmax(dim=1).tolist()
        self.units: set[tuple[int, int, int]] = set()

    @staticmethod
    def _fresh(scope: frozenset[str]) -> str:
        for name in VARIABLES:
            if name not in scope:
                return name
        i = 1
        while f"v{i}" in scope:
            i += 1
        return f"v{i}"

    def _candidate(
        self,
        selector: Selector,
        sources: list[Source],
        index: int,
        layer: int,
        args: tuple[str, ...],
        scope: frozenset[str],
    ) -> Expr:
        """Candidate ``index`` of ``selector`` at ``args``; ``layer`` is the layer whose input it reads."""
        if selector.with_true:
            if index == 0:
                return TRUE
            index -= 1
        per_sign = len(selector.perms) * selector.channels
        negated, index = selector.negations and index >= per_sign, index % per_sign
        perm = selector.perms[index // selector.channels]
        source = sources[index % selector.channels]
        inner = [""] * len(args)
        for k, v in enumerate(args):
            inner[perm[k]] = v
        expr = self._source(source, layer, tuple(inner), scope)
        return _not(expr) if negated else expr

    def _source(self, src: Source, layer: int, args: tuple[str, ...], scope: frozenset[str]) -> Expr:
        if src.kind == "own":
            return self._previous(layer, src.arity, src.channel, args, scope)
        if src.kind == "expand":
            return self._previous(layer, src.arity, src.channel, args[:-1], scope)
        var = self._fresh(scope)
        body = self._previous(layer, src.arity, src.channel, args + (var,), scope | {var})
        return _quantify(src.kind, var, args, body)

    def _previous(
        self, layer: int, arity: int, channel: int, args: tuple[str, ...], scope: frozenset[str]
    ) -> Expr:
        """Channel ``channel`` of the arity-``arity`` state that layer ``layer`` reads."""
        m = self.model.config.predicates
        if layer == 0:
            return ("atom", self.base_names[channel], args)
        if channel >= m:
            return ("atom", self.base_names[channel - m], args)
        return self._unit(layer - 1, arity, channel, args, scope)

    def _unit(self, layer: int, arity: int, unit: int, args: tuple[str, ...], scope: frozenset[str]) -> Expr:
        self.units.add((layer, arity, unit))
        selector = self.model.layers[layer][arity]
        sources = self.model.sources[layer][arity]
        picks = self.choice[(layer, arity)]
        m = self.model.config.predicates
        a = self._candidate(selector, sources, picks[unit], layer, args, scope)
        b = self._candidate(selector, sources, picks[m + unit], layer, args, scope)
        op, negate_b = self.model.unit_form(unit)
        return _junction(op, a, _not(b) if negate_b else b)

    def program(self, target: str) -> Program:
        arity = self.model.target_arity
        args = VARIABLES[:arity]
        atoms = [  # one pick, or the "and2" head's conjunction of two
            self._candidate(
                self.model.head, self.model.head_sources, pick, len(self.model.layers), args, frozenset(args)
            )
            for pick in self.head_choice
        ]
        body = atoms[0] if len(atoms) == 1 else _junction("and", *atoms)
        return Program(target=target, args=args, body=body, units_used=len(self.units))


def extract_program(model: DLM, target: str, base_names: tuple[str, ...]) -> Program:
    """The discrete program the trained ``model`` computes, pruned to what reaches its head."""
    with torch.no_grad():
        return _Extractor(model, base_names).program(target)


def program_cells(program: Program, facts: dict[str, set[tuple[int, ...]]], n: int) -> set[tuple[int, ...]]:
    """The cells the program calls true in one world (slow: for tests and small worlds)."""
    arity = len(program.args)
    cells: set[tuple[int, ...]] = set()
    grid = [(x,) for x in range(n)] if arity == 1 else [(x, y) for x in range(n) for y in range(n)]
    for cell in grid:
        if evaluate(program.body, dict(zip(program.args, cell, strict=True)), facts, n):
            cells.add(cell)
    return cells
