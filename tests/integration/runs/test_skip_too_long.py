"""Issue 56 acceptance 2 against a fake OpenAI server (a scripted stand-in for a provider, named as such):
a model entry with ``context_window: 16000`` and a profile with lengths 1000, 8000 and 32000.

Without ``--skip-too-long`` the launch stops at the door with one line: no request, no home.  With it,
the 16k model asks only the prompts that fit (the server's request log), a 128k model of the same launch
still asks every prompt, and the prompts left out are counted in ``raw.too_long`` and the marts
(``prompts_too_long``, ``flenqa_too_long``), never silent.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import pytest
import yaml

from tests.fakes.openai_server import FakeOpenAIServer, prompt_key
from tests.pipeline_home import isolated_home, rows

# The first test builds the module's home: a refused launch, then one launch of two models on FLenQA up to
# 32000 tokens and its dbt build (~104 s of CPU, 368 s at load 12 on 2 cores); 1200 s keeps a busy CI run
# within a fifth (tests/timeout_budget.py).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]

PROFILE = {
    "longish": {
        "flenqa": {
            "n_base": 2,
            "lengths": [1000, 8000, 32000],
            "paddings": ["duplicate"],
            "positions": ["first"],
            "minimal": False,
            "settings": ["direct"],
        }
    }
}
PER_LENGTH = 6  # 3 tasks x 2 base instances, one padding, position and setting


def _models_yaml(api_base: str) -> str:
    return "models:\n" + "".join(
        f"  - name: {name}\n    litellm_model: openai/fake-{name}\n    api_base: {api_base}\n"
        f"    api_key_env: FAKE_WINDOW_KEY\n    context_window: {window}\n    concurrency: 4\n"
        for name, window in (("small", 16000), ("big", 128000))
    )


@contextlib.contextmanager
def _stderr_to(path: Path) -> Iterator[None]:
    """``sys.stderr`` and file descriptor 2 (every child's) into ``path`` while the block runs (pytest's
    capture stands in for ``sys.stderr``, so both are redirected)."""
    sys.stderr.flush()
    saved = os.dup(2)
    with path.open("w", encoding="utf-8", buffering=1) as f:
        os.dup2(f.fileno(), 2)
        try:
            with contextlib.redirect_stderr(f):
                yield
        finally:
            f.flush()
            os.dup2(saved, 2)
            os.close(saved)


@pytest.fixture(scope="module")
def launch(tmp_path_factory):
    root = tmp_path_factory.mktemp("skip_too_long")
    mp = pytest.MonkeyPatch()
    mp.setenv("FAKE_WINDOW_KEY", "sk-fake")
    profile_file = root / "profiles.yaml"
    profile_file.write_text(yaml.safe_dump(PROFILE))
    mp.setenv("RELREASON_PROFILES", str(profile_file))
    with FakeOpenAIServer(responder=lambda messages: "True") as server:
        isolated_home(mp, root, _models_yaml(server.api_base))
        from relreason_dagster import paths
        from relreason_dagster.cli import main

        argv = ["run", "--benchmark", "flenqa", "--profile", "longish", "--model", "small", "--model", "big"]
        refused = main(argv)
        refused_log = server.entries()
        home_after_refusal = paths.relreason_home_path().exists()
        with _stderr_to(root / "stderr.txt"):  # the runs' processes write there too (they inherit fd 2)
            status = main([*argv, "--skip-too-long"])
        log = server.entries()
    with dg.DagsterInstance.get() as instance:  # the launch's instance (the CLI set DAGSTER_HOME)
        left_out = {}
        for model in ("small", "big"):
            found = instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=dg.AssetKey("model_responses"), asset_partitions=[model]),
                limit=1,
            ).records
            left_out[model] = found[0].asset_materialization.metadata["too_long"].value if found else None
        run_lines = [
            entry.user_message
            for run in instance.get_runs()
            for entry in instance.all_logs(run.run_id)
            if "prompts that do not fit its" in (entry.user_message or "")
        ]
    yield {
        "refused": refused,
        "refused_log": refused_log,
        "home_after_refusal": home_after_refusal,
        "status": status,
        "log": log,
        "stderr": (root / "stderr.txt").read_text(encoding="utf-8", errors="replace"),
        "left_out": left_out,
        "run_lines": run_lines,
    }
    mp.undo()


def test_without_skip_the_launch_stops_at_the_door_and_writes_nothing(launch):
    assert launch["refused"] == 2
    assert launch["refused_log"] == []
    assert not launch["home_after_refusal"]  # no lake files, no DuckDB rows, no Dagster run


def _asked_lengths(log) -> dict[str, list[int]]:
    """Per fake model, the FLenQA length of every prompt it was sent (from the server's request log)."""
    length_of = {}
    for messages, length in rows(
        "SELECT p.messages, json_extract(s.variant, '$.length')::integer FROM raw.prompts p"
        " JOIN raw.samples s USING (sample_id) WHERE p.benchmark = 'flenqa'"
    ):
        length_of[prompt_key(json.loads(messages))] = length
    out: dict[str, list[int]] = {}
    for entry in log:
        out.setdefault(entry.model, []).append(length_of[entry.key])
    return {model: sorted(lengths) for model, lengths in out.items()}


def test_with_skip_the_small_model_asks_only_what_fits_and_the_big_one_everything(launch):
    assert launch["status"] == 0
    assert all(entry.status == 200 for entry in launch["log"])
    asked = _asked_lengths(launch["log"])
    assert asked["fake-small"] == [1000] * PER_LENGTH + [8000] * PER_LENGTH
    assert asked["fake-big"] == [1000] * PER_LENGTH + [8000] * PER_LENGTH + [32000] * PER_LENGTH


def test_each_leaving_out_is_one_line(launch):
    """The door's line names the model and the lengths; the model step's says how many it left out."""
    err = launch["stderr"]
    door = [line for line in err.splitlines() if line.startswith("relreason: --skip-too-long: ")]
    assert len(door) == 1 and "model 'small'" in door[0] and "lengths 32000 " in door[0], err
    # The model step's line, on stderr (the CLI's) and in its run's log (the UI's), and its
    # materialization's metadata: how many prompts the 16k model left out, none for the 128k one.
    said = [line for line in err.splitlines() if "prompts that do not fit its" in line]
    assert len(said) == 1 and f"small: left out {PER_LENGTH} prompts" in said[0], err
    lines = launch["run_lines"]
    assert lines and all(f"small: left out {PER_LENGTH} prompts" in line for line in lines), lines
    assert launch["left_out"] == {"small": PER_LENGTH, "big": 0}


def test_the_prompts_left_out_are_counted_in_the_marts(launch):
    assert rows("SELECT model, count(*), min(context_window) FROM raw.too_long GROUP BY model") == [
        ("small", PER_LENGTH, 16000)
    ]
    assert rows("SELECT count(*) FROM raw.parsed_answers WHERE model = 'small'") == [(2 * PER_LENGTH,)]
    assert rows(
        "SELECT benchmark, model, sum(n_too_long), min(min_needed_tokens) > 16000, max(window_source)"
        " FROM marts.prompts_too_long GROUP BY ALL"
    ) == [("flenqa", "small", PER_LENGTH, True, "models.yaml")]
    assert rows("SELECT model, length, sum(n_too_long) FROM marts.flenqa_too_long GROUP BY ALL") == [
        ("small", 32000, PER_LENGTH)
    ]
    # The accuracy mart holds what was asked: the 16k model has no 32000-token cell, the 128k model has.
    assert rows("SELECT model, max(length) FROM marts.flenqa_accuracy GROUP BY model ORDER BY model") == [
        ("big", 32000),
        ("small", 8000),
    ]
