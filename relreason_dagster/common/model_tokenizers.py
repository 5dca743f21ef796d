"""A model's own tokenizer, named by its models.yaml entry (``tokenizer:``): prompts counted as it counts.

relreason builds and counts every prompt in one tokenizer (:data:`~relreason_dagster.common.tokenizer.
DEFAULT_TOKENIZER`, SmolLM2's); a 3,000-token FLenQA target is a different length for every other
model.  An entry may therefore name its tokenizer, and each prompt is also counted in it
(``raw.prompt_tokens``), beside the provider's own ``prompt_tokens`` that every reply reports.

Two kinds of name, both read from files on this machine (never downloaded at run time):

- a local Hugging Face tokenizer: a folder holding ``tokenizer.json`` (and, optionally,
  ``tokenizer_config.json`` with the model's ``chat_template``), or a ``tokenizer.json`` file;
- ``tiktoken:<encoding>`` (``tiktoken:o200k_base``) where tiktoken and that encoding's data are
  installed.  The data are read from ``TIKTOKEN_CACHE_DIR``, by default the copy LiteLLM ships
  (``cl100k_base``, ``o200k_base``, ``p50k_base`` ...); an encoding whose data are not there is an
  error at the door, never a download: tiktoken's fetch is replaced by a refusal while it loads.

Chat messages are counted as the model reads them as closely as the files allow: a Hugging Face
folder with a ``chat_template`` renders it (generation prompt included); a bare ``tokenizer.json``
counts the messages' contents; tiktoken adds OpenAI's published overhead of its chat format (3 tokens
per message and 3 priming the reply).  The provider's ``prompt_tokens`` is the ground truth; this is
the count relreason can make before asking.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from relreason_dagster.errors import ConfigError

TIKTOKEN_PREFIX = "tiktoken:"
# OpenAI's chat format: every message costs 3 tokens around its content, and 3 prime the reply.
TIKTOKEN_PER_MESSAGE = 3
TIKTOKEN_REPLY_PRIMER = 3
FIX = "give a local Hugging Face tokenizer folder or tokenizer.json file, or tiktoken:<encoding>"

_lock = threading.Lock()


class _Offline(Exception):
    """tiktoken asked for data that are not installed (raised instead of a download)."""


def _litellm_tiktoken_dir() -> str | None:
    """The folder of tiktoken data LiteLLM ships, found without importing LiteLLM (slow, and not
    needed to count)."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "litellm_core_utils" / "tokenizers"
    return str(folder) if folder.is_dir() else None


def tiktoken_encodings() -> list[str]:
    """The encodings tiktoken knows by name (whether their data are installed or not)."""
    try:
        import tiktoken
    except ModuleNotFoundError:
        return []
    return sorted(tiktoken.list_encoding_names())


@functools.lru_cache(maxsize=8)
def _tiktoken(encoding: str) -> Any:
    """The tiktoken Encoding ``encoding``, loaded from installed data only."""
    try:
        import tiktoken
        import tiktoken.load
    except ModuleNotFoundError:
        raise ConfigError(
            f"tokenizer tiktoken:{encoding} needs the tiktoken package; pip install it"
        ) from None
    known = tiktoken_encodings()
    if encoding not in known:
        raise ConfigError(f"tokenizer tiktoken:{encoding}: unknown encoding; use one of {', '.join(known)}")
    if "TIKTOKEN_CACHE_DIR" not in os.environ and "DATA_GYM_CACHE_DIR" not in os.environ:
        shipped = _litellm_tiktoken_dir()
        if shipped:
            os.environ["TIKTOKEN_CACHE_DIR"] = shipped  # what LiteLLM sets on import, too

    def refuse(blobpath: str) -> bytes:
        if "://" in blobpath:
            raise _Offline(blobpath)
        with open(blobpath, "rb") as f:
            return f.read()

    with _lock:
        fetch = tiktoken.load.read_file
        tiktoken.load.read_file = refuse  # type: ignore[assignment]
        try:
            return tiktoken.get_encoding(encoding)
        except _Offline:
            raise ConfigError(
                f"tokenizer tiktoken:{encoding}: its data are not installed (nothing is downloaded at run "
                f"time); set TIKTOKEN_CACHE_DIR to a folder holding them or use one whose data are there"
            ) from None
        finally:
            tiktoken.load.read_file = fetch  # type: ignore[assignment]


