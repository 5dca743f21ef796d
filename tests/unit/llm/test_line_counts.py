"""A prompt counted in parts (each distinct part once) has exactly the tokens of the prompt counted whole.

Why a test of its own: the prompts step counts every prompt in the default tokenizer through
``chat_prompt_tokens_many``, which sums the counts of parts cut before each newline that follows a
non-space character and before the space after a sentence's end (``common/tokenizer._line_counts``).
That is exact only for a pre-tokenizer whose pieces never cross those cuts; this compares it with
llama.cpp tokenizing the whole text, on every family's generated prompts and on texts built to break it
(spaces, no-break spaces and carriage returns before a newline, sentence ends before digits and double
spaces, special tokens, an empty message).
"""

from __future__ import annotations

import random

import pytest

from relreason_dagster.benchmarks.registry import family_names, get_family
from relreason_dagster.common import tokenizer
from relreason_dagster.profiles import get_profile


def _whole(messages: list[list[dict[str, str]]]) -> list[int]:
    """Each prompt tokenized in one piece, as before the line cut."""
    llm, formatter = tokenizer._chat_tools(str(tokenizer.resolve_gguf(tokenizer.DEFAULT_TOKENIZER)))
    texts = [tokenizer._chat_text(formatter, m) for m in messages]
    return [len(llm.tokenize(text, add_bos=add_bos, special=True)) for text, add_bos in texts]


def test_the_default_vocabulary_is_one_the_line_cut_is_measured_on():
    llm, _ = tokenizer._chat_tools(str(tokenizer.resolve_gguf(tokenizer.DEFAULT_TOKENIZER)))
    assert llm.metadata.get("tokenizer.ggml.pre") in tokenizer.LINE_ADDITIVE_PRE


@pytest.mark.parametrize("family", family_names())
def test_every_familys_smoke_prompts_count_as_whole(family):
    fam = get_family(family)
    profile = get_profile("smoke", family)
    messages = [p.messages for p in fam.build_prompts(fam.generate(profile, 0), profile)]
    assert messages
    assert tokenizer.chat_prompt_tokens_many(messages) == _whole(messages)


PIECES = [
    "Alice is the mother of Bob.",
    "\n",
    "\n\n",
    " \n",
    "\u00a0\n",  # a no-break space before a newline: whitespace to the tokenizer, so no cut there
    "\r\n",
    "42\n",
    "x.\n",
    "  ",
    "<|im_end|>",
    "<|im_start|>user\n",
    "∀x Ünïcode",
    "edge(3,7)\n\n",
    "\t\n",
    "«quoted»\n",
    "Hi. There",
    "x. 42",
    "a.  b",
    "e.g. Ünïcode",
    ". \n",
    "Why? Because! So.",
    " Ok.",
    ".\u00a0Next",
    "'s. It",
]


def test_texts_built_to_break_the_cut_count_as_whole():
    rng = random.Random(11)
    messages = [[{"role": "user", "content": ""}], [{"role": "user", "content": "\n"}]]
    for _ in range(400):
        text = "".join(rng.choice(PIECES) for _ in range(rng.randint(1, 40)))
        messages.append([{"role": "system", "content": "Answer."}, {"role": "user", "content": text}])
    assert tokenizer.chat_prompt_tokens_many(messages) == _whole(messages)


def test_a_vocabulary_not_measured_is_counted_whole(monkeypatch):
    calls: list[int] = []
    real = tokenizer._line_counts

    def spy(texts, count):
        calls.append(len(texts))
        return real(texts, count)

    monkeypatch.setattr(tokenizer, "_line_counts", spy)
    prompts = [[{"role": "user", "content": "a.\nb.\nc."}]]
    expected = _whole(prompts)
    assert tokenizer.chat_prompt_tokens_many(prompts) == expected and calls == [1]
    monkeypatch.setattr(tokenizer, "LINE_ADDITIVE_PRE", frozenset())
    assert tokenizer.chat_prompt_tokens_many(prompts) == expected and calls == [1]  # not cut this time
