"""How a user asks for batch jobs: ``batch: true`` in models.yaml, ``relreason run --batch / --no-wait /
--batch-fallback`` (issue 54, item 2), and the state records ``relreason status`` lists."""

from __future__ import annotations

import pytest

from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.batch_choice import BatchChoice
from relreason_dagster.llm.registry import ModelEntry, parse_registry
from relreason_dagster.storage import batch_jobs
from relreason_dagster.storage.batch_jobs import JobRecord
from relreason_dagster.storage.lake import Lake


def _entry(**kw):
    return {"name": "m", "litellm_model": "openai/gpt-4o-mini", **kw}


def test_batch_true_on_an_entry_sends_it_as_batch_jobs():
    spec = parse_registry({"models": [_entry(batch=True, batch_fallback="live")]}, "models.yaml")["m"]
    assert spec.transport_used == "batch" and spec.batch_fallback == "live" and spec.batch_wait


@pytest.mark.parametrize(
    "entry,expected",
    [
        (
            _entry(litellm_model="hosted_vllm/qwen", api_base="http://localhost:8000/v1", batch=True),
            "models.yaml: models[0].batch: hosted_vllm runs no batch jobs LiteLLM can send (only openai, "
            "azure, anthropic, vertex_ai, gemini, bedrock); remove it",
        ),
        (_entry(batch="yes"), "models.yaml: models[0].batch: expected true or false, got 'yes'"),
        (_entry(batch_fallback="retry"), "models.yaml: models[0].batch_fallback: expected 'batch' or 'live'"),
    ],
)
def test_a_bad_batch_setting_is_one_line(entry, expected):
    with pytest.raises(ConfigError) as err:
        parse_registry({"models": [entry]}, "models.yaml")
    assert str(err.value).startswith(expected) and "\n" not in str(err.value)


def test_the_batch_flag_batches_what_can_and_says_what_runs_live():
    notes: list[str] = []
    choice = BatchChoice(batch=True, wait=False, fallback="live")
    cloud = choice.apply(ModelEntry(name="a", litellm_model="anthropic/claude-x", transport="litellm"), notes)
    assert cloud.transport_used == "batch" and not cloud.batch_wait and cloud.batch_fallback == "live"
    compatible = choice.apply(
        ModelEntry(name="b", litellm_model="openai/served", api_base="http://127.0.0.1:9/v1"), notes
    )
    assert compatible.transport_used == "batch"  # an OpenAI-compatible api_base counts as openai
    local = ModelEntry(name="c", litellm_model="hosted_vllm/x", api_base="http://127.0.0.1:9/v1")
    assert choice.apply(local, notes) == local and local.transport_used == "direct"
    assert notes == [
        "relreason: c runs live: hosted_vllm runs no batch jobs LiteLLM can send (only openai, azure, "
        "anthropic, vertex_ai, gemini, bedrock)"
    ]
    # --no-wait alone changes only models that batch already; a live model is left as it is.
    assert BatchChoice(wait=False).apply(local) == local
    entry = ModelEntry(name="d", litellm_model="openai/gpt-4o-mini", batch=True)
    assert not BatchChoice(wait=False).apply(entry).batch_wait
    assert not BatchChoice().any and BatchChoice(fallback="live").any


def test_job_records_are_listed_open_first_with_requests_state_age_and_cost(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    assert batch_jobs.status_lines(lake) == []
    done = JobRecord("m", "openai", "batch_1", "file-1", ["h1", "h2"], created=10_000.0, state="collected")
    running = JobRecord(
        "m/2", "anthropic", "msgbatch_2", "file-2", ["h3"], created=13_600.0, expected_cost_usd=0.25
    )
    batch_jobs.write_job(lake, done)
    batch_jobs.write_job(lake, running)
    assert batch_jobs.jobs_of(lake, "m") == []
    assert batch_jobs.jobs_of(lake, "m", open_only=False) == [done]
    assert batch_jobs.jobs_of(lake, "m/2") == [running]
    assert batch_jobs.status_lines(lake, now=13_600.0 + 3 * 3600) == [
        "batch jobs: 1 open, 1 collected",
        "  m/2 (anthropic) msgbatch_2: 1 requests, submitted, age 3.0h, expected $0.2500",
        "  m (openai) batch_1: 2 requests, collected, age 4.0h, expected ?",
    ]
    running.state = "in_progress"
    batch_jobs.write_job(lake, running)  # replaced whole
    assert [j.state for j in batch_jobs.all_jobs(lake)] == ["collected", "in_progress"]
