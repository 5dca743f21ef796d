"""The minimal texts and the duplicate padding of a run on the study's released rows, from their own keys.

What the release holds (``alonj/FLenQA`` on its dataset hub: 12,000 rows, 300 problems x 5 lengths x
2 paddings x 4 dispersions; its analysis notebook's figures loop over ``same`` and ``books`` only): no
row of length 0 (the key paragraphs alone, Appendix C's minimal text) and no duplicate (``identity``)
row (Figure 3).  Both are built here from each base problem's own key paragraphs, read from its rows:

- **Where the key paragraphs are read**: a row whose keys come last (dispersion ``last``, §3.3.2 (3):
  "the key paragraphs appear at the end of the text, with padding prepended").  Each key paragraph
  "starts with a key sentence" (§3.1), so the first key paragraph runs from the first key sentence of
  the row's text up to the other key sentence (at a word boundary), the second from there to the end.
  Whatever the study put between them (its parts "are joined by newlines", §3.1) is kept as the row has
  it.  Every ``last`` row of a problem must give the same two paragraphs; one that does not (or a key
  sentence not in the text) leaves that problem without built samples, said in one log line.
- **Minimal text** (Appendix C): the row's text from its first key sentence on, byte for byte, read from
  the problem's shortest ``last`` row.  At 250 tokens the study added no padding (Appendix B: the Books
  and Same means at 250 are the same for every task; Table 1's caption calls the minimal text "250
  tokens"), so from a 250-token row this is that row's whole ``mixin``: the study's minimal text.  It is
  the study's item (``variant.source`` ``released``): ``flenqa_vs_study`` may call it comparable.
- **Duplicate padding** (Figure 3, §3.3.1: "multiple copies of the key paragraph ... in alternating
  order until the desired sample length"): the two paragraphs again and again, padded with
  ``padding.pad`` to the profile's targets in the profile's tokenizer (the study's is not named), for
  each length the profile asks at each position a figure reads (``FIGURE_POSITIONS``: Figure 3's
  alternation from the start is position ``first``, marts/flenqa_figure3.sql) that the file has no
  duplicate row for.  The other positions feed no figure, so a run on the release does not pay for
  them (generated runs keep every position the profile asks: their texts are ours throughout).
  Copies are cut only at sentence ends.  These are our texts around the study's keys
  (``variant.source`` ``released-keys``), so no comparison with the study calls them its items.

Nothing here changes a released row's sample: the built samples are added beside them.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from relreason_dagster.benchmarks.base import Sample, stable_hash
from relreason_dagster.benchmarks.flenqa import padding as pad_mod
from relreason_dagster.benchmarks.flenqa.prompts import split_last_word
from relreason_dagster.benchmarks.flenqa.prose import split_sentences

KEYS_VERSION = "flenqa-released-keys-1"
MINIMAL_SOURCE = "released"  # the study's own text: its minimal text is its 250-token row
BUILT_SOURCE = "released-keys"  # our padding around the study's key paragraphs
READ_FROM = "last"  # the dispersion whose rows end with the two key paragraphs
# The positions of duplicate padding a figure pools: flenqa_figure3.sql reads 'first' only (the study's
# copies alternate from the start, §3.3.1); a test holds the two together.
FIGURE_POSITIONS = ("first",)
MINIMAL = "none"
_LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Keys:
    """A problem's two key paragraphs as a row gives them, and what the row has between them."""

    first: str
    between: str
    second: str
    minimal_text: str  # the row's text from its first key sentence on, byte for byte


def _find(text: str, sentence: str, start: int = 0) -> int:
    """Where ``sentence`` starts in ``text`` at a word boundary (start of text or after whitespace), from
    ``start``; also without its final stop (a key paragraph may go on "…-floored, a reality …"); -1."""
    wanted = sentence.strip()
    for probe in dict.fromkeys((wanted, wanted.rstrip(".!?"))):
        if not probe:
            continue
        at = text.find(probe, start)
        while at > 0 and not text[at - 1].isspace():
            at = text.find(probe, at + 1)
        if at >= 0:
            return at
    return -1


def read_keys(text: str, key_sentences: Sequence[str]) -> Keys | None:
    """The two key paragraphs of a text whose keys come last (see the module doc), or None when its key
    sentences are not two, are not found, or do not start two paragraphs in turn."""
    if len(key_sentences) != 2:
        return None
    starts = [_find(text, s) for s in key_sentences]
    if min(starts) < 0:
        return None
    head = min(starts)
    other = key_sentences[1] if starts[0] == head else key_sentences[0]
    second_at = _find(text, other, head + 1)
    if second_at <= head:
        return None
    first = text[head:second_at].rstrip()
    second = text[second_at:].rstrip()
    if not first or not second:
        return None
    return Keys(first, text[head + len(first) : second_at], second, text[head:])


def _sentences(paragraph: str) -> tuple[str, ...]:
    """A key paragraph as the sentences padding may cut between; the whole paragraph as one when its
    sentences joined by single spaces would not give it back byte for byte (a copy is never changed)."""
    parts = split_sentences(paragraph)
    return tuple(parts) if " ".join(parts) == paragraph else (paragraph,)


@dataclass
class Built:
    """What :func:`build` adds to a run on the released rows, and the problems it could not build for."""

    samples: list[Sample]
    problems: list[str]