@functools.lru_cache(maxsize=8)
def _hf(path: str) -> tuple[Any, Any]:
    """The Hugging Face tokenizer at ``path`` and its chat template renderer (None: no template)."""
    from tokenizers import Tokenizer

    where = Path(path)
    file = where / "tokenizer.json" if where.is_dir() else where
    try:
        tokenizer = Tokenizer.from_file(str(file))
    except Exception as exc:  # the library raises a bare Exception on a bad file
        raise ConfigError(f"tokenizer {path}: not a Hugging Face tokenizer.json ({exc}); {FIX}") from None
    config_file = file.parent / "tokenizer_config.json"
    template = None
    if config_file.is_file():
        config = json.loads(config_file.read_text(encoding="utf-8"))
        if isinstance(config.get("chat_template"), str):
            template = _template(config)
    return tokenizer, template


def _special(config: dict[str, Any], key: str) -> str:
    value = config.get(key)
    if isinstance(value, dict):
        value = value.get("content")
    return value if isinstance(value, str) else ""


def _template(config: dict[str, Any]) -> Callable[[Sequence[dict[str, Any]]], str]:
    """The folder's chat template as a function of the messages (rendered as transformers renders it)."""
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    compiled = env.from_string(config["chat_template"])
    bos, eos = _special(config, "bos_token"), _special(config, "eos_token")

    def render(messages: Sequence[dict[str, Any]]) -> str:
        return compiled.render(
            messages=list(messages), add_generation_prompt=True, bos_token=bos, eos_token=eos
        )

    return render


def check_tokenizer(name: str) -> str:
    """``name`` checked (its files exist and load); the name to store.  A bad one is a one-line error."""
    if name.startswith(TIKTOKEN_PREFIX):
        _tiktoken(name[len(TIKTOKEN_PREFIX) :])
        return name
    path = Path(name).expanduser()
    if path.is_dir():
        if not (path / "tokenizer.json").is_file():
            raise ConfigError(f"tokenizer {name}: no tokenizer.json in that folder; {FIX}")
    elif not path.is_file():
        raise ConfigError(f"tokenizer {name}: no such file or folder; {FIX}")
    _hf(str(path.resolve()))
    return name


def counter(name: str) -> Callable[[Sequence[dict[str, Any]]], int]:
    """Chat-message token counts in the tokenizer ``name`` (a models.yaml ``tokenizer:`` value)."""
    check_tokenizer(name)
    if name.startswith(TIKTOKEN_PREFIX):
        encoding = _tiktoken(name[len(TIKTOKEN_PREFIX) :])

        def count_tiktoken(messages: Sequence[dict[str, Any]]) -> int:
            body = sum(
                len(encoding.encode(str(m.get("content") or ""), disallowed_special=())) for m in messages
            )
            return body + TIKTOKEN_PER_MESSAGE * len(messages) + TIKTOKEN_REPLY_PRIMER

        return count_tiktoken
    tokenizer, template = _hf(str(Path(name).expanduser().resolve()))

    def count_hf(messages: Sequence[dict[str, Any]]) -> int:
        if template is not None:
            return len(tokenizer.encode(template(messages), add_special_tokens=False).ids)
        return sum(
            len(tokenizer.encode(str(m.get("content") or ""), add_special_tokens=False).ids) for m in messages
        )

    return count_hf


def count_many(name: str, batch: Sequence[Sequence[dict[str, Any]]]) -> list[int]:
    """:func:`counter` over ``batch`` (the tokenizers release the GIL; one thread is enough here)."""
    count = counter(name)
    return [count(messages) for messages in batch]
