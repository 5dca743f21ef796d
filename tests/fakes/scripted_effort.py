"""A scripted reasoning model whose accuracy and thinking grow with ``reasoning_effort`` (issue 55,
acceptance 1), served by :class:`~tests.fakes.openai_server.FakeOpenAIServer`.

It is a script, not a model: it knows each prompt's gold answer (handed to it by the test) and returns
it when the prompt's *bucket* (a stable hash of the messages as sent, mod 10) is below the level's
threshold, and text no parser reads otherwise.  The thresholds grow with the level, so each level is
right on a superset of the items the level below it gets right: between adjacent levels the paired
McNemar counts are exactly "gained: the items whose bucket lies between the two thresholds, lost: none",
which a test computes from the prompts with :func:`is_right` instead of typing numbers.

The thinking arrives as OpenAI-style reasoning APIs send it (``message.reasoning_content`` and
``usage.completion_tokens_details.reasoning_tokens``, the server's ``"field"`` style), its length in
words (what the fake counts as tokens) fixed per level by :data:`THINKING_WORDS`, so the provider's
reasoning-token count, which the budget marts read first, is known exactly.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from tests.fakes.openai_server import FakeOpenAIServer, prompt_key

LEVELS: tuple[str, ...] = ("low", "medium", "high")
# An item is answered right at a level when its bucket (0..9) is below the level's threshold.
RIGHT_BELOW: dict[str, int] = {"low": 3, "medium": 7, "high": 9}
# Words of thinking per answer at each level (the fake server counts a word as a token).
THINKING_WORDS: dict[str, int] = {"low": 12, "medium": 48, "high": 192}
# The scripted wrong answer: text no family's parser reads as an answer (scored N/A, not right).
WRONG = "Hmm, hard to say."
_THOUGHT = "Let me re-read the rules and the facts once more before I commit to an answer.".split()


def bucket(messages: list[dict[str, Any]]) -> int:
    """The prompt's bucket, 0..9: a stable hash of the messages as sent (the fake server's prompt key)."""
    return int(prompt_key(messages), 16) % 10


def is_right(messages: list[dict[str, Any]], level: str) -> bool:
    """Whether the script answers ``messages`` with its gold answer at ``level`` (an unknown level: no)."""
    return level in RIGHT_BELOW and bucket(messages) < RIGHT_BELOW[level]


def thinking_words(level: str) -> int:
    """The length of the thinking at ``level`` (an unknown level thinks one word)."""
    return THINKING_WORDS.get(level, 1)


class ScriptedEffort:
    """The script: ``gold`` maps a prompt's last user message to its gold answer."""

    def __init__(self, gold: Mapping[str, str]) -> None:
        self.gold = dict(gold)

    def answer(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        """The gold answer where :func:`is_right` says so at the request's ``reasoning_effort``, else
        :data:`WRONG` (also for a prompt the script has no gold answer for)."""
        level = str(params.get("reasoning_effort", ""))
        if not is_right(messages, level):
            return WRONG
        return self.gold.get(str(messages[-1].get("content", "")), WRONG)

    def thinking(self, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        """:func:`thinking_words` words of thinking for the request's level (none of them an answer)."""
        words = thinking_words(str(params.get("reasoning_effort", "")))
        return " ".join(itertools.islice(itertools.cycle(_THOUGHT), words))

    def server(self, **knobs: Any) -> FakeOpenAIServer:
        """A fake OpenAI server answering every model by this script, thinking in a field of its own."""
        return FakeOpenAIServer(
            params_responder=self.answer, thinking=self.thinking, reasoning={"*": "field"}, **knobs
        )
