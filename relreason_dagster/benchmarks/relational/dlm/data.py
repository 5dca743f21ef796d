"""Samples as truth-value tensors: what the DLM reads and what it must output.

Every base predicate of the study is binary (IsFather(x, y), HasEdge(x, y)),
so a sample becomes one ``[n, n, C]`` tensor; the target is ``[n]`` (unary) or
``[n, n]`` (binary).  Cell ``[x, y]`` is 1 when ``P(x, y)`` holds, in the
study's argument order — the same matrices the tv prompts show an LLM.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

from relreason_dagster.benchmarks.base import Sample
from relreason_dagster.benchmarks.relational.generate import decode_gold, sample_predicates
from relreason_dagster.benchmarks.relational.tasks import task_spec

Cells = set[tuple[int, ...]]


def base_tensor(sample: Sample) -> torch.Tensor:
    """``[n, n, C]`` float tensor of the task's base predicates, channels in the spec's order."""
    spec = task_spec(sample.task)
    n = int(sample.input["n"])
    preds = sample_predicates(sample)
    out = torch.zeros(n, n, len(spec.base_predicates))
    for c, name in enumerate(spec.base_predicates):
        for x, y in preds.get(name, ()):
            out[x, y, c] = 1.0
    return out


def target_tensor(sample: Sample) -> torch.Tensor:
    """``[n]`` or ``[n, n]`` float tensor of the gold cells."""
    spec = task_spec(sample.task)
    n = int(sample.input["n"])
    out = torch.zeros((n,) * spec.arity)
    for cell in decode_gold(sample.gold, spec.arity):
        out[cell] = 1.0
    return out


def cells_of(prediction: torch.Tensor) -> Cells:
    """The true cells of a 0/1 prediction tensor, as tuples of ints."""
    return {tuple(int(i) for i in idx) for idx in (prediction > 0.5).nonzero().tolist()}


def stack(samples: Iterable[Sample]) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs ``[B, n, n, C]`` and targets of samples that share one ``n``."""
    items = list(samples)
    sizes = {int(s.input["n"]) for s in items}
    if len(sizes) != 1:
        raise ValueError(f"a batch needs one world size, got {sorted(sizes)}")
    return torch.stack([base_tensor(s) for s in items]), torch.stack([target_tensor(s) for s in items])
