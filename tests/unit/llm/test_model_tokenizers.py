"""A models.yaml entry's own tokenizer (issue 56 item 2): checked at the door, counted offline.

The Hugging Face tokenizers here are built in the test (a word-level vocabulary over a whitespace
pre-tokenizer, so a count is a number of words and the expected numbers are read off the text); the
tiktoken counts are checked against tiktoken itself on the data LiteLLM ships.
"""

from __future__ import annotations

import pytest

from relreason_dagster.common import model_tokenizers
from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import parse_registry
from relreason_dagster.llm.request_key import request_hash
from tests.fakes.word_tokenizer import word_tokenizer_folder as _hf_folder

MESSAGES = [{"role": "user", "content": "is the cat red"}]
TEMPLATE = (
    "{% for m in messages %}{{ m['role'] }} {{ m['content'] }} {% endfor %}"
    "{% if add_generation_prompt %}assistant{% endif %}"
)


def _entry(tokenizer: str) -> dict:
    return {"models": [{"name": "m", "litellm_model": "openai/m", "tokenizer": tokenizer}]}


def test_a_folder_with_a_chat_template_counts_the_rendered_chat(tmp_path):
    folder = _hf_folder(tmp_path / "tok", TEMPLATE)
    # "user is the cat red assistant": the role, the four words and the generation prompt.
    assert model_tokenizers.count_many(str(folder), [MESSAGES]) == [6]


def test_a_bare_tokenizer_json_counts_the_contents(tmp_path):
    folder = _hf_folder(tmp_path / "bare", None)
    assert model_tokenizers.count_many(str(folder / "tokenizer.json"), [MESSAGES]) == [4]
    assert model_tokenizers.count_many(str(folder), [MESSAGES, [{"role": "user", "content": "red"}]]) == [
        4,
        1,
    ]


def test_tiktoken_counts_the_contents_and_openais_chat_overhead():
    import litellm.litellm_core_utils.default_encoding  # noqa: F401  (TIKTOKEN_CACHE_DIR: LiteLLM's copy)
    import tiktoken

    words = len(tiktoken.get_encoding("o200k_base").encode("is the cat red"))
    assert model_tokenizers.count_many("tiktoken:o200k_base", [MESSAGES]) == [words + 3 + 3]


def test_an_encoding_whose_data_are_not_installed_is_refused_without_a_download(tmp_path, monkeypatch):
    import requests

    def no_network(*args, **kwargs):
        raise AssertionError(f"a download was attempted: {args}")

    monkeypatch.setattr(requests, "get", no_network)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))  # an empty folder: no encoding's data
    model_tokenizers._tiktoken.cache_clear()
    with pytest.raises(ConfigError, match=r"^tokenizer tiktoken:r50k_base: its data are not installed"):
        model_tokenizers.check_tokenizer("tiktoken:r50k_base")


@pytest.mark.parametrize(
    ("name", "says"),
    [
        ("tiktoken:nope", r"models\[0\]\.tokenizer: tokenizer tiktoken:nope: unknown encoding; use one of "),
        ("{missing}", r"models\[0\]\.tokenizer: tokenizer .*missing: no such file or folder; give a local"),
        ("{empty}", r"models\[0\]\.tokenizer: tokenizer .*empty: no tokenizer.json in that folder; give a"),
        ("{junk}", r"models\[0\]\.tokenizer: tokenizer .*junk.json: not a Hugging Face tokenizer.json"),
    ],
)
def test_a_bad_tokenizer_is_one_line_at_the_door(tmp_path, name, says):
    (tmp_path / "empty").mkdir()
    (tmp_path / "junk.json").write_text("{}", encoding="utf-8")
    name = name.format(missing=tmp_path / "missing", empty=tmp_path / "empty", junk=tmp_path / "junk")
    name = name.replace("junk", "junk.json") if name.endswith("junk") else name
    with pytest.raises(ConfigError, match=r"^models\.yaml: " + says) as raised:
        parse_registry(_entry(name), "models.yaml")
    assert "\n" not in str(raised.value)


def test_a_named_tokenizer_is_kept_and_changes_no_request_hash(tmp_path):
    folder = _hf_folder(tmp_path / "tok", TEMPLATE)
    spec = parse_registry(_entry(str(folder)), "models.yaml")["m"]
    assert spec.tokenizer == str(folder)
    plain = spec.model_copy(update={"tokenizer": None})
    assert request_hash(spec, MESSAGES, 16) == request_hash(plain, MESSAGES, 16)
