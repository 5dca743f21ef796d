"""Self-Contra's ``paper`` profile sends the study's decoding: temperature 0 for every model (§2).

The model is the fake OpenAI server (a scripted stand-in for a provider) whose models.yaml entry has
its own sampling settings (temperature 0.7, top-p 0.9).  The profile extends ``paper`` with a few
built-in items and no annotations (the paper's 300 items and 2,126 judged annotations would take long
and need the reference folder); it keeps the paper profile's ``generation`` knob and
max_tokens.  Every request the server logs must carry temperature 0 (the study's, over the model's
0.7) and the model's own top-p (the study states none).
"""

from __future__ import annotations

import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import get_family
from tests.fakes.openai_server import FakeOpenAIServer, prompt_key
from tests.pipeline_home import isolated_home, rows
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

MODEL = "fake-contra"
PROFILE = "selfcontra-paper-mini"
MODEL_PARAMS = {"temperature": 0.7, "top_p": 0.9}
KEY_ENV = "RELREASON_FAKE_KEY"
SELFCONTRA = {
    "sources": {"generated": 2},
    "prompts": "relreason",  # the study's wording needs its demonstrations from the reference folder
    "judge": MODEL,
    "annotation_files": [],
    "detect_limit": 0,  # the judge detects nothing: only the test prompts' requests matter here
}


def _models_yaml(api_base: str) -> str:
    return f"""\
models:
  - name: {MODEL}
    litellm_model: openai/fake-contra
    api_base: {api_base}
    api_key_env: {KEY_ENV}
    params: {{temperature: {MODEL_PARAMS["temperature"]}, top_p: {MODEL_PARAMS["top_p"]}}}
    concurrency: 4
    timeout_s: 600
    max_attempts: 2
"""


def test_paper_profile_requests_carry_the_studys_temperature(tmp_path):
    mp = pytest.MonkeyPatch()
    try:
        mp.setenv(KEY_ENV, "sk-fake")
        written = {
            PROFILE: {"extends": "paper", "relational": None, "flenqa": None, "kor": None}
            | {"selfcontra": SELFCONTRA}
        }
        use_profiles(mp, tmp_path / "profiles.yaml", written)
        profile = profiles.get_profile(PROFILE, "selfcontra")
        assert profile.values().generation == {"temperature": 0}  # the paper profile's, kept
        family = get_family("selfcontra")
        built = family.build_prompts(family.generate(profile, profiles.DEFAULT_SEED), profile)
        assert {p.setting for p in built} == {"zero_answer", "zero_reason", "few_answer", "few_reason"}
        with FakeOpenAIServer() as server:
            isolated_home(mp, tmp_path, _models_yaml(server.api_base))
            from relreason_dagster.pipeline import run_models

            report = run_models([MODEL], profile=PROFILE, benchmarks=["selfcontra"], run_dbt=False)
            requests = server.entries()
        assert report.failures == [], report.failures
        # The test prompts' requests (the judge's detection probes of these answers are not the study's).
        asked = {prompt_key(p.messages) for p in built}
        mine = [e for e in requests if e.key in asked]
        assert {e.key for e in mine} == asked and len(asked) == len(built)
        sent = {
            (e.params.get("temperature"), e.params.get("top_p"), e.params.get("max_tokens")) for e in mine
        }
        assert sent == {(0, MODEL_PARAMS["top_p"], profile.values().max_tokens)}
        assert rows("SELECT count(*) FROM raw.responses WHERE error IS NOT NULL") == [(0,)]
    finally:
        mp.undo()
