"""A models.yaml sweep runs as one model per level, and turning an entry into a sweep re-asks nothing for
the level it had (issue 55, item 1 and acceptance 4).

Two launches (``run_pipeline``, in-process executor, no dbt: this is about calls and partitions) of the
toy family at the smoke profile (8 numbers) against the fake OpenAI server (a scripted stand-in for a
provider, named as such: it answers "yes" and logs every request with its params):

1. the entry ``o4`` with ``reasoning_effort: high`` in its params;
2. the same entry with ``sweep: {reasoning_effort: [low, medium, high]}``, run as ``o4``.

The second launch runs three partitions, asks each prompt once at ``low`` and once at ``medium``, and
asks nothing at ``high``: that level's requests hash as the first launch's did (the model name is not in
the request hash), so its answers come from the store.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from relreason_dagster.benchmarks.registry import register, unregister
from tests.fakes.openai_server import FakeOpenAIServer, prompt_key
from tests.pipeline_home import isolated_home, rows
from tests.toy_family.family import ToyFamily

pytestmark = pytest.mark.integration

KEY_ENV = "RELREASON_TEST_SWEEP_KEY"
LEVELS = ("low", "medium", "high")
VARIANTS = [f"o4@reasoning_effort={level}" for level in LEVELS]


def _models_yaml(api_base: str, sweep: str | None) -> str:
    text = (
        "models:\n"
        "  - name: o4\n"
        "    litellm_model: openai/fake-o4\n"
        "    params: {reasoning_effort: high, temperature: 1}\n"
        f"    api_base: {api_base}\n"
        f"    api_key_env: {KEY_ENV}\n"
        "    concurrency: 4\n"
        "    timeout_s: 60\n"
    )
    return text + (f"    sweep: {sweep}\n" if sweep else "")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both launches' reports and request logs, the dynamic partitions, in a fresh home kept set."""
    import dagster as dg

    from relreason_dagster.defs.partitions import MODELS_PARTITION
    from relreason_dagster.pipeline import run_models

    root = tmp_path_factory.mktemp("sweep_runs")
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, "sk-fake-sweep")
    register(ToyFamily())
    try:
        with FakeOpenAIServer(responder=lambda messages: "yes") as server:
            models = isolated_home(mp, root, _models_yaml(server.api_base, None))
            first = run_models(["o4"], profile="smoke", benchmarks=["toy"], run_dbt=False)
            first_log = server.entries()
            server.reset_log()
            models.write_text(_models_yaml(server.api_base, "{reasoning_effort: [low, medium, high]}"))
            second = run_models(["o4"], profile="smoke", benchmarks=["toy"], run_dbt=False)
            second_log = server.entries()
        with dg.DagsterInstance.get() as instance:
            partitions = instance.get_dynamic_partitions(MODELS_PARTITION)
        yield {
            "first": first,
            "second": second,
            "first_log": first_log,
            "second_log": second_log,
            "partitions": partitions,
        }
    finally:
        unregister("toy")
        mp.undo()


def _prompt_keys() -> set[str]:
    """The fake server's key of each distinct toy prompt (identical texts are one request)."""
    found = rows("SELECT messages FROM raw.prompts WHERE benchmark = 'toy' AND kind = 'test'")
    return {prompt_key(json.loads(messages)) for (messages,) in found}


def test_both_launches_succeed(runs):
    assert runs["first"].failures == [] and runs["second"].failures == []
    assert runs["first_log"] and runs["second_log"]
    assert all(entry.status == 200 for entry in runs["first_log"] + runs["second_log"])


def test_the_sweep_runs_three_partitions(runs):
    assert set(VARIANTS) <= set(runs["partitions"])
    launched = {run["partition"] for run in runs["second"].runs if run["job"] == "model_work"}
    assert launched == set(VARIANTS)
    per_model = dict(rows("SELECT model, count(*) FROM raw.responses WHERE error IS NULL GROUP BY model"))
    n = rows("SELECT count(*) FROM raw.prompts WHERE benchmark = 'toy' AND kind = 'test'")[0][0]
    assert n == 8
    assert {model: per_model.get(model) for model in ["o4", *VARIANTS]} == dict.fromkeys(["o4", *VARIANTS], n)


def test_each_prompt_is_asked_once_per_level_and_the_old_level_not_again(runs):
    keys = _prompt_keys()
    first = Counter((entry.key, entry.params.get("reasoning_effort")) for entry in runs["first_log"])
    assert first == Counter({(key, "high"): 1 for key in keys})
    second = Counter((entry.key, entry.params.get("reasoning_effort")) for entry in runs["second_log"])
    # Acceptance 4: the level the entry already had (high) is asked nothing; the new levels once each.
    assert second == Counter({(key, level): 1 for key in keys for level in ("low", "medium")})
    assert {entry.params.get("temperature") for entry in runs["second_log"]} == {1}


def test_model_sweeps_rows_name_base_level_and_rank(runs):
    got = rows("SELECT model, base_model, param, level, level_rank FROM raw.model_sweeps ORDER BY level_rank")
    assert got == [
        (name, "o4", "reasoning_effort", level, rank)
        for rank, (name, level) in enumerate(zip(VARIANTS, LEVELS, strict=True))
    ]
    # Each stored row joins to its base model and level.
    joined = rows(
        "SELECT s.level, count(*) FROM raw.responses r JOIN raw.model_sweeps s USING (model)"
        " GROUP BY 1 ORDER BY 1"
    )
    assert joined == [("high", 8), ("low", 8), ("medium", 8)]
