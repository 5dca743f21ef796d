"""Samples of the relational family: few-shot examples, IID (n=10) and OOD (n=20) tests.

Every sample has its own seed derived from ``(seed, task, split, index)``, so
raising a profile count appends samples without changing the earlier ones, and
one task's samples do not depend on which other tasks were generated.

Degenerate samples: a world whose target has no true cell makes F1 trivial (an
answer of "None" scores 1.0) and a few-shot example without positives shows no
answer statement, so generation redraws, up to ``MAX_ATTEMPTS`` times from the
same seeded stream, until the target has at least one positive.  Draws cost
tens of microseconds; IsMGUncle at n=10 is empty in about 98% of draws (about 50
draws, 15 ms, per sample), IsUncle in about 66%, the others rarely.  This
conditions the distribution on "at least one positive"; if every attempt is
empty the last draw is kept.
"""

from __future__ import annotations

import random
from typing import Any

from relreason_dagster.benchmarks.base import Profile, Sample, stable_hash
from relreason_dagster.benchmarks.relational.family_tree import (
    DEFAULT_VARIANT,
    VARIANTS,
    FamilyTreeParams,
    generate_family_tree,
)
from relreason_dagster.benchmarks.relational.graph import GraphParams, generate_graph
from relreason_dagster.benchmarks.relational.profile_schema import Knobs
from relreason_dagster.benchmarks.relational.tasks import FAMILY, TASKS, task_spec
from relreason_dagster.errors import ConfigError

BENCHMARK = "relational"
GENERATOR_VERSION = "relational-gen-1"
MAX_ATTEMPTS = 1000

Cells = set[tuple[int, ...]]


def derive_seed(seed: int, task: str, split: str, index: int) -> int:
    """A per-sample seed that fits DuckDB's 32-bit INTEGER column."""
    return int(stable_hash(BENCHMARK, seed, task, split, index, length=8), 16) & 0x7FFFFFFF


def make_world(
    task: str,
    n: int,
    rng: random.Random,
    variant: str = DEFAULT_VARIANT,
    family_params: FamilyTreeParams | None = None,
    graph_params: GraphParams | None = None,
) -> tuple[dict[str, set[tuple[int, int]]], Cells]:
    """One random family or graph: its base predicates and the true cells of ``task``."""
    spec = task_spec(task)
    predicates: dict[str, set[tuple[int, int]]] = {}
    gold: Cells = set()
    for _ in range(MAX_ATTEMPTS):
        if spec.domain == FAMILY:
            tree = generate_family_tree(n, rng, family_params)
            predicates, gold = tree.base_predicates(), tree.target(task, variant)
        else:
            graph = generate_graph(n, rng, graph_params)
            predicates, gold = graph.base_predicates(), graph.target(task)
        if gold:
            break
    return predicates, gold


def encode_gold(cells: Cells, arity: int) -> list[Any]:
    """Sorted ints (unary) or sorted ``[x, y]`` lists (binary): the JSON form of a cell set."""
    if arity == 1:
        return sorted(c[0] for c in cells)
    return [list(c) for c in sorted(cells)]


def decode_gold(gold: Any, arity: int) -> Cells:
    """The cell set of a stored gold (or parsed) list."""
    if arity == 1:
        return {(int(x),) for x in gold or []}
    return {(int(x), int(y)) for x, y in gold or []}


def sample_predicates(sample: Sample) -> dict[str, set[tuple[int, int]]]:
    """The base predicates of a sample as sets of ``(x, y)`` pairs."""
    return {name: {(int(x), int(y)) for x, y in pairs} for name, pairs in sample.input["predicates"].items()}


def make_sample(
    task: str,
    split: str,
    index: int,
    n: int,
    seed: int,
    variant: str = DEFAULT_VARIANT,
    family_params: FamilyTreeParams | None = None,
    graph_params: GraphParams | None = None,
) -> Sample:
    """The ``index``-th sample of ``task`` in ``split`` for the run seed ``seed``.

    ``input`` also records ``index`` so that the few-shot order survives a trip through DuckDB.
    """
    spec = task_spec(task)
    sample_seed = derive_seed(seed, task, split, index)
    rng = random.Random(sample_seed)
    predicates, gold = make_world(task, n, rng, variant, family_params, graph_params)
    input_ = {
        "n": n,
        "index": index,
        "predicates": {name: [list(p) for p in sorted(predicates[name])] for name in spec.base_predicates},
    }
    variant_dict = {"family_tree_variant": variant} if spec.domain == FAMILY else {}
    gold_json = encode_gold(gold, spec.arity)
    return Sample(
        benchmark=BENCHMARK,
        task=task,
        sample_id=stable_hash(BENCHMARK, task, split, input_, variant_dict, gold_json, GENERATOR_VERSION),
        split=split,
        n=n,
        variant=variant_dict,
        input=input_,
        gold=gold_json,
        label=None,
        seed=sample_seed,
        generator_version=GENERATOR_VERSION,
        gold_pos=len(gold),
        n_cells=n if spec.arity == 1 else n * n,
    )


def split_sizes(profile: Profile) -> list[tuple[str, int, int]]:
    """``(split, count, n)`` per split; few-shot covers both the nl/tv and the CoT exemplars."""
    knobs = profile.typed(Knobs)
    n_train = knobs.n_train_nodes
    return [
        ("fewshot", max(knobs.n_fewshot, knobs.n_fewshot_cot), n_train),
        ("iid", knobs.n_iid, n_train),
        ("ood", knobs.n_ood, knobs.n_ood_nodes),
    ]


def generate_samples(
    profile: Profile,
    seed: int,
    tasks: tuple[str, ...] = TASKS,
    family_params: FamilyTreeParams | None = None,
    graph_params: GraphParams | None = None,
) -> list[Sample]:
    """All samples of the profile for ``tasks``, in task, split, index order."""
    variant = profile.typed(Knobs).family_tree_variant
    if variant not in VARIANTS:
        raise ConfigError(f"unknown family_tree_variant {variant!r}; known: {', '.join(VARIANTS)}")
    samples: list[Sample] = []
    for task in tasks:
        for split, count, n in split_sizes(profile):
            for index in range(count):
                samples.append(make_sample(task, split, index, n, seed, variant, family_params, graph_params))
    return samples
