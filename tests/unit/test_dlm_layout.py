"""The DLM authors' layer as an option: fixed-negation unit types and the two-atom AND head."""

from __future__ import annotations

import itertools

import pytest
import torch

from relreason_dagster.benchmarks.relational.generate import make_sample, sample_predicates
from relreason_dagster.benchmarks.relational.tasks import task_spec
from relreason_dagster.dlm.config import DLMConfig
from relreason_dagster.dlm.data import base_tensor
from relreason_dagster.dlm.model import DLM, Noise
from relreason_dagster.dlm.program import extract_program, program_cells
from relreason_dagster.dlm.train import predict
from relreason_dagster.errors import ConfigError

AUTHORS = {"layout": "authors", "head": "and2"}


def test_authors_layout_has_four_unit_types_and_positive_candidates_only():
    model = DLM(n_base=4, target_arity=2, config=DLMConfig(**AUTHORS))
    forms = [model.unit_form(u) for u in range(8)]
    assert forms == [("and", False)] * 2 + [("or", False)] * 2 + [("and", True)] * 2 + [("or", True)] * 2
    unit = model.layers[1][2]
    assert not unit.negations and unit.logits.shape[1] == 1 + 2 * unit.channels  # True + 2 permutations
    assert model.head.logits.shape == (2, 1 + 8 + 4)  # last layer's arity-2 outputs, the inputs, True
    assert model.needed[-1] == {2}  # the head reads the target arity only
    with pytest.raises(ConfigError, match="unknown DLM layout"):
        DLMConfig.from_dict({"layout": "nlm"})


@pytest.mark.parametrize("target_arity", [1, 2])
def test_authors_layout_is_permutation_equivariant(target_arity):
    torch.manual_seed(3)
    model = DLM(
        n_base=4, target_arity=target_arity, config=DLMConfig(depth=3, predicates=4, init_std=1.0, **AUTHORS)
    )
    n = 5
    base = (torch.rand(2, n, n, 4) < 0.3).float()
    soft = Noise(temperature=0.7, gumbel_scale=0.0, dropout=0.0)
    for perm in [torch.tensor(p) for p in itertools.islice(itertools.permutations(range(n)), 1, 120, 29)]:
        permuted = base[:, perm][:, :, perm]
        for noise in (soft, None):
            out, out_p = model(base, noise), model(permuted, noise)
            expected = out[:, perm] if target_arity == 1 else out[:, perm][:, :, perm]
            assert torch.allclose(out_p, expected, atol=1e-6)


@pytest.mark.parametrize("task", ["HasSister", "IsGrandparent"])
def test_program_read_from_an_authors_network_predicts_what_it_predicts(task):
    """Random selections: the extracted formula (negated second atoms, a ∧ b head) is the network."""
    base_names = task_spec(task).base_predicates
    for seed in range(3):
        torch.manual_seed(seed)
        model = DLM(n_base=4, target_arity=task_spec(task).arity, config=DLMConfig(init_std=3.0, **AUTHORS))
        program = extract_program(model, task, base_names)
        for i in range(3):
            sample = make_sample(task, "iid", i, 8, 20240101)
            assert program_cells(program, sample_predicates(sample), 8) == predict(model, sample), (
                program.text
            )
            assert base_tensor(sample).shape == (8, 8, 4)
