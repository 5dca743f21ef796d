"""models.yaml parsing: good files load, every malformation is one clear line."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import (
    ModelEntry,
    add_model,
    enabled_models,
    get_model,
    load_registry,
    require_api_key,
)
from relreason_dagster.paths import REPO_ROOT

GOOD = """\
# top comment
models:
  # the local one
  - name: small
    litellm_model: local/smollm2-135m
    params: {temperature: 0, seed: 0, max_tokens: 256}
    concurrency: 1
  - name: gpt
    litellm_model: openai/gpt-4o-mini
    api_key_env: OPENAI_API_KEY
    enabled: false
    timeout_s: 30
    max_attempts: 3
    context_window: 128000
    workers: 2
  - name: vllm
    litellm_model: hosted_vllm/meta-llama/Llama-3.1-8B-Instruct
    api_base: http://localhost:8000/v1
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "models.yaml"
    path.write_text(textwrap.dedent(text))
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_registry(path)
    message = str(info.value)
    assert "\n" not in message, message
    assert "models.yaml" in message, message
    return message


def test_good_file_loads(tmp_path):
    specs = load_registry(write(tmp_path, GOOD))
    assert list(specs) == ["small", "gpt", "vllm"]
    small = specs["small"]
    assert small == ModelEntry(
        name="small",
        litellm_model="local/smollm2-135m",
        params={"temperature": 0, "seed": 0, "max_tokens": 256},
        concurrency=1,
    )
    gpt = specs["gpt"]
    assert (gpt.enabled, gpt.timeout_s, gpt.max_attempts, gpt.context_window) == (False, 30.0, 3, 128000)
    assert gpt.api_key_env == "OPENAI_API_KEY" and gpt.workers == 2
    assert specs["vllm"].api_base == "http://localhost:8000/v1"
    assert specs["vllm"].concurrency == 4  # default
    assert specs["vllm"].workers == 1  # default: the calls run in the run's own process
    assert list(enabled_models(write(tmp_path, GOOD))) == ["small", "vllm"]


def test_repo_models_yaml_is_valid():
    specs = load_registry(REPO_ROOT / "models.yaml")
    spec = specs["smollm2-135m"]
    assert spec.enabled and spec.litellm_model == "local/smollm2-135m" and spec.concurrency == 1
    assert spec.params == {"temperature": 0, "seed": 0, "max_tokens": 256}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    concurrency: abc\n",
            "models[0].concurrency: expected a positive integer, got 'abc'",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n"
            "  - name: b\n    litellm_model: x/y\n    concurrency: 0\n",
            "models[1].concurrency: expected a positive integer, got 0",
        ),
        ("models:\n  - name: a\n", "models[0].litellm_model: missing required field"),
        ("models:\n  - litellm_model: x/y\n", "models[0].name: missing required field"),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n  - name: a\n    litellm_model: x/z\n",
            "models[1].name: duplicate model name 'a'",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    concurency: 2\n",
            "models[0].concurency: unknown field",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    api_key: sk-123\n",
            "models[0].api_key: unknown field; keys never go in this file",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    params: {temperature: hot}\n",
            "models[0].params.temperature: expected a number, got 'hot'",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    params: {n: 2}\n",
            "models[0].params.n: several draws per request are the entry field n",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    n: 0\n",
            "models[0].n: expected 1 to 128 draws, got 0",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    params: {max_tokens: -1}\n",
            "models[0].params.max_tokens: expected a positive integer, got -1",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    params: [1, 2]\n",
            "models[0].params: expected a mapping",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    enabled: yes please\n",
            "models[0].enabled: expected true or false, got 'yes please'",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    timeout_s: -3\n",
            "models[0].timeout_s: expected a positive number of seconds, got -3",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    api_base: localhost\n",
            "models[0].api_base: expected an http(s) URL",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    api_key_env: sk-secret-key\n",
            "models[0].api_key_env: expected the NAME of an environment variable",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    workers: 0\n",
            "models[0].workers: expected a positive integer, got 0",
        ),
        (
            "models:\n  - name: a\n    litellm_model: x/y\n    workers: 17\n",
            "models[0].workers: expected at most 16 processes, got 17",
        ),
        (
            "models:\n  - name: a\n    litellm_model: local/smollm2-135m\n    workers: 2\n",
            "models[0].workers: a local model runs in this process",
        ),
        ("models:\n  - name: a b\n    litellm_model: x/y\n", "models[0].name: expected a name"),
        (
            "models:\n  - name: a\n    litellm_model: 42\n",
            "models[0].litellm_model: expected a LiteLLM model string",
        ),
        ("models:\n  - just a string\n", "models[0]: expected a mapping"),
        ("models: {a: 1}\n", "models: expected a list of model entries"),
        ("model:\n  - name: a\n", "model: unknown top-level field"),
        ("", "empty file"),
        ("models:\n  - name: a\n    name: b\n    litellm_model: x/y\n", "duplicate key 'name'"),
        ("models:\n  - name: a\n   litellm_model: [x\n", "invalid YAML"),
    ],
)
def test_malformed_files_give_one_line(tmp_path, monkeypatch, text, expected):
    monkeypatch.chdir(tmp_path)  # errors name the file as the user would type it
    message = error_of(write(tmp_path, text))
    assert expected in message, message
    assert message.startswith("models.yaml: "), message


