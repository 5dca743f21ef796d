"""The DLM training recipes: relreason's first reading of the study and the DLM authors' epoch."""

from __future__ import annotations

import dataclasses

import pytest
import torch

from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.relational.dlm.config import DEFAULT_RECIPE, RECIPES, DLMConfig, config_for
from relreason_dagster.benchmarks.relational.dlm.model import DLM
from relreason_dagster.benchmarks.relational.dlm.plan import dlm_settings, plan_runs
from relreason_dagster.benchmarks.relational.dlm.train import _epoch_batches, train
from relreason_dagster.benchmarks.relational.generate import make_sample
from relreason_dagster.benchmarks.relational.profile_schema import Knobs
from relreason_dagster.errors import ConfigError


def test_default_recipe_is_the_authors_layer_and_authors_recipe_is_their_script():
    assert DEFAULT_RECIPE == "authors-layer"
    assert config_for("HasFather") == config_for("HasFather", recipe="authors-layer")
    assert config_for("HasFather", recipe="relreason-1") == DLMConfig()  # the first recipe stays reachable
    # 2-Outdegree keeps the first recipe by default (the authors' layer costs hours there; config.py).
    assert config_for("2-Outdegree") == config_for("2-Outdegree", recipe="relreason-1")
    assert (
        config_for("2-Outdegree").breadth == 4
        and config_for("2-Outdegree", recipe="authors").layout == "relreason"
    )
    authors = config_for("IsMGUncle", recipe="authors")
    assert authors.updates_per_epoch == 250 and authors.batch_size == 4
    assert (authors.temperature_decay, authors.gumbel_decay, authors.dropout, authors.dropout_decay) == (
        0.995,
        0.98,
        0.1,
        0.98,
    )
    assert authors.sample_noise and authors.drop_weights and authors.init == "kaiming"
    assert authors.weight_decay == 0.01 and authors.depth == 8  # the per-task depth still applies
    assert config_for("HasFather", {"weight_decay": 0.0}, "authors").weight_decay == 0.0  # overrides last
    with pytest.raises(ConfigError, match="unknown DLM recipe 'author'"):
        config_for("HasFather", recipe="author")
    with pytest.raises(ConfigError, match="unknown DLM init"):
        DLMConfig.from_dict({"init": "xavier"})


def test_an_authors_epoch_is_250_batches_of_4_distinct_training_samples():
    config = config_for("HasFather", recipe="authors")
    batches = list(_epoch_batches(config, 10, torch.Generator().manual_seed(0)))
    assert len(batches) == 250
    assert all(len(b) == 4 and len(set(b.tolist())) == 4 and 0 <= min(b) and max(b) < 10 for b in batches)
    assert len({tuple(b.tolist()) for b in batches}) > 100  # drawn anew for every update
    first = list(_epoch_batches(DLMConfig(), 10, torch.Generator().manual_seed(0)))
    assert [len(b) for b in first] == [4, 4, 2] and sorted(torch.cat(first).tolist()) == list(range(10))


def test_kaiming_init_scales_logits_by_the_number_of_candidates():
    torch.manual_seed(0)
    model = DLM(n_base=4, target_arity=2, config=DLMConfig(init="kaiming"))
    for selector in (model.layers[1][3], model.head):
        fan_in = selector.logits.shape[1]
        assert selector.logits.std().item() == pytest.approx(fan_in**-0.5, rel=0.2)


def test_an_authors_run_counts_epochs_and_updates():
    samples = [make_sample("HasFather", "fewshot", i, 10, 20240101) for i in range(10)]
    config = dataclasses.replace(
        config_for("HasFather", recipe="authors"), updates_per_epoch=5, max_epochs=3, exact_stop_loss=0.0
    )
    result = train("HasFather", samples, config, seed=0)
    assert (result.epochs, result.updates, result.total_updates) == (3, 15, 15)
    assert len(result.losses) == 3


