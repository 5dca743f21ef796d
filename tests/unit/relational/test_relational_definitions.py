"""Generated targets equal the study's definitions, evaluated here by brute force.

The reference evaluators below are written from the formulas of the study
(section 3.1) with explicit quantifiers over people/nodes, independently of
the generator code; they only see the base predicates.
"""

from __future__ import annotations

import random
from itertools import product

import pytest

from relreason_dagster.benchmarks.relational.derivations import derive
from relreason_dagster.benchmarks.relational.family_tree import FamilyTreeParams, generate_family_tree
from relreason_dagster.benchmarks.relational.generate import decode_gold, make_sample, sample_predicates
from relreason_dagster.benchmarks.relational.graph import GraphParams, generate_graph
from relreason_dagster.benchmarks.relational.tasks import FAMILY_TASKS, GRAPH_TASKS, TASKS, task_spec

N_INSTANCES = 220
FAMILY_PARAMS = [FamilyTreeParams(), FamilyTreeParams(p_marriage=0.5), FamilyTreeParams(p_marriage=1.0)]
GRAPH_PARAMS = [
    GraphParams(),
    GraphParams(expected_degree=1.0),
    GraphParams(expected_degree=3.5),
    GraphParams(edge_prob=0.3),
]


def compose(n, left, right):
    """{(a, c) : exists b, left(a, b) and right(b, c)} by quantifying over all b."""
    return {(a, c) for a, b, c in product(range(n), repeat=3) if (a, b) in left and (b, c) in right}


def family_reference(preds, n, variant):
    """Targets from formulas (2)-(6) of the study (plus the y != x / not-father fixes)."""
    father, mother = preds["IsFather"], preds["IsMother"]
    son, daughter = preds["IsSon"], preds["IsDaughter"]
    people = range(n)
    parent = father | mother
    out = {}
    # (2) HasFather(x) <- exists y IsFather(x, y)
    out["HasFather"] = {(x,) for x in people if any((x, y) in father for y in people)}
    # (3) with y != x: exists y, z IsDaughter(z, y) and z is a parent of x
    out["HasSister"] = {
        (x,)
        for x in people
        if any((z, y) in daughter and (x, z) in parent and y != x for y in people for z in people)
    }
    # (4) IsGrandparent(x, y) <- exists z (IsSon(y, z) and IsFather(x, z))
    #                                  or (IsDaughter(y, z) and IsMother(x, z))
    out["IsGrandparent"] = {
        (x, y)
        for x in people
        for y in people
        if any(
            ((y, z) in son and (x, z) in father) or ((y, z) in daughter and (x, z) in mother) for z in people
        )
    }
    # (5) Invented(x, y) <- exists z (IsSon(z, y) and IsSon(z, x)) or (IsSon(z, y) and IsDaughter(z, x))
    invented = {
        (a, b)
        for a in people
        for b in people
        if any((z, b) in son and ((z, a) in son or (z, a) in daughter) for z in people)
    }
    uncle = {
        (x, y)
        for x in people
        for y in people
        if any(((x, z) in mother or (x, z) in father) and (z, y) in invented for z in people)
        and (x, y) not in father
    }
    out["IsUncle"] = uncle
    if variant == "study":
        # (6) IsMGUncle(x, y) <- exists z IsMother(x, z) and IsUncle(z, y)
        out["IsMGUncle"] = compose(n, mother, uncle)
    else:
        # NLM: grandmother . mother . son
        grandmother = compose(n, parent, mother)
        out["IsMGUncle"] = compose(n, compose(n, grandmother, mother), son)
    return out


def brother_of_parent(preds, n):
    """IsUncle as 'a male sibling of a parent, not the father' (a second, plainer reading)."""
    parent = preds["IsFather"] | preds["IsMother"]
    male = {c for _, c in preds["IsSon"]}
    return {
        (x, y)
        for x in range(n)
        for y in male
        if (x, y) not in preds["IsFather"]
        and any(
            (x, p) in parent and p != y and any((p, g) in parent and (y, g) in parent for g in range(n))
            for p in range(n)
        )
    }


def bounded_paths(edges, n, limit):
    """Endpoints (x, y), x != y, of simple paths of at most ``limit`` edges, by enumerating the paths."""
    found = set()
    adjacency = {x: [y for y in range(n) if (x, y) in edges] for x in range(n)}

    def extend(path):
        if len(path) > 1:
            found.add((path[0], path[-1]))
        if len(path) - 1 == limit:
            return
        for nxt in adjacency[path[-1]]:
            if nxt not in path:
                extend(path + [nxt])

    for start in range(n):
        extend([start])
    return {(x, y) for x, y in found if x != y}


