"""Ground-truth deductions for chain-of-thought exemplars (study Figure 6).

For every true cell of a target the derivation names witness facts of the base
predicates, e.g. ``For P0: Since P5 is P0's mother and P2 is P5's daughter, P0
has 1 sister. Therefore, we can derive that P0 has sister.``  Derivations read
only the sample's base predicates, never the generator, so their key set is an
independent check of the gold (see the tests).
"""

from __future__ import annotations

from collections import defaultdict, deque

from relreason_dagster.benchmarks.relational.tasks import task_spec

Pair = tuple[int, int]
Cell = tuple[int, ...]


class _Family:
    """Look-ups over the four base predicates."""

    def __init__(self, preds: dict[str, set[Pair]]) -> None:
        self.fathers: dict[int, list[int]] = defaultdict(list)
        self.mothers: dict[int, list[int]] = defaultdict(list)
        self.sons: dict[int, list[int]] = defaultdict(list)
        self.daughters: dict[int, list[int]] = defaultdict(list)
        for table, name in (
            (self.fathers, "IsFather"),
            (self.mothers, "IsMother"),
            (self.sons, "IsSon"),
            (self.daughters, "IsDaughter"),
        ):
            for x, y in sorted(preds.get(name, set())):
                table[x].append(y)

    def parents(self, x: int) -> list[tuple[int, str]]:
        """``(parent, "mother"|"father")``, mothers first as in Figure 6."""
        return [(m, "mother") for m in self.mothers.get(x, [])] + [
            (f, "father") for f in self.fathers.get(x, [])
        ]


def _fact(y: int, x: int, word: str) -> str:
    return f"P{y} is P{x}'s {word}"


def _join(facts: list[str]) -> str:
    if len(facts) <= 2:
        return " and ".join(facts)
    return ", ".join(facts[:-1]) + " and " + facts[-1]


def _uncle_witness(fam: _Family, x: int, y: int) -> tuple[int, list[str]] | None:
    """``(parent, facts)`` showing y is a son of a grandparent of x (y not x's father), or None."""
    if y in fam.fathers.get(x, []):
        return None
    for p, p_word in fam.parents(x):
        for g, g_word in fam.parents(p):
            if y in fam.sons.get(g, []) and y != p:
                return p, [_fact(p, x, p_word), _fact(g, p, g_word), _fact(y, g, "son")]
    return None


def _family(task: str, preds: dict[str, set[Pair]], n: int, variant: str) -> dict[Cell, str]:
    fam = _Family(preds)
    out: dict[Cell, str] = {}
    people = range(n)
    if task == "HasFather":
        for x in people:
            if fam.fathers.get(x):
                f = fam.fathers[x][0]
                out[(x,)] = f"For P{x}: Since {_fact(f, x, 'father')}, we can derive that P{x} has father."
    elif task == "HasSister":
        for x in people:
            for p, p_word in fam.parents(x):
                sisters = [d for d in fam.daughters.get(p, []) if d != x]
                if sisters:
                    facts = [_fact(p, x, p_word)] + [_fact(d, p, "daughter") for d in sisters]
                    count = f"{len(sisters)} sister{'s' if len(sisters) > 1 else ''}"
                    out[(x,)] = (
                        f"For P{x}: Since {_join(facts)}, P{x} has {count}. "
                        f"Therefore, we can derive that P{x} has sister."
                    )
                    break
    elif task == "IsGrandparent":
        for x in people:
            for p, p_word in fam.parents(x):
                for g, g_word in fam.parents(p):
                    if (x, g) not in out:
                        out[(x, g)] = (
                            f"For P{x} and P{g}: Since {_fact(p, x, p_word)} and {_fact(g, p, g_word)}, "
                            f"we can derive that P{g} is P{x}'s grandparent."
                        )
    elif task == "IsUncle":
        for x in people:
            for y in people:
                witness = _uncle_witness(fam, x, y)
                if witness:
                    parent, facts = witness
                    out[(x, y)] = (
                        f"For P{x} and P{y}: Since {_join(facts)}, P{y} is P{parent}'s brother, "
                        f"so we can derive that P{y} is P{x}'s uncle."
                    )
    elif task == "IsMGUncle" and variant == "nlm":
        for x in people:
            for p, p_word in fam.parents(x):
                for g in fam.mothers.get(p, []):
                    for m in fam.mothers.get(g, []):
                        for y in fam.sons.get(m, []):
                            if (x, y) not in out:
                                facts = [_fact(p, x, p_word), _fact(g, p, "mother"), _fact(m, g, "mother")]
                                facts.append(_fact(y, m, "son"))
                                out[(x, y)] = (
                                    f"For P{x} and P{y}: Since {_join(facts)}, P{y} is P{g}'s brother, "
                                    f"so we can derive that P{y} is P{x}'s maternal great uncle."
                                )
    elif task == "IsMGUncle":
        for x in people:
            for m in fam.mothers.get(x, []):
                for y in people:
                    witness = _uncle_witness(fam, m, y)
                    if witness and (x, y) not in out:
                        facts = [_fact(m, x, "mother")] + witness[1]
                        out[(x, y)] = (
                            f"For P{x} and P{y}: Since {_join(facts)}, "
                            f"P{y} is P{m}'s uncle, "
                            f"so we can derive that P{y} is P{x}'s maternal great uncle."
                        )
    else:
        raise ValueError(f"not a family task: {task!r}")
    return out


def _graph(task: str, preds: dict[str, set[Pair]], n: int) -> dict[Cell, str]:
    adj: dict[int, set[int]] = defaultdict(set)
    for a, b in preds.get("HasEdge", set()):
        if a != b:
            adj[a].add(b)
            adj[b].add(a)
    spec = task_spec(task)
    out: dict[Cell, str] = {}
    if spec.degree:
        for x in range(n):
            nbrs = sorted(adj.get(x, set()))
            if len(nbrs) == spec.degree:
                names = _join([f"P{v}" for v in nbrs])
                edges = f"{spec.degree} edge{'s' if spec.degree > 1 else ''}"
                out[(x,)] = (
                    f"For P{x}: Since P{x} has edges only to {names}, P{x} has {edges}. "
                    f"Therefore, we can derive that P{x} has outdegree {spec.degree}."
                )
        return out
    for x in range(n):
        previous: dict[int, int | None] = {x: None}
        depth = {x: 0}
        queue = deque([x])
        while queue:
            node = queue.popleft()
            if depth[node] == spec.hops:
                continue
            for nxt in sorted(adj.get(node, set())):
                if nxt not in depth:
                    depth[nxt] = depth[node] + 1
                    previous[nxt] = node
                    queue.append(nxt)
        for y in depth:
            if y == x:
                continue
            path = [y]
            while (prev := previous[path[-1]]) is not None:
                path.append(prev)
            path.reverse()
            hops = [f"an edge between P{a} and P{b}" for a, b in zip(path, path[1:], strict=False)]
            plural = "s" if len(hops) > 1 else ""
            out[(x, y)] = (
                f"For P{x} and P{y}: Since there is {_join(hops)}, P{x} and P{y} are joined by a path of "
                f"{len(hops)} edge{plural}, so we can derive that P{x} and P{y} are {spec.word}."
            )
    return out


def derive(task: str, preds: dict[str, set[Pair]], n: int, variant: str = "study") -> dict[Cell, str]:
    """One reasoning sentence per true cell of ``task``, computed from the base predicates only."""
    if task_spec(task).domain == "family":
        return _family(task, preds, n, variant)
    return _graph(task, preds, n)
