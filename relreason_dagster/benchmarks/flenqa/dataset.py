"""The study's released FLenQA dataset (``FLenQA_hf.jsonl`` or its parquet copy) as samples.

The study released the exact texts it asked: 300 base problems (100 per task) x 40 padded variants,
one row each, with ``global_sample_id, sample_id, label, dataset, facts`` (Ruletaker: ``rule`` and
``statement`` instead), ``assertion/question, mixin, padding_type, dispersion, ctx_size`` (the
format of the study's analysis notebook, alonj/Same-Task-More-Tokens).  ``mixin`` is the padded text
without instructions; our prompts put it, byte for byte, where the generated text would go, with the
row's question.  Nothing is generated on such a run: these rows are the samples.

The study's names map onto ours: ``padding_type`` ``same`` (resampling from the task) -> ``similar``,
``books`` (Books Corpus) -> ``different``, ``identity`` / ``duplicate`` -> ``duplicate``;
``dispersion`` first / middle / last / random is our position; ``ctx_size`` our length.  The release
holds no minimal texts (key paragraphs alone), so a run on it has none.

A file that cannot be read at all is one ConfigError line; a row that cannot be used is skipped with
its reason (:class:`Skipped`) while the others are read.  Any file of this format is read the same
way, whatever its size or order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import Sample, stable_hash
from relreason_dagster.benchmarks.flenqa.instances import MONOREL, PIR, RULETAKER
from relreason_dagster.benchmarks.flenqa.prompts import split_last_word
from relreason_dagster.errors import ConfigError

RELEASED_VERSION = "flenqa-released-1"
SOURCE = "released"  # variant.source of a released row; generated samples carry no source
IMPORTED_NAME = "FLenQA.jsonl"  # what `relreason flenqa import` writes, under RELREASON_HOME/imports/flenqa

TASK_NAMES = {
    "monorel": MONOREL,
    "pir": PIR,
    "people in rooms": PIR,
    "simplified ruletaker": RULETAKER,
    "ruletaker": RULETAKER,
    "ruletaker*": RULETAKER,
}
PADDING_NAMES = {
    "same": "similar",
    "similar": "similar",
    "books": "different",
    "different": "different",
    "identity": "duplicate",
    "duplicate": "duplicate",
}
DISPERSIONS = ("first", "middle", "last", "random")
REQUIRED = (
    "sample_id",
    "label",
    "dataset",
    "assertion/question",
    "mixin",
    "padding_type",
    "dispersion",
    "ctx_size",
)


def imported_path() -> Path:
    """Where ``relreason flenqa import`` keeps the file: ``$RELREASON_HOME/imports/flenqa/FLenQA.jsonl``
    (under ``paths.imports_dir``, whose listing is an input of the samples: an import rebuilds them)."""
    return paths.imports_dir() / "flenqa" / IMPORTED_NAME


def resolve(value: str | None) -> Path | None:
    """The profile's ``dataset_file``: None (generated items), ``auto`` (the imported file when there
    is one, generated items otherwise) or a path (it must exist: a missing file is an error, never a
    quiet fall back to generated items)."""
    if value is None or str(value).strip() == "":
        return None
    if str(value).strip() == "auto":
        found = imported_path()
        return found if found.is_file() else None
    file = Path(str(value)).expanduser()
    if not file.is_file():
        raise ConfigError(
            f"flenqa dataset_file {file} not found; give the released FLenQA_hf.jsonl (or its parquet), "
            "or run `relreason flenqa import PATH` and set dataset_file: auto"
        )
    return file


@dataclass(frozen=True)
class Skipped:
    """A row left out: its 1-based line (jsonl) or row number (parquet) and why."""

    row: int
    reason: str

    def __str__(self) -> str:
        return f"row {self.row}: {self.reason}"


def read_rows(path: str | Path) -> list[dict[str, Any] | None]:
    """The file's rows in order (None for a jsonl line that is no JSON object); ConfigError if unreadable."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError(
            f"FLenQA dataset file {file} not found; give the released FLenQA_hf.jsonl or its parquet"
        )
    if file.suffix == ".parquet":
        try:
            import pyarrow.parquet as pq

            return list(pq.read_table(file).to_pylist())
        except Exception as exc:  # noqa: BLE001 - any reader failure is the same one-line answer
            raise ConfigError(
                f"{file} is not a readable parquet file ({type(exc).__name__}); give the released file"
            ) from None
    rows: list[dict[str, Any] | None] = []
    try:
        with file.open(encoding="utf-8") as handle:
            for line in handle:
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except ValueError:
                    value = None
                rows.append(value if isinstance(value, dict) else None)
    except UnicodeDecodeError:
        raise ConfigError(
            f"{file} is not UTF-8 text; give the released FLenQA_hf.jsonl or its .parquet"
        ) from None
    if rows and all(r is None for r in rows):
        raise ConfigError(
            f"{file} holds no JSON object per line; give the released FLenQA_hf.jsonl or its .parquet"
        )
    return rows


