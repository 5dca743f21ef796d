"""Random family trees and the five family-tree target predicates.

The generator follows the Neural Logic Machines (NLM) reference generator
(``randomly_generate_family``): people are added one at a time with a random
gender; each newcomer is the child of a uniformly chosen existing couple or of
nobody (the "no parents" option weighs as much as one couple); after each
arrival, with probability ``p_marriage`` a random single man and a random single
woman marry unless they are siblings, cousins or aunt/uncle and niece/nephew.
Finally the ids are a random permutation, so ``P0`` is not the eldest.

Predicates use the study's argument order: ``IsFather(x, y)`` iff ``y`` is
``x``'s father (likewise IsMother, IsSon, IsDaughter).  Targets:

* ``HasFather(x)``: x has a father (formula 2).
* ``HasSister(x)``: a daughter of one of x's parents other than x.  Formula (3)
  of the study omits ``y != x`` and would call every daughter with a mother her
  own sister; NLM fixed the same bug ("count herself as sister"), we follow NLM.
* ``IsGrandparent(x, y)``: y is a parent of a parent of x (formula 4).
* ``IsUncle(x, y)``: y is a son of one of x's grandparents and not x's father,
  i.e. a brother of a parent of x.  Formula (5) alone also makes x's father an
  "uncle" (he is a son of his own parents); both variants exclude him, as NLM does.
* ``IsMGUncle(x, y)`` differs by variant:

  - ``study`` (default, formula 6): y is an uncle (as above) of x's mother, i.e.
    a brother of one of x's maternal grandparents.
  - ``nlm`` (NLM's ``get_maternal_great_uncle``): y is a son of the mother of one
    of x's grandmothers, i.e. a brother of x's maternal *or paternal* grandmother;
    brothers of grandfathers never count.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

VARIANTS = ("study", "nlm")
DEFAULT_VARIANT = "study"

Pair = tuple[int, int]


@dataclass(frozen=True)
class FamilyTreeParams:
    """Knobs of the generator; the defaults are NLM's reference values."""

    p_marriage: float = 0.8  # chance that a marriage is attempted after each arrival
    p_male: float = 0.5
    no_parent_weight: float = 1.0  # weight of "no parents" against each couple (NLM: 1)
    forbid_relative_marriage: bool = True  # NLM's check_relations


@dataclass(frozen=True)
class FamilyTree:
    """A family as parent pointers and genders; every child has both parents or none."""

    n: int
    male: tuple[bool, ...]
    father: tuple[int | None, ...]
    mother: tuple[int | None, ...]

    def parents(self, x: int) -> tuple[int, ...]:
        return tuple(p for p in (self.father[x], self.mother[x]) if p is not None)

    def children(self, p: int) -> list[int]:
        return [c for c in range(self.n) if p in (self.father[c], self.mother[c])]

    def base_predicates(self) -> dict[str, set[Pair]]:
        """IsFather, IsMother, IsSon, IsDaughter as sets of (x, y) pairs."""
        is_father = {(x, f) for x, f in enumerate(self.father) if f is not None}
        is_mother = {(x, m) for x, m in enumerate(self.mother) if m is not None}
        is_son: set[Pair] = set()
        is_daughter: set[Pair] = set()
        for child in range(self.n):
            for parent in self.parents(child):
                (is_son if self.male[child] else is_daughter).add((parent, child))
        return {"IsFather": is_father, "IsMother": is_mother, "IsSon": is_son, "IsDaughter": is_daughter}

    # -- targets -------------------------------------------------------------------------------------

    def grandparents(self, x: int) -> set[int]:
        return {g for p in self.parents(x) for g in self.parents(p)}

    def uncles(self, x: int) -> set[int]:
        """Sons of x's grandparents other than x's father."""
        sons = {c for g in self.grandparents(x) for c in self.children(g) if self.male[c]}
        sons.discard(self.father[x])  # type: ignore[arg-type]
        return sons

    def mg_uncles(self, x: int, variant: str = DEFAULT_VARIANT) -> set[int]:
        if variant == "study":
            mother = self.mother[x]
            return set() if mother is None else self.uncles(mother)
        if variant == "nlm":
            grandmothers = {p_mother for p in self.parents(x) if (p_mother := self.mother[p]) is not None}
            great_grandmothers = {m for g in grandmothers if (m := self.mother[g]) is not None}
            return {c for m in great_grandmothers for c in self.children(m) if self.male[c]}
        raise ValueError(f"unknown family tree variant {variant!r}; known: {', '.join(VARIANTS)}")

    def target(self, task: str, variant: str = DEFAULT_VARIANT) -> set[tuple[int, ...]]:
        """The true cells of ``task``: ``{(x,)}`` for unary, ``{(x, y)}`` for binary targets."""
        people = range(self.n)
        if task == "HasFather":
            return {(x,) for x in people if self.father[x] is not None}
        if task == "HasSister":
            return {
                (x,)
                for x in people
                if any(c != x and not self.male[c] for p in self.parents(x) for c in self.children(p))
            }
        if task == "IsGrandparent":
            return {(x, g) for x in people for g in self.grandparents(x)}
        if task == "IsUncle":
            return {(x, y) for x in people for y in self.uncles(x)}
        if task == "IsMGUncle":
            return {(x, y) for x in people for y in self.mg_uncles(x, variant)}
        raise ValueError(f"not a family tree task: {task!r}")


def generate_family_tree(n: int, rng: random.Random, params: FamilyTreeParams | None = None) -> FamilyTree:
    """One random family of ``n`` people (NLM's growth process; see the module docstring)."""
    if n < 1:
        raise ValueError("a family needs at least one member")
    params = params or FamilyTreeParams()
    ids = list(range(n))
    rng.shuffle(ids)
    male: list[bool] = [False] * n
    father: list[int | None] = [None] * n
    mother: list[int | None] = [None] * n
    single_men: list[int] = []
    single_women: list[int] = []
    couples: list[tuple[int, int]] = []

    def same_father(a: int | None, b: int | None) -> bool:
        return a is not None and b is not None and father[a] is not None and father[a] == father[b]

    def may_marry(man: int, woman: int) -> bool:
        """NLM's check_relations: no siblings, cousins, or aunt/uncle with niece/nephew."""
        if not params.forbid_relative_marriage or father[man] is None or father[woman] is None:
            return True
        if father[man] == father[woman]:
            return False
        for x in (father[man], mother[man]):
            for y in (father[woman], mother[woman]):
                if same_father(man, y) or same_father(woman, x) or same_father(x, y):
                    return False
        return True

    while ids:
        person = ids.pop()
        male[person] = rng.random() < params.p_male
        weights = [params.no_parent_weight] + [1.0] * len(couples)
        choice = rng.choices(range(len(weights)), weights=weights)[0] if couples else 0
        if choice > 0:
            father[person], mother[person] = couples[choice - 1]
        (single_men if male[person] else single_women).append(person)
        if single_men and single_women and rng.random() < params.p_marriage:
            mi = rng.randrange(len(single_men))
            wi = rng.randrange(len(single_women))
            man, woman = single_men[mi], single_women[wi]
            if may_marry(man, woman):
                couples.append((man, woman))
                del single_men[mi]
                del single_women[wi]
    return FamilyTree(n=n, male=tuple(male), father=tuple(father), mother=tuple(mother))
