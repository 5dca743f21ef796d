"""Prompt text stored once: each distinct line of a prompt set kept one time, a prompt as line numbers.

Why: a long-context profile pads every prompt with thousands of tokens drawn from one finite source
(FLenQA: the sample's own key paragraphs, other instances' key paragraphs, or windows of one prose
corpus), and asks each padded text in three settings.  Stored whole, the lake grows with prompts x
length (hundreds of megabytes at 64k tokens); stored as distinct lines plus references, it grows with
the distinct text.  Parquet's dictionary encoding alone cannot do this: it dedupes exactly equal
values, and two prompts share most of their paragraphs but are never equal.

The unit is a line of the messages' JSON text: the string is cut at every ``\\n`` escape (the two
characters a newline becomes inside a JSON string), which is where FLenQA (and every family) joins its
paragraphs.  Cutting a string at a separator and joining the pieces with the same separator gives the
same string back, byte for byte, whatever the text holds (a literal backslash before an ``n`` included):
so ``prompt_id``, the request hash and every reader see exactly the messages that were built.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

# A newline inside a JSON string: where paragraphs join, so where prompts share their text.
SEPARATOR = "\\n"


class TextTable:
    """The distinct lines of a prompt set in order of first use, and each prompt's line numbers."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._index: dict[str, int] = {}

    def add(self, messages_json: str) -> list[int]:
        """The line numbers of ``messages_json``, adding the lines not stored yet."""
        refs = []
        for line in messages_json.split(SEPARATOR):
            number = self._index.get(line)
            if number is None:
                number = self._index[line] = len(self.lines)
                self.lines.append(line)
            refs.append(number)
        return refs

    @property
    def size(self) -> int:
        """The UTF-8 bytes of the distinct lines: what the prompt set's text costs stored once."""
        return distinct_text_bytes(self.lines)


def join(refs: Sequence[int], lines: Sequence[str]) -> str:
    """The messages' JSON text that :meth:`TextTable.add` cut into ``refs``."""
    return SEPARATOR.join(lines[i] for i in refs)


def distinct_text_bytes(texts: Iterable[str]) -> int:
    """The bytes (UTF-8) of the distinct lines of ``texts``: the yardstick the lake's size is held to."""
    seen: set[str] = set()
    total = 0
    for text in texts:
        for line in text.split(SEPARATOR):
            if line not in seen:
                seen.add(line)
                total += len(line.encode("utf-8"))
    return total
