"""Knowledge bases for the relational chain-of-thought checker: the truth of one ``Claim``.

A claim is decided from the sample's base predicates only:

* family relations from parent links and genders (male if someone's father or son, female if
  mother or daughter); uncle and maternal great uncle through ``FamilyTree.uncles`` /
  ``mg_uncles``, so they cannot drift from the generator's definition;
* graph relations through ``Graph``.

Decisions, all in the direction of never calling a right statement wrong:

* A claim that needs a gender the KB does not fix (someone with no parent or child links) is
  unchecked; people outside ``P0..P(n-1)`` do not exist, so every positive claim about them
  is false.
* Uncle-type relations are evaluated on the two gender completions of the KB (unknown people
  all male / all female); they agree whenever the KB fixes the genders that matter, which it
  always does for generated samples.
"""

from __future__ import annotations

from collections import defaultdict

from relreason_dagster.benchmarks.base import Sample
from relreason_dagster.benchmarks.relational.cot_relations import FAMILY_BINARY, GRAPH_PAIR, Claim
from relreason_dagster.benchmarks.relational.family_tree import DEFAULT_VARIANT, VARIANTS, FamilyTree
from relreason_dagster.benchmarks.relational.generate import sample_predicates
from relreason_dagster.benchmarks.relational.graph import Graph
from relreason_dagster.benchmarks.relational.tasks import FAMILY, GRAPH, TASK_SPECS


class FamilyKB:
    """Parent links and genders read from IsFather/IsMother/IsSon/IsDaughter."""

    def __init__(self, preds: dict[str, set[tuple[int, int]]], n: int, variant: str) -> None:
        self.n = n
        self.variant = variant
        self.parents: dict[int, set[int]] = defaultdict(set)
        self.male: set[int] = set()
        self.female: set[int] = set()
        for name, gendered, parent_second in (
            ("IsFather", self.male, True),
            ("IsMother", self.female, True),
            ("IsSon", self.male, False),
            ("IsDaughter", self.female, False),
        ):
            for x, y in preds.get(name, set()):
                if parent_second:  # IsFather(x, y): y is x's father
                    self.parents[x].add(y)
                else:  # IsSon(x, y): y is x's son
                    self.parents[y].add(x)
                gendered.add(y)
        self._trees: tuple[FamilyTree, FamilyTree] | None = None
        self._kin_cache: dict[tuple[int, str, int], set[int]] = {}

    def exists(self, p: int) -> bool:
        return 0 <= p < self.n

    def gender(self, p: int) -> bool | None:
        is_male, is_female = p in self.male, p in self.female
        if is_male != is_female:
            return is_male
        return None

    def grandparents(self, x: int) -> set[int]:
        return {g for p in self.parents.get(x, ()) for g in self.parents.get(p, ())}

    def trees(self) -> tuple[FamilyTree, FamilyTree]:
        """The KB as ``FamilyTree``s, unknown genders completed as male, then as female."""
        if self._trees is None:
            built = []
            for default in (True, False):
                male = tuple(default if (g := self.gender(p)) is None else g for p in range(self.n))
                father: list[int | None] = [None] * self.n
                mother: list[int | None] = [None] * self.n
                for x in range(self.n):
                    for p in sorted(q for q in self.parents.get(x, ()) if self.exists(q)):
                        if male[p] and father[x] is None:
                            father[x] = p
                        elif not male[p] and mother[x] is None:
                            mother[x] = p
                built.append(FamilyTree(n=self.n, male=male, father=tuple(father), mother=tuple(mother)))
            self._trees = (built[0], built[1])
        return self._trees

    def _tree_kin(self, s: int, o: int, base: str) -> bool | None:
        """Uncle / maternal great uncle by the generator's own definition, on both gender completions."""
        if base == "mg_uncle" and self.variant not in VARIANTS:
            return None
        answers = set()
        for index, tree in enumerate(self.trees()):
            key = (index, base, o)
            if key not in self._kin_cache:
                self._kin_cache[key] = tree.uncles(o) if base == "uncle" else tree.mg_uncles(o, self.variant)
            answers.add(s in self._kin_cache[key])
        return answers.pop() if len(answers) == 1 else None

    def binary(self, rel: str, s: int, o: int) -> bool | None:
        if rel not in FAMILY_BINARY:
            return None
        if not (self.exists(s) and self.exists(o)):
            return False
        base, wanted = FAMILY_BINARY[rel]
        if base in ("uncle", "mg_uncle"):
            return self._tree_kin(s, o, base)
        if base == "parent":
            holds = s in self.parents.get(o, ())
        elif base == "child":
            holds = o in self.parents.get(s, ())
        elif base == "grandparent":
            holds = s in self.grandparents(o)
        elif base == "grandchild":
            holds = o in self.grandparents(s)
        else:  # sibling: a shared parent
            holds = s != o and bool(self.parents.get(s, set()) & self.parents.get(o, set()))
        if not holds or wanted is None:
            return holds
        g = self.gender(s)
        return None if g is None else g == wanted

    def truth(self, claim: Claim) -> bool | None:
        rel, s, o = claim.relation, claim.subject, claim.obj
        if rel in ("male", "female"):
            if not self.exists(s):
                return False
            g = self.gender(s)
            return None if g is None else g == (rel == "male")
        if rel.startswith("has:") or rel.startswith("count:"):
            parts = rel.split(":")
            word = parts[1]
            if word not in FAMILY_BINARY:
                return None
            if not self.exists(s):
                return False
            values = [self.binary(word, y, s) for y in range(self.n)]
            true, unknown = values.count(True), values.count(None)
            if rel.startswith("has:"):
                return True if true else (None if unknown else False)
            k = int(parts[2])
            if true > k or true + unknown < k:
                return False
            return True if unknown == 0 else None
        if o is None:
            return None
        return self.binary(rel, s, o)


