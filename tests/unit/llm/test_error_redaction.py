"""API keys never stored: which values count as secrets, and the gateway redacting a provider's echo.

A fake OpenAI server (named as such: a scripted stand-in for a provider) answers a scripted 401 with
"Incorrect API key provided: <the bearer token it was sent>", as some providers do; before, that
text was stored verbatim in the lake and republished by the report, the exports and ``samples``.
"""

from __future__ import annotations

import litellm
import pytest

from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.provider_errors import error_text
from relreason_dagster.llm.redaction import MIN_SECRET_CHARS, Redactor, redactor_for, secrets_of
from relreason_dagster.llm.registry import ModelEntry
from tests.fakes.openai_server import FakeOpenAIServer, prompt_key

KEY = "sk-proj-Zq7rT4pLx9Wm2Nc8Vb1Hd5Kf3Gs6Ja0Yu"
OTHER_KEY = "sk-ant-api03-Qw8Er7Ty6Ui5Op4As3Df2Gh1Jk"

MODELS_YAML = """\
models:
  - name: echo-401
    litellm_model: openai/fake-model
    api_key_env: RELREASON_TEST_ECHO_KEY
  - name: another
    litellm_model: openai/another-model
    api_key_env: RELREASON_TEST_OTHER_SECRET_VAR
"""


def test_secrets_are_registry_keys_and_credential_variables():
    env = {
        "RELREASON_TEST_ECHO_KEY": KEY,  # named in the registry
        "MY_PROVIDER_CREDS": "abcdef123456",  # named in the registry, name says nothing
        "OPENAI_API_KEY": "sk-live-0123456789",  # credential-named: LiteLLM reads it on its own
        "HF_TOKEN": "hf_abcdefgh12345",
        "SHORT_API_KEY": "x" * (MIN_SECRET_CHARS - 1),  # too short to be a key; redacting it mangles text
        "TOKENIZERS_PARALLELISM": "disabled",  # a plain word
        "SSL_KEY_FILE": "/etc/ssl/private/key.pem",  # a path
        "HOME": "/home/user",
        "PATH": "/usr/bin:/bin",
    }
    redactor = secrets_of(env, {"RELREASON_TEST_ECHO_KEY", "MY_PROVIDER_CREDS"})
    assert {name for _, name in redactor.secrets} == {
        "RELREASON_TEST_ECHO_KEY",
        "MY_PROVIDER_CREDS",
        "OPENAI_API_KEY",
        "HF_TOKEN",
    }
    text = f"bad key {KEY}; also abcdef123456 and sk-live-0123456789 and xxxxxxx, disabled"
    assert redactor(text) == (
        "bad key [redacted RELREASON_TEST_ECHO_KEY]; also [redacted MY_PROVIDER_CREDS] and "
        "[redacted OPENAI_API_KEY] and xxxxxxx, disabled"
    )
    assert redactor(None) is None and redactor("") == ""


def test_a_key_inside_a_longer_key_does_not_leave_a_tail():
    redactor = secrets_of({"A_API_KEY": "sk-12345678", "B_API_KEY": "sk-12345678-suffix"}, ())
    assert redactor("sk-12345678-suffix") == "[redacted B_API_KEY]"


def test_the_error_text_is_redacted_before_it_is_shortened():
    """A key near the 500-character cut must not survive as a prefix of itself."""
    redactor = Redactor(((KEY, "RELREASON_TEST_ECHO_KEY"),))
    error = error_text("authentication", Exception("x" * 480 + KEY + " tail"), redactor)
    assert error.endswith("[redacted RELREAS...")  # the label may be cut; the key is gone
    assert not any(KEY[i : i + 8] in error for i in range(len(KEY) - 7)), error


def test_every_registry_key_is_redacted_not_only_the_running_models(tmp_path, monkeypatch):
    models = tmp_path / "models.yaml"
    models.write_text(MODELS_YAML)
    monkeypatch.setenv("RELREASON_MODELS", str(models))
    monkeypatch.setenv("RELREASON_TEST_ECHO_KEY", KEY)
    monkeypatch.setenv("RELREASON_TEST_OTHER_SECRET_VAR", OTHER_KEY)
    spec = ModelEntry(
        name="echo-401", litellm_model="openai/fake-model", api_key_env="RELREASON_TEST_ECHO_KEY"
    )
    redactor = redactor_for(spec)
    assert redactor(f"{KEY} {OTHER_KEY}") == (
        "[redacted RELREASON_TEST_ECHO_KEY] [redacted RELREASON_TEST_OTHER_SECRET_VAR]"
    )


@pytest.mark.integration
@pytest.mark.parametrize("transport", ["direct", "litellm"])
def test_an_echoed_key_is_stored_redacted(tmp_path, duck, store, monkeypatch, capfd, transport):
    """A 401 that echoes the key and an answer that quotes another model's key: neither is stored."""
    models = tmp_path / "models.yaml"
    models.write_text(MODELS_YAML)
    monkeypatch.setenv("RELREASON_MODELS", str(models))
    monkeypatch.setenv("RELREASON_TEST_ECHO_KEY", KEY)
    monkeypatch.setenv("RELREASON_TEST_OTHER_SECRET_VAR", OTHER_KEY)
    prompts = [
        {"prompt_id": f"k{i}", "messages": [{"role": "user", "content": f"q{i}"}], "max_tokens": 8}
        for i in range(6)
    ]
    refused = {prompt_key(p["messages"]) for p in prompts[:3]}

    def faults(key: str, _attempt: int) -> int:
        return 401 if key in refused else 200

    with FakeOpenAIServer(faults=faults, responder=lambda messages: f"I was told {OTHER_KEY}") as server:
        spec = ModelEntry(
            name="echo-401",
            litellm_model="openai/fake-model",
            api_base=server.api_base,
            api_key_env="RELREASON_TEST_ECHO_KEY",
            timeout_s=120,
            max_attempts=2,
            transport=transport,
        )
        stats = run_model(store, spec, prompts)
        assert len(server.entries()) == len(prompts)  # a 401 is not retried
    assert stats.error_kinds == {"authentication": 3}
    rows = duck.execute(
        "SELECT prompt_id, content, error FROM raw.responses WHERE model = 'echo-401' ORDER BY prompt_id"
    ).fetchall()
    assert len(rows) == len(prompts)
    for pid, content, error in rows[:3]:
        assert error.startswith("authentication: ") and "[redacted RELREASON_TEST_ECHO_KEY]" in error, error
        assert content is None, pid
    for _pid, content, error in rows[3:]:
        assert error is None and content == "I was told [redacted RELREASON_TEST_OTHER_SECRET_VAR]"
    stored = b"".join(path.read_bytes() for path in (tmp_path / "lake").rglob("*") if path.is_file())
    for secret in (KEY, OTHER_KEY):
        assert secret.encode() not in stored
        assert secret[8:].encode() not in stored  # nor a tail of it
    out, err = capfd.readouterr()
    assert KEY not in out + err and OTHER_KEY not in out + err
    if transport == "litellm":
        assert litellm.suppress_debug_info  # the gateway keeps LiteLLM's own error printing off