def test_yaml_syntax_error_names_line(tmp_path):
    message = error_of(write(tmp_path, "models:\n  - name: a\n    litellm_model: x/y\n  bad: [\n"))
    assert "line " in message and "invalid YAML" in message


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="file not found"):
        load_registry(tmp_path / "models.yaml")


def test_get_model_unknown_lists_known(tmp_path):
    path = write(tmp_path, GOOD)
    assert get_model(path, "vllm").api_base == "http://localhost:8000/v1"
    with pytest.raises(ConfigError) as info:
        get_model(path, "nope")
    message = str(info.value)
    assert "unknown model 'nope'" in message
    assert "small, gpt (disabled), vllm" in message


def test_add_model_preserves_comments_and_rejects_duplicates(tmp_path):
    path = write(tmp_path, GOOD)
    before = path.read_text()
    spec = add_model(
        path,
        "claude",
        "anthropic/claude-3-5-haiku-latest",
        params={"temperature": 0, "max_tokens": 1024},
        concurrency=8,
        api_key_env="ANTHROPIC_API_KEY",
    )
    after = path.read_text()
    assert after.startswith(before)  # appended, nothing rewritten
    assert "# top comment" in after and "# the local one" in after
    assert spec.concurrency == 8 and spec.params == {"temperature": 0, "max_tokens": 1024}
    assert load_registry(path)["claude"] == spec
    with pytest.raises(ConfigError, match="'claude' already exists"):
        add_model(path, "claude", "anthropic/other")
    assert path.read_text() == after
    # Invalid values are refused and the file is left unchanged.
    with pytest.raises(ConfigError, match="concurrency"):
        add_model(path, "bad", "x/y", concurrency=0)
    with pytest.raises(ConfigError, match="workers"):
        add_model(path, "bad", "local/smollm2-135m", workers=2)
    assert path.read_text() == after
    split = add_model(path, "split", "hosted_vllm/m", api_base="http://127.0.0.1:8000/v1", workers=2)
    assert split.workers == 2 and load_registry(path)["split"] == split


def test_add_model_to_repo_layout_with_trailing_comments(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text((REPO_ROOT / "models.yaml").read_text())
    add_model(
        path, "mock", "openai/gpt-4o-mini", api_base="http://127.0.0.1:9/v1", api_key_env="OPENAI_API_KEY"
    )
    specs = load_registry(path)
    assert list(specs) == ["smollm2-135m", "mock"]
    assert "# - name: gpt-4o-mini" in path.read_text()


def test_add_model_creates_missing_file(tmp_path):
    path = tmp_path / "models.yaml"
    add_model(path, "one", "ollama/llama3.1", api_base="http://localhost:11434")
    assert list(load_registry(path)) == ["one"]


def test_require_api_key(monkeypatch):
    spec = ModelEntry(name="gpt4o", litellm_model="openai/gpt-4o", api_key_env="OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError) as info:
        require_api_key(spec)
    assert str(info.value) == (
        "model 'gpt4o' needs the environment variable OPENAI_API_KEY (api_key_env in models.yaml)"
    )
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert require_api_key(spec) == "sk-test"
    assert require_api_key(ModelEntry(name="x", litellm_model="local/smollm2-135m")) is None