def _label(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _texts(value: Any) -> list[str] | None:
    """A list of strings, or one string as a one-item list; None when it is neither."""
    if isinstance(value, str):
        return [value] if value.strip() else None
    if isinstance(value, list | tuple) and value and all(isinstance(v, str) for v in value):
        return list(value)
    return None


def _check(row: dict[str, Any] | None) -> tuple[dict[str, Any] | None, str | None]:
    """``(facts, None)`` for a usable row, ``(None, reason)`` otherwise."""
    if row is None:
        return None, "not a JSON object"
    missing = [k for k in REQUIRED if row.get(k) is None or row.get(k) == ""]
    if missing:
        return None, f"missing {', '.join(missing)}"
    task = TASK_NAMES.get(str(row["dataset"]).strip().lower())
    if task is None:
        return None, f"dataset {row['dataset']!r} unknown (MonoRel, PIR, Simplified RuleTaker)"
    padding = PADDING_NAMES.get(str(row["padding_type"]).strip().lower())
    if padding is None:
        return None, f"padding_type {row['padding_type']!r} unknown ({', '.join(PADDING_NAMES)})"
    position = str(row["dispersion"]).strip().lower()
    if position not in DISPERSIONS:
        return None, f"dispersion {row['dispersion']!r} unknown ({', '.join(DISPERSIONS)})"
    try:
        length = int(row["ctx_size"])
    except (TypeError, ValueError):
        return None, f"ctx_size {row['ctx_size']!r} is not a number of tokens"
    if length <= 0:
        return None, f"ctx_size {length} is not a positive length"
    label = _label(row["label"])
    if label is None:
        return None, f"label {row['label']!r} is not True or False"
    for key in ("mixin", "assertion/question"):
        if not isinstance(row[key], str) or not row[key].strip():
            return None, f"{key} is not a text"
    rule = ""
    if task == RULETAKER:
        rules, keys = _texts(row.get("rule")), _texts(row.get("statement"))
        if rules is None or keys is None:
            return None, "a Ruletaker row needs rule and statement texts"
        rule = " ".join(rules)
    else:
        keys = _texts(row.get("facts"))
        if keys is None:
            return None, "facts is not a list of texts"
    return {
        "task": task,
        "padding": padding,
        "position": position,
        "length": length,
        "label": label,
        "key_sentences": keys,
        "rule": rule,
    }, None


def released_samples(
    path: str | Path,
    seed: int,
    tokens: Any = None,
    grid: dict[str, Any] | None = None,
    tokenizer: str | None = None,
) -> tuple[list[Sample], list[Skipped]]:
    """The file's rows as FLenQA samples, and the rows skipped with why.

    ``grid`` (the profile's ``tasks``, ``lengths``, ``paddings``, ``positions``, ``n_base``) keeps the
    rows of the profile's cells, and at most ``n_base`` base problems per task (the first ones in
    file order); rows outside it are not skipped, just not asked.  ``tokens`` (a text -> token count
    function) records each text's length in the profile's tokenizer (``estimated_tokens``), named by
    ``tokenizer``.
    """
    grid = grid or {}
    samples: list[Sample] = []
    skipped: list[Skipped] = []
    bases: dict[str, list[str]] = {}
    seen: set[str] = set()
    for number, row in enumerate(read_rows(path), start=1):
        facts, reason = _check(row)
        if facts is None or row is None:
            skipped.append(Skipped(number, reason or "unreadable"))
            continue
        task = facts["task"]
        if not _in_grid(facts, grid):
            continue
        base = str(row["sample_id"])
        known = bases.setdefault(task, [])
        if base not in known:
            if grid.get("n_base") is not None and len(known) >= int(grid["n_base"]):
                continue
            known.append(base)
        sample = _sample(row, facts, seed, tokens, tokenizer)
        if sample.sample_id in seen:
            skipped.append(Skipped(number, "the same row again (same text, question and cell)"))
            continue
        seen.add(sample.sample_id)
        samples.append(sample)
    if not samples and skipped:
        raise ConfigError(
            f"{path}: no usable FLenQA row ({len(skipped)} skipped, first: {skipped[0]}); "
            "give the released FLenQA_hf.jsonl or its parquet"
        )
    return samples, skipped


def _in_grid(facts: dict[str, Any], grid: dict[str, Any]) -> bool:
    for key, value in (
        ("tasks", facts["task"]),
        ("lengths", facts["length"]),
        ("paddings", facts["padding"]),
        ("positions", facts["position"]),
    ):
        chosen = grid.get(key)
        if chosen is not None and value not in [int(v) if key == "lengths" else v for v in chosen]:
            return False
    return True


def _sample(
    row: dict[str, Any], facts: dict[str, Any], seed: int, tokens: Any, tokenizer: str | None
) -> Sample:
    task, length = facts["task"], facts["length"]
    text, question = row["mixin"], row["assertion/question"]
    base_id = f"released-{task}-{row['sample_id']}"
    variant = {
        "base_id": base_id,
        "length": length,
        "padding": facts["padding"],
        "position": facts["position"],
        "cell": f"{length}/{facts['padding']}/{facts['position']}",
        "source": SOURCE,
        "global_sample_id": str(row.get("global_sample_id", "")),
        "study_padding": str(row["padding_type"]),
        "tokenizer": tokenizer,
    }
    sample_id = stable_hash(
        "flenqa", RELEASED_VERSION, variant, text, question, facts["rule"], facts["label"]
    )
    return Sample(
        benchmark="flenqa",
        task=task,
        sample_id=sample_id,
        split="test",
        n=length,
        variant=variant,
        input={
            "paragraphs": [text],  # the released text whole: sample_text() gives it back unchanged
            "key_index": [0],
            "key_sentences": facts["key_sentences"],
            "question": question,
            "rule": facts["rule"],
            "entities": [],
            "estimated_tokens": tokens(text) if tokens is not None else None,
            "key_exceeds": False,
            "next_word": split_last_word(text)[1],
        },
        gold=facts["label"],
        label=facts["label"],
        seed=seed,
        generator_version=RELEASED_VERSION,
        gold_pos=int(facts["label"]),
        n_cells=1,
    )