def build(
    released: list[Sample],
    grid: dict[str, Any],
    seed: int,
    tokens: Callable[[str], int],
    tokenizer: str | None,
) -> Built:
    """Minimal texts (``grid['minimal']``) and duplicate-padded texts (``'duplicate'`` in
    ``grid['paddings']``, each of ``grid['lengths']`` x the ``grid['positions']`` among
    ``FIGURE_POSITIONS`` a problem has no released duplicate row for) for every base problem among
    ``released`` (a run's released samples, file order)."""
    by_base: dict[str, list[Sample]] = {}
    for sample in released:
        by_base.setdefault(str(sample.variant["base_id"]), []).append(sample)
    counter = pad_mod.TokenCounter(tokens)
    out: list[Sample] = []
    problems: list[str] = []
    asked = grid.get("positions", pad_mod.POSITIONS)
    positions = [p for p in FIGURE_POSITIONS if p in asked]
    want_duplicate = "duplicate" in grid.get("paddings", ()) and bool(positions)
    if not grid.get("minimal", True) and not want_duplicate:
        return Built(out, problems)
    for base_id, rows in by_base.items():
        keys, row, problem = _keys_of(rows)
        if keys is None or row is None:
            problems.append(f"{base_id}: {problem}")
            continue
        if grid.get("minimal", True):
            out.append(_minimal(row, keys, tokens, tokenizer))
        if want_duplicate:
            have = {
                (s.variant["length"], s.variant["position"])
                for s in rows
                if s.variant["padding"] == "duplicate"
            }
            own = (_sentences(keys.first), _sentences(keys.second))
            for length in grid.get("lengths", ()):
                for position in positions:
                    if (int(length), position) not in have:
                        out.append(
                            _duplicate(row, keys, own, int(length), position, seed, counter, tokenizer)
                        )
    return Built(out, problems)


def _keys_of(rows: list[Sample]) -> tuple[Keys | None, Sample | None, str]:
    """A problem's key paragraphs from its ``last`` rows (all must agree; a released duplicate row ends
    with copies, not with the two alone, and is not read), the row the minimal text is read from (the
    shortest), or why there are none."""
    last = sorted(
        (s for s in rows if s.variant["position"] == READ_FROM and s.variant["padding"] != "duplicate"),
        key=lambda s: s.variant["length"],
    )
    if not last:
        return (
            None,
            None,
            f"no row with its key paragraphs last (dispersion {READ_FROM}) in the profile's grid",
        )
    read = [(s, read_keys(s.input["paragraphs"][0], s.input["key_sentences"])) for s in last]
    missing = [s for s, k in read if k is None]
    if missing:
        where = missing[0].variant.get("global_sample_id") or missing[0].variant["cell"]
        return None, None, f"row {where}: its two key sentences do not start its last two paragraphs"
    pairs = {frozenset((k.first, k.second)) for _, k in read if k is not None}
    if len(pairs) > 1:
        return None, None, f"its {len(read)} rows with keys last give {len(pairs)} different key paragraphs"
    row, keys = read[0]
    return keys, row, ""


def _variant(
    row: Sample, length: int, kind: str, position: str, source: str, tokenizer: str | None
) -> dict[str, Any]:
    cell = f"{length or MINIMAL}/{kind}/{position}"
    return {
        "base_id": row.variant["base_id"],
        "length": length,
        "padding": kind,
        "position": position,
        "cell": cell,
        "source": source,
        "keys_from": str(row.variant.get("global_sample_id", "")),  # the row the key paragraphs are read from
        "tokenizer": tokenizer,
    }


def _sample(row: Sample, variant: dict[str, Any], text: str, split: str, extra: dict[str, Any]) -> Sample:
    question, rule = row.input["question"], row.input["rule"]
    sample_id = stable_hash("flenqa", KEYS_VERSION, variant, text, question, rule, row.label)
    return Sample(
        benchmark="flenqa",
        task=row.task,
        sample_id=sample_id,
        split=split,
        n=variant["length"] or None,
        variant=variant,
        input={
            "paragraphs": [text],  # one text, as a released row's: sample_text() gives it back unchanged
            "key_index": [0],
            "key_sentences": list(row.input["key_sentences"]),
            "question": question,
            "rule": rule,
            "study_rule": row.input.get("study_rule", rule),
            "entities": [],
            **extra,
            "next_word": split_last_word(text)[1],
        },
        gold=row.label,
        label=row.label,
        seed=row.seed,
        generator_version=KEYS_VERSION,
        gold_pos=int(bool(row.label)),
        n_cells=1,
    )


def _minimal(row: Sample, keys: Keys, tokens: Callable[[str], int], tokenizer: str | None) -> Sample:
    variant = _variant(row, 0, MINIMAL, MINIMAL, MINIMAL_SOURCE, tokenizer)
    counted = tokens(keys.minimal_text)
    extra = {"key_tokens": counted, "estimated_tokens": counted, "key_exceeds": False}
    return _sample(row, variant, keys.minimal_text, "minimal", extra)


def _duplicate(
    row: Sample,
    keys: Keys,
    own: tuple[tuple[str, ...], tuple[str, ...]],
    length: int,
    position: str,
    seed: int,
    counter: pad_mod.TokenCounter,
    tokenizer: str | None,
) -> Sample:
    variant = _variant(row, length, "duplicate", position, BUILT_SOURCE, tokenizer)
    rng = random.Random(f"{seed}:{row.variant['base_id']}:{length}:duplicate:{position}")
    padded = pad_mod.pad(own, pad_mod.duplicate_stream(own), length, position, rng, counter)
    text = keys.between.join(padded.paragraphs)
    extra = {
        "key_tokens": padded.key_tokens,
        "estimated_tokens": padded.estimated_tokens,
        "key_exceeds": padded.key_exceeds,
    }
    return _sample(row, variant, text, "test", extra)
