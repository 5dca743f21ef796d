"""Pad two key paragraphs to a token target with duplicate / similar / different text at a position.

Padding is a stream of sentences grouped in paragraphs.  It is taken in order
until the text is as close to the target as whole sentences allow, and it is cut
only at sentence or paragraph boundaries when the key paragraphs are placed
(first, middle, last, or random: two random cut points, so padding goes before,
between and after).  Token counts are summed per sentence (each counted once,
cached), paragraphs joined by one newline token; the prompts asset re-counts
every whole prompt exactly and the data-quality check compares it with the target.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

PADDINGS: tuple[str, ...] = ("duplicate", "similar", "different")
POSITIONS: tuple[str, ...] = ("first", "middle", "last", "random")
TOLERANCE = 0.05  # the issue's +-5% of the target length

Paragraph = Sequence[str]  # sentences


@dataclass(frozen=True)
class Unit:
    sentence: str
    starts_paragraph: bool
    tokens: int


@dataclass(frozen=True)
class PaddedText:
    paragraphs: list[str]
    key_index: tuple[int, int]
    estimated_tokens: int
    key_tokens: int
    key_exceeds: bool  # the key paragraphs alone are above target + 5%: no padding at all


class TokenCounter:
    """Tokens of a sentence at a paragraph start or after a space, each counted once."""

    def __init__(self, count: Callable[[str], int]) -> None:
        self._count = count
        self._cache: dict[tuple[str, bool], int] = {}
        self._units: dict[tuple[str, ...], tuple[tuple[Unit, ...], int]] = {}

    def sentence(self, text: str, starts_paragraph: bool) -> int:
        key = (text, starts_paragraph)
        value = self._cache.get(key)
        if value is None:
            value = self._count(text if starts_paragraph else " " + text)
            self._cache[key] = value
        return value

    def paragraph(self, sentences: Paragraph) -> int:
        return sum(self.sentence(s, i == 0) for i, s in enumerate(sentences))

    def units(self, sentences: Paragraph) -> tuple[tuple[Unit, ...], int]:
        """The paragraph's sentences as padding units (the first with the newline before it) and their
        total tokens, built once per paragraph: a 128k-token text takes thousands of them, and the
        same paragraphs pad many samples."""
        key = tuple(sentences)
        cached = self._units.get(key)
        if cached is None:
            units = tuple(
                Unit(s, i == 0, self.sentence(s, i == 0) + (1 if i == 0 else 0)) for i, s in enumerate(key)
            )
            cached = (units, sum(u.tokens for u in units))
            self._units[key] = cached
        return cached

    def __call__(self, text: str) -> int:
        return self._count(text)


_WORDS = re.compile(r"[A-Za-z0-9-]+")


@functools.lru_cache(maxsize=65536)
def words_of(text: str) -> frozenset[str]:
    """The words of ``text`` (apostrophes split: "John's" -> John, s), cached per text."""
    return frozenset(_WORDS.findall(text))


def entity_words(entities: Sequence[str]) -> frozenset[str]:
    """The capitalized words of an instance's entities: a text naming any of them mentions the instance."""
    return frozenset(w for e in entities for w in _WORDS.findall(e) if w[:1].isupper())


def mentions(text: str, entities: Sequence[str]) -> bool:
    """Whether ``text`` names any word of any entity (people's first/last names, room owners)."""
    return not words_of(text).isdisjoint(entity_words(entities))


def duplicate_stream(keys: tuple[Paragraph, Paragraph]) -> Iterator[Paragraph]:
    """The two key paragraphs again, alternately (the study's *duplicate* padding)."""
    while True:
        yield keys[0]
        yield keys[1]


def similar_stream(
    pool: Sequence[Paragraph], entities: Sequence[str], rng: random.Random
) -> Iterator[Paragraph]:
    """Key paragraphs of other base instances that name none of ``entities``, reshuffled per pass."""
    names = entity_words(entities)
    usable = [p for p in pool if words_of(" ".join(p)).isdisjoint(names)]
    if not usable:
        raise ValueError("no similar paragraph is free of this instance's entities")
    while True:
        yield from rng.sample(usable, len(usable))


def prose_stream(
    documents: Sequence[Sequence[Paragraph]], entities: Sequence[str], rng: random.Random
) -> Iterator[Paragraph]:
    """Continuous prose from a random paragraph of a random document on, wrapping around."""
    flat = [p for doc in documents for p in doc]
    names = entity_words(entities)
    i = rng.randrange(len(flat))
    while True:
        paragraph = flat[i % len(flat)]
        if words_of(" ".join(paragraph)).isdisjoint(names):
            yield paragraph
        i += 1