def test_profile_chooses_the_recipe():
    fewshot = [make_sample("HasFather", "fewshot", i, 10, 20240101) for i in range(2)]
    runs = plan_runs("HasFather", fewshot, Profile("t", {"dlm_recipe": "relreason-1"}, knobs=Knobs), 20240101)
    default = plan_runs("HasFather", fewshot, Profile("t", {}, knobs=Knobs), 20240101)
    assert runs[0].config.updates_per_epoch == 0 and default[0].config.updates_per_epoch == 250
    assert default[0].config.layout == "authors" and runs[0].run_id != default[0].run_id
    with pytest.raises(ConfigError, match="unknown dlm_recipe"):
        dlm_settings(Profile("t", {"dlm_recipe": "nope"}, knobs=Knobs))
    assert set(RECIPES) >= {"relreason-1", "authors"}


def test_noisy_or_quantifiers_are_max_and_min_on_truth_values():
    """The training-time ∃/∀ option changes gradients only: on 0/1 predicates it is exactly max/min."""
    model = DLM(n_base=4, target_arity=2, config=DLMConfig(soft_quantifiers="noisy_or"))
    torch.manual_seed(3)
    state = [None, None, (torch.rand(2, 6, 6, 3) < 0.3).float(), (torch.rand(2, 6, 6, 6, 5) < 0.5).float()]
    for r in (1, 2):
        assert torch.equal(model._gather(r, state, 2, 6, soft=True), model._gather(r, state, 2, 6))
    soft = torch.rand(2, 6, 6, 6, 5)
    exact = model._gather(2, [None, None, None, soft], 2, 6)
    noisy = model._gather(2, [None, None, None, soft], 2, 6, soft=True)
    assert torch.all(noisy[..., :5] >= exact[..., :5]) and torch.all(noisy[..., 5:] <= exact[..., 5:])
    with pytest.raises(ConfigError, match="unknown soft_quantifiers"):
        DLMConfig.from_dict({"soft_quantifiers": "mean"})


def test_study_protocol_is_the_studys_stated_protocol():
    """≤ 500 epochs of the authors' 250 updates, stop below 1e-8 loss, and nothing relreason added."""
    study = config_for("IsGrandparent", recipe="study-protocol")
    layer = config_for("IsGrandparent", recipe="authors-layer")
    assert (study.max_epochs, study.stop_loss, study.updates_per_epoch) == (500, 1e-8, 250)
    assert study.exact_stop_loss == 0.0 and study.restarts == 0  # no stop at the first exact fit
    assert study.loss_eps == 0.0  # the 1e-5 squeeze would keep the loss above the 1e-8 stop
    assert (study.layout, study.head) == (layer.layout, layer.head) == ("authors", "and2")
    # No per-task budget of the default recipe applies: 2-Outdegree too gets the protocol's 500 epochs.
    assert config_for("2-Outdegree", recipe="study-protocol").max_epochs == 500


def test_the_paper_profile_trains_both_recipes_each_named():
    from relreason_dagster import profiles

    fewshot = [make_sample("2-Outdegree", "fewshot", i, 10, 20240101) for i in range(2)]
    runs = plan_runs("2-Outdegree", fewshot, profiles.get_profile("paper", "relational"), 20240101)
    assert [(r.recipe, r.setting, r.seed) for r in runs] == [
        ("relreason-1", "dlm", 0),
        ("relreason-1", "dlm", 1),
        ("relreason-1", "dlm", 2),
        ("study-protocol", "dlm_study_protocol", 0),
        ("study-protocol", "dlm_study_protocol", 1),
        ("study-protocol", "dlm_study_protocol", 2),
    ]
    assert runs[3].config.max_epochs == 10  # the paper profile's cap on the protocol (dlm/README.md)
    assert runs[0].config == config_for("2-Outdegree")  # the default's runs keep their config and ids
    assert len({r.run_id for r in runs}) == 6
    with pytest.raises(ConfigError, match="unknown recipe 'nope' in dlm_recipes"):
        dlm_settings(Profile("t", {"dlm_recipes": ["default", "nope"]}, knobs=Knobs))
    with pytest.raises(ConfigError, match="unknown DLM setting"):
        dlm_settings(Profile("t", {"dlm_recipe_overrides": {"study-protocol": {"epochs": 3}}}, knobs=Knobs))
