"""Bad input to `relreason` ends in one line on stderr, exit status 2, no traceback."""

from __future__ import annotations

import pytest

from relreason_dagster.cli import main

GOOD_YAML = """\
models:
  - name: local
    litellm_model: local/smollm2-135m
  - name: keyed
    litellm_model: openai/gpt-4o-mini
    api_key_env: RELREASON_TEST_SURELY_UNSET_KEY
"""


@pytest.fixture
def env(tmp_path, monkeypatch):
    models = tmp_path / "models.yaml"
    models.write_text(GOOD_YAML)
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RELREASON_MODELS", str(models))
    monkeypatch.delenv("RELREASON_TEST_SURELY_UNSET_KEY", raising=False)
    return tmp_path


def _one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def test_unknown_model_lists_known_ones(env, capsys):
    err = _one_line_error(capsys, ["run", "--model", "nope"])
    assert "nope" in err and "local" in err and "keyed" in err


def test_unknown_benchmark_lists_known_ones(env, capsys):
    err = _one_line_error(capsys, ["run", "--model", "local", "--benchmark", "chess"])
    assert "chess" in err and "relational" in err


def test_unknown_profile_lists_known_ones(env, capsys):
    err = _one_line_error(capsys, ["run", "--model", "local", "--profile", "huge"])
    assert "huge" in err and "smoke" in err and "paper" in err


def test_missing_api_key_names_the_variable(env, capsys):
    err = _one_line_error(capsys, ["run", "--model", "keyed"])
    assert "RELREASON_TEST_SURELY_UNSET_KEY" in err


def test_malformed_models_yaml_names_file_and_field(env, capsys):
    (env / "models.yaml").write_text("models:\n  - name: x\n    litellm_model: a/b\n    concurrency: lots\n")
    err = _one_line_error(capsys, ["models", "list"])
    assert "models.yaml" in err and "concurrency" in err


def test_unparseable_models_yaml(env, capsys):
    (env / "models.yaml").write_text("models: [unclosed\n")
    err = _one_line_error(capsys, ["models", "list"])
    assert "models.yaml" in err


def test_unwritable_home(env, capsys, monkeypatch):
    blocker = env / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RELREASON_HOME", str(blocker / "home"))
    # One benchmark without a judge step: this file's registry has no judge for Self-Contra's.
    err = _one_line_error(capsys, ["run", "--model", "local", "--benchmark", "relational"])
    assert "RELREASON_HOME" in err


def test_bad_param_in_models_add(env, capsys):
    err = _one_line_error(capsys, ["models", "add", "x", "openai/x", "--param", "temperature"])
    assert "KEY=VALUE" in err


def test_duplicate_model_add(env, capsys):
    err = _one_line_error(capsys, ["models", "add", "local", "openai/x"])
    assert "local" in err


def test_sql_before_any_run(env, capsys):
    err = _one_line_error(capsys, ["sql", "select 1"])
    assert "relreason demo" in err


def test_models_add_then_list(env, capsys):
    assert (
        main(
            [
                "models",
                "add",
                "gpt",
                "openai/gpt-4o",
                "--api-key-env",
                "OPENAI_API_KEY",
                "--param",
                "temperature=0",
                "--concurrency",
                "8",
                "--workers",
                "2",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "gpt" in out and "openai/gpt-4o" in out and "OPENAI_API_KEY" in out
    header, *rows = (line.split() for line in out.splitlines())
    gpt_row = next(row for row in rows if row[:2] == ["gpt", "openai/gpt-4o"])
    assert "workers" in header and gpt_row[3:5] == ["8", "2"], out
    # Each model's transport is said (issue 46): no api_base, so LiteLLM.
    assert header[5] == "transport" and gpt_row[5] == "litellm", out


def test_bad_train_size_is_one_line(env, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["run", "--model", "dlm", "--train-size", "0"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--train-size" in err and "positive integer" in err


def test_train_size_is_for_dlm_only(env, capsys):
    err = _one_line_error(capsys, ["run", "--model", "local", "--train-size", "20"])
    assert "--train-size" in err and "dlm" in err


def test_dlm_is_a_reserved_model_name(env, capsys):
    (env / "models.yaml").write_text("models:\n  - name: dlm\n    litellm_model: a/b\n")
    err = _one_line_error(capsys, ["models", "list"])
    assert "dlm" in err and "built-in" in err
