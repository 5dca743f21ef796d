"""Representability: the study's formulas (2)-(10), wired into the DLM by hand, reproduce the generator.

A trained DLM can only be as good as the programs its layers can express.  Each
test sets the argmax selections of a network with the task's own configuration
(depth, breadth, 8 units per arity) to the task's formula and checks that the hard
network's output equals the generator's targets cell for cell on random worlds of
sizes 10 and 20.  Where the printed formula is loose (see benchmarks/relational/README.md,
"Definitions") the wiring follows the generator's definition, and the
comment at each formula says where it differs from the printed text.

Both networks are checked with the same wirings: relreason's first layer
(recipe ``relreason-1``: any candidate may be negated, half AND / half OR units,
the input predicates fed to every layer, a head that picks one permuted,
reduced or negated candidate) and the DLM authors' layer (recipe
``authors-layer``: positive candidates only, units in quarters AND(a, b),
OR(a, b), AND(a, ¬b), OR(a, ¬b), the inputs fed to the first layer only, and a
head ``a ∧ b`` over the last layer's own target-arity outputs).  ``Wiring``
hides the difference: a negated atom goes to an AND-NOT/OR-NOT unit as its
second atom, and an input predicate read after layer 0 is carried forward by
copy units.  What the authors' layer cannot do is reduce in its head, so every
formula ends with its last quantifier inside a layer (see ``_uncle``).

The wiring also pins down the reduction semantics: a quantifier ranges over
objects distinct from the remaining arguments, and over nothing at a cell whose
remaining arguments repeat.  Formulas (7) and (8) depend on that: their outer
``∃z`` is what makes ``(x, x)`` false, as the generator's "pairs of different
nodes" requires.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest
import torch

from relreason_dagster.benchmarks.relational.dlm.config import config_for
from relreason_dagster.benchmarks.relational.dlm.data import base_tensor, target_tensor
from relreason_dagster.benchmarks.relational.dlm.model import DLM, Selector, Source
from relreason_dagster.benchmarks.relational.dlm.program import extract_program, program_cells
from relreason_dagster.benchmarks.relational.dlm.train import build_model, predict
from relreason_dagster.benchmarks.relational.generate import make_sample, sample_predicates
from relreason_dagster.benchmarks.relational.tasks import task_spec

VARIABLES = ("x", "y", "z", "w")
WORLD_SEEDS = (20240101, 7)
RECIPES = ("relreason-1", "authors-layer")
pytestmark = pytest.mark.usefixtures("one_torch_thread")  # forwards here are memory-bound copies


@dataclass(frozen=True)
class Ref:
    """A predicate in the network: a base input (``layer`` None) or unit ``channel`` of ``layer``."""

    arity: int
    channel: int
    layer: int | None = None


@dataclass(frozen=True)
class Cand:
    """A candidate atom: ``ref`` at ``args`` (names of the cell's variables), maybe quantified or negated."""

    ref: Ref | None  # None: the constant True
    args: tuple[str, ...] = ()
    quantifier: str | None = None  # exists | forall: over ``args[-1]``, the ref's last argument
    negated: bool = False

    def __invert__(self) -> Cand:
        return replace(self, negated=not self.negated)


TRUE = Cand(None)


def at(ref: Ref, *args: str) -> Cand:
    return Cand(ref, args)


def exists(ref: Ref, *args: str) -> Cand:
    return Cand(ref, args, "exists")


def forall(ref: Ref, *args: str) -> Cand:
    return Cand(ref, args, "forall")


class Wiring:
    """Sets a model's selection logits so that its argmax program is the one described.

    Layout-aware, so one wiring serves both networks.  Relreason's layer: a unit is AND or OR
    and either atom may be negated.  The authors' layer (``layout == "authors"``): the atoms are
    positive and the unit's type negates the second one, so ``op(a, ¬b)`` takes an AND-NOT or
    OR-NOT unit, ``op(¬a, b)`` is swapped to ``op(b, ¬a)`` (AND and OR commute) and ``op(¬a, ¬b)``
    must be rewritten by the caller (De Morgan: ``¬a ∧ ¬b`` = ``AND-NOT(True, a ∨ b)`` a layer
    later).  Without ``inputs_every_layer`` an input predicate is a candidate of layer 0 only, so
    one read later is carried forward by copy units (memoised: each copy is made once per layer).
    """

    def __init__(self, model: DLM) -> None:
        self.model = model
        self.m = model.config.predicates
        self.authors = model.config.layout == "authors"
        self.taken: dict[tuple[int, int], set[int]] = {}
        self.carried: dict[tuple[Ref, int], Ref] = {}
        with torch.no_grad():
            for p in model.parameters():
                p.zero_()

    def base(self, channel: int) -> Ref:
        return Ref(self.model.base_arity, channel)

    def _index(self, selector: Selector, sources: list[Source], layer: int, arity: int, cand: Cand) -> int:
        if cand.ref is None:
            assert selector.with_true and not cand.negated
            return 0
        assert selector.negations or not cand.negated, f"{cand}: this layer has no negated candidates"
        ref, cell = cand.ref, VARIABLES[:arity]
        if ref.layer is None:
            assert layer == 0 or self.model.config.inputs_every_layer, f"{ref}: no input of layer {layer}"
            channel = ref.channel if layer == 0 else self.m + ref.channel
        else:
            assert ref.layer == layer - 1, f"{ref} is not in the state layer {layer} reads"
            channel = ref.channel
        assert len(cand.args) == ref.arity
        if cand.quantifier:
            assert ref.arity == arity + 1 and cand.args[-1] not in cell
            kind, inner = cand.quantifier, cand.args[:-1]
        elif ref.arity == arity:
            kind, inner = "own", cand.args
        else:
            assert ref.arity == arity - 1
            kind, inner = "expand", cand.args + tuple(v for v in cell if v not in cand.args)
        assert sorted(inner) == sorted(cell), f"{cand} does not fit a cell {cell}"
        perm = tuple(inner.index(v) for v in cell)
        d = sources.index(Source(kind, ref.arity, channel))
        index = int(selector.with_true) + selector.perms.index(perm) * selector.channels + d
        return index + (len(selector.perms) * selector.channels if cand.negated else 0)

    def _free(self, layer: int, arity: int, op: str, negate_b: bool) -> int | None:
        """The first unit of ``layer``/``arity`` of type ``op`` (second atom negated?) not yet taken."""
        taken = self.taken.setdefault((layer, arity), set())
        return next(
            (u for u in range(self.m) if u not in taken and self.model.unit_form(u) == (op, negate_b)), None
        )

    def _form(self, op: str, a: Cand, b: Cand) -> tuple[Cand, Cand, bool]:
        """``(a, b, negate_b)`` of the unit that computes ``op(a, b)`` in this layout."""
        if not self.authors:
            return a, b, False
        if a.negated and not b.negated:
            a, b = b, a
        assert not a.negated, f"{op}(¬a, ¬b) needs De Morgan in the authors' layer: {a}, {b}"
        return a, replace(b, negated=False), b.negated

    def _readable(self, cand: Cand, layer: int) -> Cand:
        """``cand`` with an input predicate replaced by its copy in the state ``layer`` reads."""
        ref = cand.ref
        if ref is None or ref.layer is not None or layer == 0 or self.model.config.inputs_every_layer:
            return cand
        return replace(cand, ref=self.carry(ref, layer))

    def fits(self, layer: int, arity: int, op: str, a: Cand, b: Cand) -> bool:
        return self._free(layer, arity, op, self._form(op, a, b)[2]) is not None

    def unit(self, layer: int, arity: int, op: str, a: Cand, b: Cand) -> Ref:
        """The next free unit of ``layer``/``arity`` that computes ``op(a, b)``."""
        a, b = self._readable(a, layer), self._readable(b, layer)
        a, b, negate_b = self._form(op, a, b)
        u = self._free(layer, arity, op, negate_b)
        kind = f"{op}{'-not' if negate_b else ''}"
        assert u is not None, f"out of {kind} units at layer {layer}, arity {arity}"
        self.taken[(layer, arity)].add(u)
        selector = self.model.layers[layer][arity]
        sources = self.model.sources[layer][arity]
        with torch.no_grad():
            for row, cand in ((u, a), (self.m + u, b)):
                selector.logits[row, self._index(selector, sources, layer, arity, cand)] = 1.0
        return Ref(arity, u, layer)

    def AND(self, layer: int, arity: int, a: Cand, b: Cand) -> Ref:  # noqa: N802 - reads like the formula
        return self.unit(layer, arity, "and", a, b)

    def OR(self, layer: int, arity: int, a: Cand, b: Cand) -> Ref:  # noqa: N802
        return self.unit(layer, arity, "or", a, b)

    def copy(self, layer: int, arity: int, a: Cand) -> Ref:
        """``a`` (or ``¬a``) as a unit: ``a ∧ True``, else ``a ∨ a``, else (authors) ``a ∨ ¬True``.

        All three are exact on 0/1 truth values; a negated ``a`` is ``True ∧ ¬a`` in the authors' layer.
        """
        forms = [("and", a, TRUE), ("or", a, a)]
        if self.authors and not a.negated:
            forms.append(("or", a, ~TRUE))
        for op, x, y in forms:
            if self.fits(layer, arity, op, x, y):
                return self.unit(layer, arity, op, x, y)
        raise AssertionError(f"no unit left to copy {a} at layer {layer}, arity {arity}")

    def carry(self, ref: Ref, to_layer: int) -> Ref:
        """Copy ``ref`` forward until it is in the state that ``to_layer`` reads.

        An input predicate (``ref.layer`` None) starts from layer 0's candidates.
        """
        if ref.layer is None and self.model.config.inputs_every_layer:
            return ref
        while (-1 if ref.layer is None else ref.layer) < to_layer - 1:
            layer = 0 if ref.layer is None else ref.layer + 1
            key = (ref, layer)
            if key not in self.carried:
                self.carried[key] = self.copy(layer, ref.arity, at(ref, *VARIABLES[: ref.arity]))
            ref = self.carried[key]
        return ref

    def head(self, target: Ref | Cand) -> None:
        """The head reads ``target``: a predicate (carried to the last layer) or a candidate of that layer.

        The authors' head ``a ∧ b`` reads the last layer's own outputs only: ``target`` and True.
        """
        depth, arity = len(self.model.layers), self.model.target_arity
        if isinstance(target, Ref):
            target = at(self.carry(target, depth), *VARIABLES[:arity])
        head = self.model.head
        with torch.no_grad():
            head.logits[0, self._index(head, self.model.head_sources, depth, arity, target)] = 1.0
            if head.k == 2:
                head.logits[1, 0] = 1.0  # ∧ True
        self.model.eval()


FATHER, MOTHER, SON, DAUGHTER = range(4)


def has_father(w: Wiring) -> None:
    """(2) HasFather(x) ← ∃y IsFather(x, y)."""
    w.head(w.copy(0, 1, exists(w.base(FATHER), "x", "y")))


def has_sister(w: Wiring) -> None:
    """(3) HasSister(x) ← ∃y, z IsDaughter(z, y) ∧ IsMother(x, z).

    Variables renamed to the cell's: z is the mother, y the sister; y ≠ x comes from the reduction.
    """
    sister = w.AND(0, 3, at(w.base(MOTHER), "x", "y"), at(w.base(DAUGHTER), "y", "z"))
    via_mother = w.copy(1, 2, exists(sister, "x", "y", "z"))
    w.head(w.copy(2, 1, exists(via_mother, "x", "y")))


def is_grandparent(w: Wiring) -> None:
    """(4) IsGrandparent(x, y) ← ∃z (IsSon(y, z) ∧ IsFather(x, z)) ∨ (IsDaughter(y, z) ∧ IsMother(x, z))."""
    paternal = w.AND(0, 3, at(w.base(SON), "y", "z"), at(w.base(FATHER), "x", "z"))
    maternal = w.AND(0, 3, at(w.base(DAUGHTER), "y", "z"), at(w.base(MOTHER), "x", "z"))
    either = w.OR(1, 3, at(paternal, "x", "y", "z"), at(maternal, "x", "y", "z"))
    w.head(w.copy(2, 2, exists(either, "x", "y", "z")))


def _uncle(w: Wiring) -> Ref:
    """(5) IsUncle(x, y) at layer 3, arity 2.

    Invented(x, y) ← ∃z (IsSon(z, y) ∧ IsSon(z, x)) ∨ (IsSon(z, y) ∧ IsDaughter(z, x)): y is x's
    brother (y ≠ x: the reduction is empty at (x, x)); wired as ∃z of each disjunct, OR-ed at
    layer 1 (∃ distributes over ∨, same exclusions), which saves the layer an OR over arity 3 would
    take.  The two disjuncts of the printed IsUncle share Invented(z, y), so the wiring computes
    ∃z (IsMother ∨ IsFather)(x, z) ∧ Invented(z, y); the reduction's z ≠ y is what keeps x's father
    out (the study variant's "not x's father").  The last ∃z is a layer's reduction, not the
    head's: the authors' head ``a ∧ b`` cannot reduce, so all four layers do work (∧ at arity 3;
    ∃ and ∨ to arity 2; ∧ at arity 3; ∃ to arity 2), IsMother ∨ IsFather made at layer 0.
    """
    brother_son = w.AND(0, 3, at(w.base(SON), "z", "y"), at(w.base(SON), "z", "x"))
    brother_daughter = w.AND(0, 3, at(w.base(SON), "z", "y"), at(w.base(DAUGHTER), "z", "x"))
    invented = w.OR(1, 2, exists(brother_son, "x", "y", "z"), exists(brother_daughter, "x", "y", "z"))
    parent = w.OR(0, 2, at(w.base(MOTHER), "x", "y"), at(w.base(FATHER), "x", "y"))
    uncle = w.AND(2, 3, at(w.carry(parent, 2), "x", "z"), at(invented, "z", "y"))
    return w.copy(3, 2, exists(uncle, "x", "y", "z"))


def is_uncle(w: Wiring) -> None:
    w.head(_uncle(w))


def is_mg_uncle(w: Wiring) -> None:
    """(6) IsMGUncle(x, y) ← ∃z (IsMother(x, z) ∧ IsUncle(z, y)).

    The authors' layer carries IsMother from layer 0 to layer 3 (one AND copy per layer at arity 2).
    """
    great = w.AND(4, 3, at(w.base(MOTHER), "x", "z"), at(_uncle(w), "z", "y"))
    w.head(w.copy(5, 2, exists(great, "x", "y", "z")))


EDGE = 0


def _within(w: Wiring, hops: int) -> Ref:
    """Pairs of different nodes within ``hops`` (2, 4 or 6) edges, by path doubling.

    R2(x, y) = HasEdge(x, y) ∨ Invented(x, y) with Invented as in (7); R4 = ∃z (R2(x, y) ∨
    (R2(x, z) ∧ R2(z, y))) is (7) regrouped (Invented(x, z) ∧ (HasEdge ∨ Invented)(z, y) covers its
    last two disjuncts); R6 = ∃z (R4(x, y) ∨ (R4(x, z) ∧ R2(z, y))) is (8) regrouped the same way.
    The outer ∃z is False at (x, x), so no node is connected to itself.
    """
    edge = w.base(EDGE)
    two_step = w.AND(0, 3, at(edge, "x", "z"), at(edge, "z", "y"))
    r2 = w.OR(1, 2, at(edge, "x", "y"), exists(two_step, "x", "y", "z"))
    if hops == 2:
        return r2
    joined = w.AND(2, 3, at(r2, "x", "z"), at(r2, "z", "y"))
    r4 = w.OR(3, 2, at(w.carry(r2, 3), "x", "y"), exists(joined, "x", "y", "z"))
    if hops == 4:
        return r4
    joined6 = w.AND(4, 3, at(r4, "x", "z"), at(w.carry(r2, 4), "z", "y"))
    return w.OR(5, 2, at(w.carry(r4, 5), "x", "y"), exists(joined6, "x", "y", "z"))


def four_connectivity(w: Wiring) -> None:
    """(7)."""
    w.head(_within(w, 4))


def six_connectivity(w: Wiring) -> None:
    """(8)."""
    w.head(_within(w, 6))


def one_outdegree(w: Wiring) -> None:
    """(9) 1-Outdegree(x) ← ∃y ∀z (HasEdge(x, y) ∧ ¬HasEdge(x, z)), z ranging over nodes other than x, y."""
    no_edge = w.copy(0, 3, ~at(w.base(EDGE), "x", "z"))
    only = w.AND(1, 2, at(w.base(EDGE), "x", "y"), forall(no_edge, "x", "y", "z"))
    w.head(w.copy(2, 1, exists(only, "x", "y")))


def two_outdegree(w: Wiring) -> None:
    """(10) 2-Outdegree(x) ← ∃z, w ∀y (¬HasEdge(x, y) ∧ HasEdge(x, z) ∧ HasEdge(x, w)).

    Renamed to the cell's variables: y and z are the two neighbours (z ≠ y by the reduction), w the
    universally quantified node (w ≠ x, y, z).
    """
    edge = w.base(EDGE)
    two = w.AND(0, 3, at(edge, "x", "y"), at(edge, "x", "z"))
    no_edge = w.copy(0, 3, ~at(edge, "x", "z"))
    no_edge4 = w.copy(1, 4, at(no_edge, "x", "y", "w"))
    exactly = w.AND(2, 3, at(w.carry(two, 2), "x", "y", "z"), forall(no_edge4, "x", "y", "z", "w"))
    pair = w.copy(3, 2, exists(exactly, "x", "y", "z"))
    w.head(w.copy(4, 1, exists(pair, "x", "y")))


FORMULAS = {
    "HasFather": has_father,
    "HasSister": has_sister,
    "IsGrandparent": is_grandparent,
    "IsUncle": is_uncle,
    "IsMGUncle": is_mg_uncle,
    "4-Connectivity": four_connectivity,
    "6-Connectivity": six_connectivity,
    "1-Outdegree": one_outdegree,
    "2-Outdegree": two_outdegree,
}


def wired(task: str, recipe: str) -> DLM:
    """The task's network under ``recipe`` with its selections set to the task's formula."""
    config = config_for(task, recipe=recipe)
    model = build_model(task, config, n_base=len(task_spec(task).base_predicates))
    FORMULAS[task](Wiring(model))
    return model


def test_the_authors_recipe_is_the_authors_layer():
    """The second network checked here is the authors' layer with its own head and no input residual."""
    config = config_for("HasFather", recipe="authors-layer")
    assert (config.layout, config.head, config.inputs_every_layer) == ("authors", "and2", False)


def assert_reproduces_the_generator(model: DLM, task: str, sizes: tuple[int, ...] = (10, 20)) -> None:
    """The hard network's cells equal the generator's targets on 10 worlds per size and seed."""
    checked = positives = 0
    for n in sizes:
        for seed in WORLD_SEEDS:
            samples = [make_sample(task, split, i, n, seed) for split in ("fewshot", "iid") for i in range(5)]
            y = torch.stack([target_tensor(s) for s in samples])
            with torch.no_grad():  # a world at a time: 2-Outdegree's arity-4 layers at n = 20 take GBs
                pred = torch.cat([model(base_tensor(s).unsqueeze(0)) for s in samples]) > 0.5
            wrong = (pred.float() != y).nonzero().tolist()
            assert not wrong, f"{task}: {len(wrong)} wrong cells at n={n}, e.g. {wrong[:5]}"
            checked += y.numel()
            positives += int(y.sum())
    assert positives > 0 and checked - positives > 0  # both kinds of cell were checked


# Each case evaluates a DLM on every sample: up to ~25 s idle, 63 s at load 5; 600 s keeps it within a fifth.
@pytest.mark.timeout(600)
@pytest.mark.parametrize("recipe", RECIPES)
@pytest.mark.parametrize("task", list(FORMULAS))
def test_hand_wired_formula_reproduces_the_generator(task, recipe):
    assert_reproduces_the_generator(wired(task, recipe), task)


def test_every_copy_form_of_the_authors_layer_is_exact():
    """``a ∧ True``, ``a ∨ a`` and ``a ∨ ¬True`` (an OR-NOT unit) all copy ``a`` on 0/1 values.

    ``Wiring.copy`` falls back along them once a layer's AND units are taken; here HasFather is
    carried through one of each (``a ∧ ¬True`` would be False, and ``a ∧ ¬a`` too).
    """
    task = "HasFather"
    model = build_model(task, config_for(task, recipe="authors-layer"), n_base=4)
    w = Wiring(model)
    has = w.copy(0, 1, exists(w.base(FATHER), "x", "y"))
    has = w.unit(1, 1, "or", at(has, "x"), at(has, "x"))
    has = w.unit(2, 1, "or", at(has, "x"), ~TRUE)
    assert model.unit_form(has.channel) == ("or", True)
    w.head(has)
    assert_reproduces_the_generator(model, task, sizes=(10,))


@pytest.mark.parametrize(
    ("task", "recipe"),
    [
        ("IsGrandparent", "relreason-1"),
        ("4-Connectivity", "relreason-1"),
        ("1-Outdegree", "relreason-1"),
        ("IsUncle", "authors-layer"),
        ("4-Connectivity", "authors-layer"),
        ("1-Outdegree", "authors-layer"),
    ],
)
def test_program_read_from_a_wired_network_predicts_what_it_predicts(task, recipe):
    """Extraction keeps the reduction's semantics, including the empty range at (x, x).

    In the authors' layer also the unit types (AND-NOT, OR-NOT), the carried inputs and the
    ``a ∧ True`` head; 1-Outdegree's ¬HasEdge is an AND-NOT unit there.
    """
    model = wired(task, recipe)
    program = extract_program(model, task, task_spec(task).base_predicates)
    for i in range(3):
        sample = make_sample(task, "iid", i, 10, WORLD_SEEDS[0])
        assert program_cells(program, sample_predicates(sample), 10) == predict(model, sample)