def bounded_walks(edges, n, limit):
    """Endpoints (x, y), x != y, of walks of at most ``limit`` edges, by repeated composition."""
    reach = set(edges)
    for _ in range(limit - 1):
        reach |= compose(n, reach, edges)
    return {(x, y) for x, y in reach if x != y}


def graph_reference(preds, n):
    edges = preds["HasEdge"]
    out = {
        "4-Connectivity": bounded_walks(edges, n, 4),
        "6-Connectivity": bounded_walks(edges, n, 6),
    }
    if n <= 12:  # path enumeration is exponential; a second, plainer check on small graphs
        assert out["4-Connectivity"] == bounded_paths(edges, n, 4)
        assert out["6-Connectivity"] == bounded_paths(edges, n, 6)
    for d in (1, 2):
        out[f"{d}-Outdegree"] = {(x,) for x in range(n) if sum((x, y) in edges for y in range(n)) == d}
    return out


def check_family_structure(preds, n):
    """At most one father and one mother; IsSon/IsDaughter mirror the parent links by gender."""
    father, mother = preds["IsFather"], preds["IsMother"]
    son, daughter = preds["IsSon"], preds["IsDaughter"]
    for x in range(n):
        assert sum((x, y) in father for y in range(n)) <= 1
        assert sum((x, y) in mother for y in range(n)) <= 1
        has_f = any((x, y) in father for y in range(n))
        has_m = any((x, y) in mother for y in range(n))
        assert has_f == has_m  # children come from couples
    assert {(p, c) for c, p in father | mother} == son | daughter
    assert not ({c for _, c in son} & {c for _, c in daughter})
    assert not ({f for _, f in father} & {m for _, m in mother})


@pytest.mark.parametrize("variant", ["study", "nlm"])
def test_family_targets_match_formulas(variant):
    for i in range(N_INSTANCES):
        n = 4 + i % 17
        params = FAMILY_PARAMS[i % len(FAMILY_PARAMS)]
        tree = generate_family_tree(n, random.Random(1000 + i), params)
        preds = tree.base_predicates()
        check_family_structure(preds, n)
        reference = family_reference(preds, n, variant)
        for task in FAMILY_TASKS:
            got = tree.target(task, variant)
            assert got == reference[task], (task, variant, n, i)
            assert set(derive(task, preds, n, variant)) == reference[task], (task, variant, n, i)
        assert reference["IsUncle"] == brother_of_parent(preds, n)


def test_graph_targets_match_definitions():
    for i in range(N_INSTANCES):
        n = 4 + i % 17
        graph = generate_graph(n, random.Random(2000 + i), GRAPH_PARAMS[i % len(GRAPH_PARAMS)])
        preds = graph.base_predicates()
        edges = preds["HasEdge"]
        assert all((y, x) in edges and x != y for x, y in edges)
        reference = graph_reference(preds, n)
        for task in GRAPH_TASKS:
            assert graph.target(task) == reference[task], (task, n, i)
            assert set(derive(task, preds, n)) == reference[task], (task, n, i)


def test_variants_really_differ():
    """Over many families the two IsMGUncle readings disagree somewhere (else the variant is moot)."""
    differ = 0
    for i in range(300):
        tree = generate_family_tree(20, random.Random(i))
        differ += tree.target("IsMGUncle", "study") != tree.target("IsMGUncle", "nlm")
    assert differ > 0


@pytest.mark.parametrize("variant", ["study", "nlm"])
def test_samples_gold_matches_reference(variant):
    for task in TASKS:
        spec = task_spec(task)
        for index in range(6):
            for split, n in (("fewshot", 10), ("iid", 10), ("ood", 20)):
                sample = make_sample(task, split, index, n, seed=7, variant=variant)
                preds = sample_predicates(sample)
                reference = (
                    family_reference(preds, n, variant)
                    if spec.domain == "family"
                    else graph_reference(preds, n)
                )
                gold = decode_gold(sample.gold, spec.arity)
                assert gold == reference[task]
                assert gold, "generation redraws worlds without positives"
                assert sample.gold_pos == len(gold)
                assert sample.n_cells == (n if spec.arity == 1 else n * n)
                assert sample.variant == ({"family_tree_variant": variant} if spec.domain == "family" else {})
                assert 0 <= sample.seed < 2**31
