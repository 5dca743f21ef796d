"""The UI's "add a model" recipe gives the new model every mart the first model has (issue 37, item 4).

docs/pipeline.md told UI users to materialize ``model_responses`` then ``parsed_answers`` for the new
partition: that skipped the per-model steps (symbolic checks, KOR self-correction, which calls the
model), the Self-Contra judge and the marts, so ``selfcontra_judged`` lacked the new model.  The docs
now say: Jobs → ``add_model`` → pick the partition → Launch.  This launches that job for one partition
as the UI does, with no run config (the launchpad's defaults), after a first model's `relreason run`,
and compares the marts of the two models.  (A browser is not driven here; the job is what the UI's
button launches.)
"""

from __future__ import annotations

import pytest

from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import isolated_home, rows, scripted_models_yaml
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration


def _marts_with_model() -> list[str]:
    return [
        name
        for (name,) in rows(
            "SELECT DISTINCT table_name FROM information_schema.columns "
            "WHERE table_schema = 'marts' AND column_name = 'model' ORDER BY 1"
        )
    ]


def _models_in(mart: str) -> set[str]:
    return {model for (model,) in rows(f'SELECT DISTINCT model FROM marts."{mart}"')}


def test_add_model_job_for_one_partition_completes_every_mart(tmp_path, monkeypatch):
    import dagster as dg

    from relreason_dagster.defs.build import reconstructable_job
    from relreason_dagster.defs.jobs import executor_name
    from relreason_dagster.defs.sensors import register_model_partitions
    from relreason_dagster.pipeline import prepare_environment, run_models

    isolated_home(monkeypatch, tmp_path, scripted_models_yaml("first", "second", "judge"))
    use_profiles(monkeypatch, tmp_path / "profiles.yaml", {"smoke": {"selfcontra": {"judge": "judge"}}})
    register_scripted_provider()
    reset_calls()
    # The same wrong answer from both (KOR's self-correction asks each model again), so every mart
    # whose rows depend on what was answered has rows of both; the judge's prompts quote the answer,
    # so the new model's verdicts come from its cache: they are stored under the new model all the same.
    for name in ("first", "second"):
        set_responder(name, lambda messages, params: "I think the answer is 42.")
    set_responder("judge", lambda messages, params: "no")

    report = run_models(["first"], profile="smoke")
    assert report.failures == []
    judge_calls = call_count("judge")

    # What the UI does: the sensor registers the new models.yaml entry's partition, then the button
    # launches add_model for it with the launchpad's default config.
    prepare_environment("smoke")
    with dg.DagsterInstance.get() as instance:
        register_model_partitions(instance, ["second"])
        result = dg.execute_job(
            reconstructable_job("add_model", executor_name()),
            instance=instance,
            tags={"dagster/partition": "second"},
        )
        assert result.success
    assert call_count("second") > 0
    assert call_count("judge") == judge_calls  # same quoted answers: the judge is not asked again

    marts = _marts_with_model()
    assert {"selfcontra_judged", "kor_self_correction", "relational_symbolic_scr"} <= set(marts)
    incomplete = [m for m in marts if "first" in _models_in(m) and "second" not in _models_in(m)]
    assert incomplete == []
    for mart in ("selfcontra_judged", "kor_self_correction", "relational_symbolic_scr", "accuracy"):
        assert _models_in(mart) >= {"first", "second"}, mart
