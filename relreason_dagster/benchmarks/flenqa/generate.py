"""The FLenQA grid: task x base instance x length x padding x position, plus the minimal texts.

Base instances are always drawn as a pool of ``POOL_SIZE`` per task (the study's
100), so the *similar* padding of a small profile comes from the same pool as
the paper's; a profile tests the first ``n_base`` of them, half True and half
False.  Each sample's randomness (padding choice, cut points) is seeded by its
own coordinates, so a sample does not change when the grid around it grows.

Lengths are tokens of the ``{facts + padding}`` text, counted with the profile's
tokenizer (default: the local model's) and recorded in each sample; the prompts
add their fixed instructions on top (``target_tokens`` of each prompt).

Each sample's ``variant.reading`` is the profile's ``reading`` knob (``reading.py``), not part of its id.

With the profile knob ``dataset_file`` (a path, or ``auto`` for the file `relreason flenqa import`
stored) the samples are the study's released rows instead (``dataset.py``), plus the minimal texts and
duplicate padding the release lacks, built from its rows' own key paragraphs (``released_keys.py``).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Callable
from dataclasses import replace
from importlib.metadata import version
from typing import Any

from relreason_dagster.benchmarks.base import Profile, Sample, stable_hash
from relreason_dagster.benchmarks.flenqa import dataset, released_keys
from relreason_dagster.benchmarks.flenqa import padding as pad_mod
from relreason_dagster.benchmarks.flenqa.instances import TASKS, BaseInstance, base_instances
from relreason_dagster.benchmarks.flenqa.paragraphs import expand
from relreason_dagster.benchmarks.flenqa.profile_schema import POOL_SIZE, Knobs
from relreason_dagster.benchmarks.flenqa.prompts import split_last_word
from relreason_dagster.benchmarks.flenqa.prose import BUILTINS, load_prose, prose_source
from relreason_dagster.common.tokenizer import vocab_model
from relreason_dagster.errors import ConfigError

BENCHMARK = "flenqa"
GENERATOR_VERSION = "flenqa-gen-1"
MINIMAL = "none"  # padding/position of the key-paragraphs-only baseline
_LOG = logging.getLogger(__name__)


def token_counter(tokenizer: str) -> Callable[[str], int]:
    """Plain-text token counts with ``tokenizer`` (no special tokens).

    ``common.tokenizer.count_tokens`` resolves the GGUF and takes a lock on every call; the grid
    counts tens of thousands of sentences, so this binds the loaded vocabulary once.
    """
    vocab = vocab_model(tokenizer)
    return lambda text: len(vocab.tokenize(text.encode("utf-8"))) if text else 0


def _profile_list(chosen: list[str], key: str, known: tuple[Any, ...]) -> list[Any]:
    """The chosen values of one grid knob (``key`` names it in the error line), checked against ``known``."""
    values = list(chosen)
    unknown = [v for v in values if v not in known]
    if unknown:
        raise ConfigError(f"flenqa profile {key}: unknown {unknown}; known: {', '.join(map(str, known))}")
    return values


def select_balanced(instances: list[BaseInstance], n: int) -> list[BaseInstance]:
    """The first ``n/2`` True and the first ``n/2`` False instances, in pool order."""
    if n % 2 or not 0 < n <= len(instances):
        raise ConfigError(f"flenqa n_base must be even and between 2 and {len(instances)}, got {n}")
    trues = [i for i in instances if i.label][: n // 2]
    falses = [i for i in instances if not i.label][: n // 2]
    return sorted(trues + falses, key=lambda i: i.index)


def generate_samples(profile: Profile, seed: int) -> list[Sample]:
    """The profile's samples, each carrying the profile's ``reading`` in its variant (outside its id:
    the reading changes how answers are read, never what is asked)."""
    rules = profile.typed(Knobs).reading
    return [replace(s, variant={**s.variant, "reading": rules}) for s in _generate(profile, seed)]


def _generate(profile: Profile, seed: int) -> list[Sample]:
    knobs = profile.typed(Knobs)
    tasks = _profile_list(knobs.tasks, "tasks", TASKS)
    lengths = list(knobs.lengths)
    if any(x < 100 for x in lengths):
        raise ConfigError(f"flenqa lengths must be at least 100 tokens, got {lengths}")
    paddings = _profile_list(knobs.paddings, "paddings", pad_mod.PADDINGS)
    positions = _profile_list(knobs.positions, "positions", pad_mod.POSITIONS)
    tokenizer = knobs.tokenizer
    released = dataset.resolve(profile.typed(Knobs).dataset_file)
    if released is not None:
        return _released(released, profile, seed, tasks, lengths, paddings, positions, tokenizer)
    source = prose_source(profile.typed(Knobs).prose_dir, profile.typed(Knobs).prose)
    documents = load_prose(source) if "different" in paddings else ()
    tokens = pad_mod.TokenCounter(token_counter(tokenizer))
    common = {
        "tokenizer": tokenizer,
        "prose_source": source if source in BUILTINS else "folder",
        "faker": version("faker"),
    }
    samples: list[Sample] = []
    for task in tasks:
        pool = base_instances(task, POOL_SIZE, seed)
        keys = {
            inst.base_id: tuple(
                tuple(expand(inst, which, random.Random(f"{seed}:{inst.base_id}:{which}"), tokens))
                for which in (0, 1)
            )
            for inst in pool
        }
        all_paragraphs = [p for inst in pool for p in keys[inst.base_id]]
        for inst in select_balanced(pool, profile.typed(Knobs).n_base):
            own = keys[inst.base_id]
            others = [
                p for p in all_paragraphs if p not in own
            ]  # similar padding's pool (entities filtered later)
            if profile.typed(Knobs).minimal:
                samples.append(_sample(inst, own, seed, None, MINIMAL, MINIMAL, tokens, common))
            for length in lengths:
                for kind in paddings:
                    for position in positions:
                        rng = random.Random(f"{seed}:{inst.base_id}:{length}:{kind}:{position}")
                        if kind == "duplicate":
                            stream = pad_mod.duplicate_stream(own)
                        elif kind == "similar":
                            stream = pad_mod.similar_stream(others, inst.entities, rng)
                        else:
                            stream = pad_mod.prose_stream(documents, inst.entities, rng)
                        padded = pad_mod.pad(own, stream, length, position, rng, tokens)
                        samples.append(
                            _sample(inst, own, seed, padded, kind, position, tokens, common, length)
                        )
    return samples


def _released(
    file: Any,
    profile: Profile,
    seed: int,
    tasks: list[str],
    lengths: list[int],
    paddings: list[str],
    positions: list[str],
    tokenizer: str,
) -> list[Sample]:
    """The study's released rows in the profile's grid, plus what the release lacks built from each
    problem's own key paragraphs (``released_keys.py``): its minimal text and duplicate padding.  Skipped
    rows are logged one line each; problems left without built samples in one line."""
    grid = {
        "tasks": tasks,
        "lengths": lengths,
        "paddings": paddings,
        "positions": positions,
        "n_base": profile.typed(Knobs).n_base,
    }
    counter = token_counter(tokenizer)
    samples, skipped = dataset.released_samples(file, seed, counter, grid, tokenizer)
    for row in skipped:
        _LOG.warning("flenqa dataset %s: %s (skipped)", file, row)
    if not samples:
        raise ConfigError(
            f"flenqa dataset_file {file}: no row in the profile's grid (tasks {tasks}, lengths {lengths}, "
            f"paddings {paddings}, positions {positions}); widen the grid or give the released file"
        )
    built = released_keys.build(
        samples, {**grid, "minimal": profile.typed(Knobs).minimal}, seed, counter, tokenizer
    )
    if built.problems:
        _LOG.warning(
            "flenqa dataset %s: no minimal text or duplicate padding for %d base problem(s) (first: %s)",
            file,
            len(built.problems),
            built.problems[0],
        )
    return samples + built.samples


def _sample(
    inst: BaseInstance,
    own: tuple[tuple[str, ...], ...],
    seed: int,
    padded: pad_mod.PaddedText | None,
    kind: str,
    position: str,
    tokens: pad_mod.TokenCounter,
    common: dict[str, Any],
    length: int = 0,
) -> Sample:
    if padded is None:  # the minimal text: the two key paragraphs only
        paragraphs = [" ".join(own[0]), " ".join(own[1])]
        key_index = (0, 1)
        key_tokens = tokens.paragraph(own[0]) + 1 + tokens.paragraph(own[1])
        estimated, exceeds = key_tokens, False
    else:
        paragraphs, key_index = padded.paragraphs, padded.key_index
        key_tokens, estimated, exceeds = padded.key_tokens, padded.estimated_tokens, padded.key_exceeds
    text = "\n".join(paragraphs)
    cell = f"{length or MINIMAL}/{kind}/{position}"
    variant = {"base_id": inst.base_id, "length": length, "padding": kind, "position": position, "cell": cell}
    sample_id = stable_hash(BENCHMARK, GENERATOR_VERSION, seed, variant, common)
    return Sample(
        benchmark=BENCHMARK,
        task=inst.task,
        sample_id=sample_id,
        split="minimal" if padded is None else "test",
        n=length or None,
        variant={**variant, **common},
        input={
            "paragraphs": paragraphs,
            "key_index": list(key_index),
            "key_sentences": list(inst.key_sentences),
            "question": inst.question,
            "rule": inst.rule,
            "entities": list(inst.entities),
            "key_tokens": key_tokens,
            "estimated_tokens": estimated,
            "key_exceeds": exceeds,
            "next_word": split_last_word(text)[1],
        },
        gold=inst.label,
        label=inst.label,
        seed=seed,
        generator_version=GENERATOR_VERSION,
        gold_pos=int(inst.label),
        n_cells=1,
    )


def sample_text(sample: Sample) -> str:
    """The ``{facts + padding}`` text of a sample: its paragraphs, one per line."""
    return "\n".join(sample.input["paragraphs"])
