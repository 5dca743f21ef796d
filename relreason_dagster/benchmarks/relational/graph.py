"""Random undirected graphs and the four general-graph target predicates.

Edges are drawn independently (Erdos-Renyi), as in NLM's ``random_generate_graph``.
A fixed edge probability makes the degree grow with ``n`` (p = 0.3 gives nodes of
a 20-node graph almost never exactly one neighbour), so by default the edge
probability is ``expected_degree / (n - 1)``: the IID (n=10) and OOD (n=20) graphs
then have the same local structure and every target keeps a fair share of
positives.  Set ``edge_prob`` to use a fixed probability instead.

``HasEdge`` is symmetric with no self loops.  ``k-Connectivity(x, y)`` holds for
``x != y`` joined by a path of at most ``k`` edges; ``d-Outdegree(x)`` holds when
x has exactly ``d`` neighbours.
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

Pair = tuple[int, int]


@dataclass(frozen=True)
class GraphParams:
    """Edge density of generated graphs; see the module docstring."""

    expected_degree: float = 2.0
    edge_prob: float | None = None  # overrides expected_degree when set

    def probability(self, n: int) -> float:
        if self.edge_prob is not None:
            return self.edge_prob
        return 0.0 if n < 2 else min(1.0, self.expected_degree / (n - 1))


@dataclass(frozen=True)
class Graph:
    """An undirected simple graph on nodes ``0..n-1``."""

    n: int
    edges: frozenset[Pair]  # each undirected edge once, as (small, large)

    def neighbours(self) -> list[set[int]]:
        adj: list[set[int]] = [set() for _ in range(self.n)]
        for a, b in self.edges:
            adj[a].add(b)
            adj[b].add(a)
        return adj

    def base_predicates(self) -> dict[str, set[Pair]]:
        """HasEdge with both orientations of every edge."""
        return {"HasEdge": set(self.edges) | {(b, a) for a, b in self.edges}}

    def distances_from(self, source: int, limit: int) -> dict[int, int]:
        """Breadth-first hop counts from ``source``, up to ``limit`` hops."""
        adj = self.neighbours()
        dist = {source: 0}
        queue = deque([source])
        while queue:
            node = queue.popleft()
            if dist[node] == limit:
                continue
            for nxt in adj[node]:
                if nxt not in dist:
                    dist[nxt] = dist[node] + 1
                    queue.append(nxt)
        return dist

    def target(self, task: str) -> set[tuple[int, ...]]:
        """The true cells of ``task``: ``{(x,)}`` for outdegree, ``{(x, y)}`` for connectivity."""
        if task in ("4-Connectivity", "6-Connectivity"):
            hops = int(task.split("-")[0])
            return {(x, y) for x in range(self.n) for y in self.distances_from(x, hops) if y != x}
        if task in ("1-Outdegree", "2-Outdegree"):
            degree = int(task.split("-")[0])
            return {(x,) for x, adj in enumerate(self.neighbours()) if len(adj) == degree}
        raise ValueError(f"not a graph task: {task!r}")


def generate_graph(n: int, rng: random.Random, params: GraphParams | None = None) -> Graph:
    """One random graph on ``n`` nodes with independent edges."""
    if n < 1:
        raise ValueError("a graph needs at least one node")
    p = (params or GraphParams()).probability(n)
    edges = frozenset((a, b) for a in range(n) for b in range(a + 1, n) if rng.random() < p)
    return Graph(n=n, edges=edges)
