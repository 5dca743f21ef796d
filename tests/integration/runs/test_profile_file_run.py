"""`relreason run --profile-file my.yaml --profile mine`: a user profile that extends smoke and changes
a few relational knobs drives a real run (DuckDB, dbt, GX) of a scripted model.

The scripted ``oracle`` answers each prompt with its gold answer, so every prompt parses; the counts
and the token cap in ``raw.prompts`` can only come from the user's file (smoke has 36 relational
prompts capped at 64 tokens, ``mine`` 9 capped at 24).
"""

from __future__ import annotations

import pytest
import yaml

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.cli import main
from tests.fakes.scripted_provider import register_scripted_provider, set_responder
from tests.pipeline_home import isolated_home, rows

pytestmark = pytest.mark.integration

MODELS_YAML = """\
models:
  - name: oracle
    litellm_model: scripted/profile-oracle
    params: {temperature: 0}
    concurrency: 4
"""
MINE = {
    "mine": {
        "extends": "smoke",
        "relational": {"n_ood": 0, "split_settings": {"iid": ["nl"], "ood": []}, "max_tokens": 24},
    }
}


def test_run_with_a_user_profile_file(tmp_path, monkeypatch, capsys):
    isolated_home(monkeypatch, tmp_path, MODELS_YAML)
    my = tmp_path / "my.yaml"
    my.write_text(yaml.safe_dump(MINE), encoding="utf-8")
    monkeypatch.setenv(profiles.PROFILE_FILE_ENV, str(my))
    family = get_family("relational")
    profile = profiles.get_profile("mine", "relational")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    gold = {
        p.messages[-1]["content"]: family.render_gold(by_id[p.sample_id], p.setting)
        for p in family.build_prompts(samples, profile)
    }
    assert len(gold) == 9
    monkeypatch.setenv(profiles.PROFILE_FILE_ENV, "")  # the flag alone must select the file
    register_scripted_provider()
    set_responder("profile-oracle", lambda messages, params: gold[messages[-1]["content"]])

    argv = ["run", "--profile-file", str(my), "--profile", "mine", "--benchmark", "relational"]
    assert main([*argv, "--model", "oracle"]) == 0, capsys.readouterr().err
    assert rows(
        "SELECT count(*), min(max_tokens), max(max_tokens), min(split), max(setting) FROM raw.prompts"
    ) == [(9, 24, 24, "iid", "nl")]
    assert rows("SELECT count(*) FROM raw.parsed_answers WHERE parse_status = 'ok'") == [(9,)]
    assert rows("SELECT min(f1) FROM marts.relational_f1") == [(1.0,)]