LOOKAHEAD = 50


def _fill(stream: Iterator[Paragraph], budget: int, tokens: TokenCounter, tolerance: int) -> list[Unit]:
    """Sentences from ``stream`` until their tokens are within ``tolerance`` of ``budget`` if possible.

    A sentence that would end beyond ``budget + tolerance`` (or further past the budget than
    stopping before it would fall short) is not taken.  If stopping there would still leave
    more than ``tolerance`` to fill, the paragraph is cut after its last sentence taken and
    filling goes on with the next paragraph (a paragraph boundary is a legal cut), at most
    ``LOOKAHEAD`` times.
    """
    units: list[Unit] = []
    total = skips = 0
    while total < budget and skips < LOOKAHEAD:
        paragraph, paragraph_tokens = tokens.units(next(stream))
        if total + paragraph_tokens < budget:  # the whole paragraph fits: no sentence to decide on
            units.extend(paragraph)
            total += paragraph_tokens
            continue
        for unit in paragraph:
            cost = unit.tokens  # the sentence's tokens, + the newline before a paragraph's first
            over = total + cost - budget
            if over > 0 and (over > tolerance or over >= budget - total):
                if budget - total <= tolerance:
                    return units
                skips += 1
                break
            units.append(unit)
            total += cost
            if total >= budget:
                return units
    return units


def _boundary(running: Sequence[int], tokens_at: int) -> int:
    """The unit index whose start is the sentence boundary nearest ``tokens_at`` tokens.

    ``running``: the units' running token totals (increasing: every unit has a token), so the nearest
    is beside where ``tokens_at`` would be inserted; on a tie the earlier boundary wins.
    """
    k = bisect.bisect_left(running, tokens_at)
    candidates = [(abs(tokens_at), 0)]
    candidates += [(abs(tokens_at - running[i]), i + 1) for i in (k - 1, k) if 0 <= i < len(running)]
    return min(candidates)[1]


def _paragraphs(units: Sequence[Unit]) -> list[str]:
    """The units' sentences joined into paragraphs (a unit that starts a paragraph starts one)."""
    out: list[str] = []
    current: list[str] = []
    for unit in units:
        if unit.starts_paragraph and current:
            out.append(" ".join(current))
            current = []
        current.append(unit.sentence)
    if current:
        out.append(" ".join(current))
    return out


def pad(
    keys: tuple[Paragraph, Paragraph],
    stream: Iterator[Paragraph],
    target: int,
    position: str,
    rng: random.Random,
    tokens: TokenCounter,
) -> PaddedText:
    """The key paragraphs placed at ``position`` in padding from ``stream``, about ``target`` tokens."""
    if position not in POSITIONS:
        raise ValueError(f"unknown position {position!r}; known: {', '.join(POSITIONS)}")
    key_tokens = tokens.paragraph(keys[0]) + 1 + tokens.paragraph(keys[1])
    exceeds = key_tokens > target * (1 + TOLERANCE)
    units = [] if exceeds else _fill(stream, target - key_tokens, tokens, int(target * TOLERANCE) // 2)
    running = list(itertools.accumulate(u.tokens for u in units))
    pad_tokens = running[-1] if running else 0
    if position == "first":  # keys, then all padding
        cuts = (0, 0)
    elif position == "last":  # all padding, then keys
        cuts = (len(units), len(units))
    elif position == "middle":
        half = _boundary(running, pad_tokens // 2)
        cuts = (half, half)
    else:
        a, b = sorted(rng.randint(0, pad_tokens) for _ in range(2))
        cuts = (_boundary(running, a), _boundary(running, b))
    before, between, after = units[: cuts[0]], units[cuts[0] : cuts[1]], units[cuts[1] :]
    k1, k2 = " ".join(keys[0]), " ".join(keys[1])
    head, middle = _paragraphs(before), _paragraphs(between)
    paragraphs = head + [k1] + middle + [k2] + _paragraphs(after)
    first_key = len(head)
    second_key = first_key + 1 + len(middle)
    # Cutting inside a paragraph adds a newline the unit costs did not include.
    splits = sum(1 for part in (between, after) if part and not part[0].starts_paragraph)
    return PaddedText(
        paragraphs=paragraphs,
        key_index=(first_key, second_key),
        estimated_tokens=key_tokens + pad_tokens + splits,
        key_tokens=key_tokens,
        key_exceeds=exceeds,
    )
