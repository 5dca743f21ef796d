"""The DLM authors' layer as an option: fixed-negation unit types and the two-atom AND head."""

from __future__ import annotations

import dataclasses
import itertools

import pytest
import torch

from relreason_dagster import profiles
from relreason_dagster.benchmarks.base import Sample
from relreason_dagster.benchmarks.relational.dlm.config import DLMConfig, config_for
from relreason_dagster.benchmarks.relational.dlm.data import base_tensor
from relreason_dagster.benchmarks.relational.dlm.model import DLM, Noise
from relreason_dagster.benchmarks.relational.dlm.program import extract_program, program_cells
from relreason_dagster.benchmarks.relational.dlm.train import TrainResult, predict, train
from relreason_dagster.benchmarks.relational.generate import (
    decode_gold,
    generate_samples,
    make_sample,
    sample_predicates,
)
from relreason_dagster.benchmarks.relational.tasks import task_spec
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


def test_authors_layer_recipe_is_the_authors_script_on_their_layer():
    config = config_for("IsGrandparent", recipe="authors-layer")
    authors = config_for("IsGrandparent", recipe="authors")
    assert (config.layout, config.head, config.inputs_every_layer, config.loss_eps) == (
        "authors",
        "and2",
        False,
        1e-5,
    )
    assert config.updates_per_epoch == authors.updates_per_epoch == 250 and config.exact_stop_loss == 1.0
    assert config_for("IsGrandparent") == config  # the default recipe
    assert config.max_epochs == 100 and config_for("IsMGUncle").max_epochs == 40  # update budgets
    assert config_for("IsMGUncle", {"max_epochs": 7}).max_epochs == 7  # a profile's overrides come last


def _paper_samples(task: str) -> list[Sample]:
    return generate_samples(profiles.get_profile("paper", "relational"), profiles.DEFAULT_SEED, tasks=(task,))


def _train_one_thread(task: str, samples: list[Sample], config: DLMConfig, seed: int) -> TrainResult:
    """Train with one torch thread, as the runs in dlm/README.md were measured (results depend on it)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return train(task, samples, config, seed=seed)
    finally:
        torch.set_num_threads(threads)


def _assert_is_formula_4(result: TrainResult, samples: list[Sample]) -> None:
    assert result.train_hard_errors == 0
    for s in samples:  # every few-shot, IID and OOD sample
        assert predict(result.model, s) == decode_gold(s.gold, 2), s.split
    program = extract_program(result.model, "IsGrandparent", task_spec("IsGrandparent").base_predicates)
    for s in samples[:3]:  # the formula read back is the network
        assert program_cells(program, sample_predicates(s), int(s.input["n"])) == decode_gold(s.gold, 2)


@pytest.mark.slow  # ~110 s on one core
def test_learns_is_grandparent_with_the_authors_layer_within_4000_updates():
    """Seed 0 on the paper profile's ten few-shot families with the authors' 250-update epochs.

    Fits at epoch 15 (3,750 updates, ~106 s on one core; dlm/README.md).
    """
    samples = _paper_samples("IsGrandparent")
    config = dataclasses.replace(config_for("IsGrandparent", recipe="authors-layer"), max_epochs=16)
    result = _train_one_thread("IsGrandparent", [s for s in samples if s.split == "fewshot"], config, 0)
    assert result.updates <= 4000
    _assert_is_formula_4(result, samples)
