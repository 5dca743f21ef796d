"""Reading FLenQA responses: the answer (Appendix D.3), answer-first CoT, key-fact coverage (D.4).

- Answer: the last "true" or "false" (any case, any markdown around it) decides;
  "not true" reads as false; neither word is a refusal.
- Answer before reasoning (§7): in a CoT response, the first true/false word comes
  within the first ``ANSWER_FIRST_WORDS`` words and at least ``MIN_REASONING_WORDS``
  words of reasoning follow it.  (The study gives no operational rule; this one
  flags "False. Because ..." and not a final "... so the answer is False.")
- Coverage: a key sentence is covered when its normalized form (lower case,
  punctuation dropped, whitespace collapsed) is a substring of the normalized
  response; full coverage means both key sentences.
- Next word (§5): the first word of the response against the gold word, both normalized.

All of it is linear-time regex or string search over at most ``MAX_CHARS`` characters.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

MAX_CHARS = 100_000
ANSWER_FIRST_WORDS = 12
MIN_REASONING_WORDS = 15

_ANSWER = re.compile(r"\b(not\s+)?(true|false)\b", re.IGNORECASE)
_WORD = re.compile(r"[\w’'-]+")
_NON_WORD = re.compile(r"[^\w]+")


@dataclass(frozen=True)
class Answer:
    """``value`` is True, False or None (refused); ``position`` is the character offset of the decider."""

    value: bool | None
    position: int | None = None


def read_answer(text: Any) -> Answer:
    if not isinstance(text, str) or not text.strip():
        return Answer(None)
    text = text[-MAX_CHARS:]
    last = None
    for last in _ANSWER.finditer(text):  # noqa: B007 - the last match decides
        pass
    if last is None:
        return Answer(None)
    negated, word = last.group(1), last.group(2).lower()
    value = (word == "true") != bool(negated)
    return Answer(value, last.start())


def answer_first(text: Any) -> bool:
    """A CoT response that states true/false before its reasoning."""
    if not isinstance(text, str):
        return False
    words = _WORD.findall(text[:MAX_CHARS])
    for i, word in enumerate(words[:ANSWER_FIRST_WORDS]):
        if word.lower() in ("true", "false"):
            return len(words) - i - 1 >= MIN_REASONING_WORDS
    return False


def normalize(text: str) -> str:
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def coverage(text: Any, key_sentences: list[str]) -> int:
    """How many of the key sentences the response reproduces (normalized substring match)."""
    if not isinstance(text, str):
        return 0
    haystack = f" {normalize(text[:MAX_CHARS])} "
    return sum(1 for s in key_sentences if f" {normalize(s)} " in haystack)


def first_word(text: Any) -> str | None:
    if not isinstance(text, str):
        return None
    match = _WORD.search(text[:MAX_CHARS])
    return normalize(match.group(0)) if match else None
