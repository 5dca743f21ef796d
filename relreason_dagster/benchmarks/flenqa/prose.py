"""Cohesive unrelated prose for the *different* padding, from text already on the machine.

The study padded with the Books Corpus, which cannot be downloaded here.  The
default source is the prose of the Python reference documentation that ships
inside CPython itself (``pydoc_data.topics``, ~25k tokens after filtering):
paragraphs are cohesive and have nothing to do with people, rooms or
comparisons.  A folder of ``.txt`` files (for example a local copy of
BookCorpus) replaces it: set the flenqa section's ``prose_dir`` in your profile
file; paragraphs are separated by blank lines.

Filtering keeps only prose paragraphs: not indented (code, grammar), at least
200 characters, ending with a full stop, without code markers or sentences over
400 characters (attribute lists), and without the
words "true"/"false", which the answer parser would otherwise meet in the input
and which would make the padding comment on the answer.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from relreason_dagster.errors import ConfigError

PROSE_KNOB = "prose_dir"  # the flenqa profile knob naming a folder of .txt files
BUILTIN = "python-docs"

_CODE = re.compile(r'>>>|::=|\*\*\*|""|[{}\[\]=]|\btrue\b|\bfalse\b', re.IGNORECASE)
MAX_SENTENCE_CHARS = 400
_EMPHASIS = re.compile(r"\*(\w(?:[\w '-]*\w)?)\*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(])")

Document = list[list[str]]  # paragraphs of sentences


def split_sentences(paragraph: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(paragraph) if s]


def _clean_paragraphs(text: str) -> list[list[str]]:
    out = []
    for block in re.split(r"\n\s*\n", text):
        if not block.strip() or block[:1].isspace():
            continue
        # *emphasis* loses its stars; a paragraph with any other star ("*" the operator) is code-like.
        paragraph = " ".join(_EMPHASIS.sub(r"\1", block).split())
        if len(paragraph) < 200 or not paragraph.endswith(".") or _CODE.search(paragraph) or "*" in paragraph:
            continue
        sentences = split_sentences(paragraph)
        if max(len(x) for x in sentences) > MAX_SENTENCE_CHARS:  # attribute lists, not prose
            continue
        out.append(sentences)
    return out


@functools.lru_cache(maxsize=4)
def load_prose(source: str = BUILTIN) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Documents (tuples of paragraphs of sentences) from ``source``: ``python-docs`` or a folder."""
    texts: list[str]
    if source == BUILTIN:
        try:
            from pydoc_data.topics import topics
        except ImportError:
            raise ConfigError(
                "this Python has no pydoc_data; "
                f"set the flenqa profile's {PROSE_KNOB} to a folder of .txt files"
            ) from None
        texts = [topics[k] for k in sorted(topics)]
    else:
        folder = Path(source).expanduser()
        files = sorted(folder.rglob("*.txt")) if folder.is_dir() else []
        if not files:
            raise ConfigError(
                f"FLenQA prose folder {folder} has no .txt files; "
                f"set the flenqa profile's {PROSE_KNOB} to one that has"
            )
        texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    documents = [tuple(tuple(p) for p in _clean_paragraphs(t)) for t in texts]
    documents = [d for d in documents if d]
    if sum(len(s) for d in documents for p in d for s in p) < 20_000:
        raise ConfigError(f"FLenQA prose source {source!r} has under 20,000 characters of usable prose")
    return tuple(documents)


def prose_source(profile_value: str | None = None) -> str:
    """The configured source: the profile's ``prose_dir``, else the built-in docs."""
    return profile_value or BUILTIN
