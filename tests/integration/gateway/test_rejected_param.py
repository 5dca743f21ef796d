"""A model that refuses a generation parameter: the stored error names it and says what to change.

The provider is the fake OpenAI server (a scripted stand-in), told to answer OpenAI's 400 for a
model that refuses a param ("Unsupported parameter: 'top_p' ..." / "Unsupported value:
'temperature' does not support 0 ...") whenever a request carries it.  The model's models.yaml
params are temperature 0.7 and top-p 0.9; the prompts carry a study's ``generation`` params
(temperature 0) on top, as a profile's ``generation`` knob puts them there.  So a refused top-p is the
model's own setting (fix in models.yaml) and a refused temperature 0 the profile's (fix in the profile).
"""

from __future__ import annotations

import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.integration

KEY_ENV = "RELREASON_FAKE_KEY"
MODEL_PARAMS = {"temperature": 0.7, "top_p": 0.9}
STUDY = {"temperature": 0}
N = 3


def _spec(api_base: str) -> ModelEntry:
    return ModelEntry(
        name="fake-reasoner",
        litellm_model="openai/fake-reasoner",
        params=dict(MODEL_PARAMS),
        concurrency=2,
        api_base=api_base,
        api_key_env=KEY_ENV,
        timeout_s=120.0,
        max_attempts=3,
    )


def _prompts(params: dict | None) -> list[dict]:
    return [
        {
            "prompt_id": f"q{i}",
            "messages": [{"role": "user", "content": f"What is {i} + {i}?"}],
            "max_tokens": 16,
            **({"params": params} if params else {}),
        }
        for i in range(N)
    ]


def _errors(duck) -> list[str]:
    found = duck.execute("SELECT error FROM raw.responses ORDER BY prompt_id").fetchall()
    return [row[0] for row in found]


@pytest.mark.parametrize(
    ("refused", "style", "fix"),
    [
        # The model's own top-p: remove it from models.yaml.
        ("top_p", "parameter", "remove top_p from the params of model 'fake-reasoner' in models.yaml"),
        # The study's temperature 0 over the model's 0.7: the profile's generation knob sent it.
        ("temperature", "value", "the profile's `generation` knob sends temperature=0"),
    ],
)
def test_a_refused_param_is_named_with_its_fix(duck, store, monkeypatch, refused, style, fix):
    monkeypatch.setenv(KEY_ENV, "sk-fake")
    with FakeOpenAIServer(reject_params={refused: style}) as server:
        stats = run_model(store, _spec(server.api_base), _prompts(STUDY), backoff_base_s=0.01)
        log = server.entries()
    assert [e.status for e in log] == [400] * N  # a refusal is not retried
    assert all(e.params.get(refused) == {**MODEL_PARAMS, **STUDY}[refused] for e in log)
    errors = _errors(duck)
    assert len(errors) == N
    for error in errors:
        line, _, provider = error.partition(" | ")
        assert "\n" not in error
        head = f"rejected_param: model 'fake-reasoner' rejected the generation parameter '{refused}'"
        assert line.startswith(head)
        assert fix in line
        assert provider.startswith("bad_request:") and f"'{refused}'" in provider  # the provider's own text
    assert stats.errors == N and stats.error_kinds == {"rejected_param": N}
    assert f"{N} errors (rejected_param {N})" in stats.summary()


def test_other_400s_keep_their_kind(duck, store, monkeypatch):
    """A param the model refuses but the request does not carry changes nothing; a 400 of another
    cause stays ``bad_request`` with the provider's text only."""
    monkeypatch.setenv(KEY_ENV, "sk-fake")
    with FakeOpenAIServer(reject_params={"logit_bias": "parameter"}) as server:
        stats = run_model(store, _spec(server.api_base), _prompts(None), backoff_base_s=0.01)
    assert stats.errors == 0 and _errors(duck) == [None] * N
    with FakeOpenAIServer(faults=lambda key, attempt: 400) as server:
        stats = run_model(store, _spec(server.api_base), _prompts(STUDY), backoff_base_s=0.01)
    assert stats.error_kinds == {"bad_request": N}
    assert all(e.startswith("bad_request: ") and "rejected" not in e for e in _errors(duck))
