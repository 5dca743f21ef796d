"""Issue 56 acceptance 2, at the door: a model whose context window cannot hold the profile's FLenQA
lengths stops the launch with one line before anything is written, and ``--skip-too-long`` says what it
leaves out instead (here in a dry run: no server, nothing sent; the run itself is
tests/integration/runs/test_skip_too_long.py)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import yaml

from relreason_dagster.cli import main

NOWHERE = "http://127.0.0.1:9/v1"  # never asked: nothing here may send a request
MODELS_YAML = f"""\
models:
  - name: small
    litellm_model: openai/fake-small
    api_base: {NOWHERE}
    api_key_env: FAKE_WINDOW_KEY
    context_window: 16000
  - name: big
    litellm_model: openai/fake-big
    api_base: {NOWHERE}
    api_key_env: FAKE_WINDOW_KEY
    context_window: 128000
  - name: unmapped
    litellm_model: openai/fake-unmapped
    api_base: {NOWHERE}
    api_key_env: FAKE_WINDOW_KEY
"""
# A user profile with long lengths (issue 56 item 1's `long` profile reaches further; these suffice).
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
RUN = ["run", "--benchmark", "flenqa", "--profile", "longish"]


@pytest.fixture
def env(tmp_path, monkeypatch):
    (tmp_path / "models.yaml").write_text(MODELS_YAML)
    (tmp_path / "profiles.yaml").write_text(yaml.safe_dump(PROFILE))
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RELREASON_MODELS", str(tmp_path / "models.yaml"))
    monkeypatch.setenv("RELREASON_PROFILES", str(tmp_path / "profiles.yaml"))
    monkeypatch.setenv("FAKE_WINDOW_KEY", "sk-fake")
    monkeypatch.delenv("RELREASON_LAKE", raising=False)
    return tmp_path


def _tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir"
        for p in sorted(folder.rglob("*"))
    }


def test_a_window_too_small_for_a_length_is_one_line_and_nothing_written(env, capsys):
    before = _tree(env)
    assert main([*RUN, "--model", "small", "--model", "big"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "model 'small'" in err and "16,000-token context window (models.yaml)" in err
    assert "lengths 32000 " in err and "8000" not in err and "'big'" not in err
    assert "--skip-too-long" in err and "lengths" in err.split("--skip-too-long", 1)[1]
    assert _tree(env) == before and not (env / "home").exists()


@pytest.mark.parametrize(
    ("flag", "says"),
    [
        (["--skip-too-long"], "relreason: --skip-too-long: "),
        ([], "a run stops here without --skip-too-long: "),
    ],
)
def test_a_dry_run_says_what_a_run_would_leave_out_and_counts_it(env, capsys, flag, says):
    """A dry run is asked what a run would do: with the flag, what it leaves out; without, that it would
    stop (and how many prompts the flag would leave out)."""
    argv = [*RUN, "--model", "small", "--model", "big", "--model", "unmapped", "--dry-run", *flag]
    assert main(argv) == 0
    captured = capsys.readouterr()
    lines = [line for line in captured.err.splitlines() if "model 'small'" in line]
    assert len(lines) == 1 and says in lines[0] and "lengths 32000 " in lines[0], captured.err
    assert "'big'" not in captured.err
    rows = {line.split()[0]: line for line in captured.out.splitlines() if line.split()}
    # 3 tasks x 2 base instances at each length, one padding, position and setting: 6 prompts a length.
    assert rows["small"].split()[1] == "12" and "6 prompts over its 16,000-token window" in rows["small"]
    assert rows["big"].split()[1] == "18"
    assert "context window unknown" in rows["unmapped"]
    assert not (env / "home").exists()
