"""`relreason run --model openai/x -M temperature=0 -M api_base=URL --limit 1`: no models.yaml entry.

The model is a fake OpenAI-compatible server (a scripted stand-in for a provider, named as such).  A
name with a ``/`` that the registry does not know is a LiteLLM model string, run with the ``-M``
options and stored under that very name; ``--limit 1`` asks only the first sample of each task.
"""

from __future__ import annotations

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline_home import isolated_home, rows

pytestmark = pytest.mark.integration

MODEL = "openai/x"


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("adhoc_model")
    mp = pytest.MonkeyPatch()
    mp.setenv("OPENAI_API_KEY", "sk-fake")  # what LiteLLM's openai provider reads; no entry names it
    with FakeOpenAIServer(responder=lambda messages: "True") as server:
        models = isolated_home(mp, root, "models:\n")
        before = models.read_text()
        from relreason_dagster.cli import main

        status = main(
            [
                "run",
                "--model",
                MODEL,
                "-M",
                "temperature=0",
                "-M",
                f"api_base={server.api_base}",
                "--profile",
                "smoke",
                "--benchmark",
                "relational",
                "--limit",
                "1",
            ]
        )
        log = server.entries()
    yield {"status": status, "log": log, "models_unchanged": models.read_text() == before}
    mp.undo()


def test_an_unregistered_litellm_model_string_runs_with_its_options(home):
    assert home["status"] == 0
    assert home["models_unchanged"]
    assert home["log"] and {e.model for e in home["log"]} == {"x"}
    assert {e.params.get("temperature") for e in home["log"]} == {0}
    assert rows("SELECT DISTINCT model FROM raw.responses") == [(MODEL,)]
    assert rows("SELECT count(*) FROM raw.responses WHERE error IS NOT NULL") == [(0,)]


def test_limit_asks_the_first_sample_of_each_task(home):
    per_task = rows(
        "SELECT p.task, p.split, count(DISTINCT p.sample_id), min(p.sample_id) FROM raw.responses r"
        " JOIN raw.prompts p USING (prompt_id) GROUP BY ALL"
    )
    assert per_task and all(n == 1 for _, _, n, _ in per_task)
    first = rows("SELECT task, split, min(sample_id) FROM raw.samples GROUP BY ALL")
    assert {(t, s, sid) for t, s, _, sid in per_task} <= set(first)
    # The marts hold exactly what was asked: one sample per task and split.
    assert rows("SELECT max(n) FROM marts.relational_f1") == [(1,)]