class GraphKB:
    """The HasEdge graph, queried through ``relational.graph.Graph``."""

    def __init__(self, preds: dict[str, set[tuple[int, int]]], n: int) -> None:
        self.n = n
        edges = frozenset(
            (min(a, b), max(a, b))
            for a, b in preds.get("HasEdge", set())
            if a != b and 0 <= a < n and 0 <= b < n
        )
        self.graph = Graph(n=n, edges=edges)
        self.adj = self.graph.neighbours()
        self._dist: dict[tuple[int, int], dict[int, int]] = {}

    def exists(self, p: int) -> bool:
        return 0 <= p < self.n

    def within(self, a: int, b: int, hops: int) -> bool:
        key = (a, hops)
        if key not in self._dist:
            self._dist[key] = self.graph.distances_from(a, hops)
        return a != b and b in self._dist[key]

    def truth(self, claim: Claim) -> bool | None:
        rel, a, b = claim.relation, claim.subject, claim.obj
        if rel.startswith("degree:"):
            return self.exists(a) and len(self.adj[a]) == int(rel.split(":")[1])
        if b is None or not GRAPH_PAIR.match(rel):
            return None
        if not (self.exists(a) and self.exists(b)):
            return False
        if rel == "edge":
            return a != b and b in self.adj[a]
        if rel == "reachable":
            return self.within(a, b, self.n)
        hops = int(rel.split(":")[1]) if rel.startswith("path:") else int(rel.split("-")[0])
        return self.within(a, b, min(hops, self.n))


def knowledge_base(sample: Sample) -> FamilyKB | GraphKB:
    """The knowledge base of ``sample``'s domain (family tree or graph), from its base predicates."""
    preds = sample_predicates(sample)
    n = int(sample.input["n"])
    spec = TASK_SPECS.get(sample.task)
    domain = spec.domain if spec is not None else (GRAPH if "HasEdge" in preds else FAMILY)
    if domain == GRAPH:
        return GraphKB(preds, n)
    variant = str((sample.variant or {}).get("family_tree_variant", DEFAULT_VARIANT))
    return FamilyKB(preds, n, variant)
