"""Rescoring published KOR-Bench evaluation files with any scoring mode, next to their own verdicts.

Which field the official scorer read: ``response`` (the raw model output).  ``response_text`` is
only the official ``extract(response, "basic")`` kept for display, and it cannot be the input: the
puzzle branch uses ``inner()``, and for example a response whose answer is ``[[24]]`` after a
``[ 4※7 = 24 \\]`` display line has ``response_text`` ``[[4※7 = 24 \\]]``.  Measured on the 15
reference files (against each file's recorded gold), scoring ``response`` agrees with the published
verdicts on 3,750/3,750 items and scoring ``response_text`` on 3,749: Qwen2.5 puzzle 82 has no
``[[`` in ``response`` (its answer is ``\\boxed{[3-1+0+0=2]}``), so ``inner()`` gives ``NULL`` and
the published verdict is False, while its ``response_text`` ``[[3 - 1 + 0 + 0 = 2\\]]`` would pass.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from relreason_dagster.benchmarks.kor.data import CATEGORIES, KorItem, load_category
from relreason_dagster.benchmarks.kor.scoring.latex import require_parser
from relreason_dagster.benchmarks.kor.scoring.official import score_official, score_paper
from relreason_dagster.benchmarks.kor.scoring.robust import score_robust
from relreason_dagster.errors import ConfigError

# official: the released files' verdicts (step 6 falling back); paper: Table 2's judgement (step 6
# working); robust: what the model meant, compared by answer format.
MODES = ("official", "paper", "robust")

_FILE_RE = re.compile(
    r"^evaluation_(?P<model>.+)_(?P<category>"
    + "|".join(CATEGORIES)
    + r")_(?P<mode>[A-Za-z0-9.\-]+)\.jsonl\.json$"
)


@dataclass(frozen=True)
class Disagreement:
    """One item where our verdict differs from the file's ``is_correct``."""

    idx: str
    ours: bool
    theirs: bool
    reason: str


@dataclass(frozen=True)
class RescoreResult:
    """Our verdicts on one published evaluation file next to the file's own.

    ``accuracy``/``file_accuracy`` are over the ``n`` scored records (``correct`` of them right by
    ``mode``); ``agreement`` is the share of those where both verdicts match.  For counterfactual,
    ``real_life_rate`` is the share whose answer is the real-world one (Table 2's parentheses),
    judged by ``mode`` against the record's ``real_life_answer``; ``None`` for other categories.
    ``gold_mismatches`` lists items whose recorded gold differs from the dataset's (the dataset was
    corrected after the run); ``skipped`` lists records that could not be scored at all (unknown
    idx, unreadable ``is_correct``) with why.
    """

    path: str
    model: str
    category: str
    prompt_mode: str
    mode: str
    gold_source: str
    n: int
    accuracy: float
    file_accuracy: float
    agreement: float
    disagreements: tuple[Disagreement, ...]
    gold_mismatches: tuple[str, ...] = ()
    skipped: tuple[tuple[str, str], ...] = ()
    reasons: dict[str, int] = field(default_factory=dict)
    correct: int = 0
    file_correct: int = 0
    real_life_rate: float | None = None


def parse_file_name(path: str | Path) -> tuple[str, str, str]:
    """``(model, category, prompt_mode)`` from ``evaluation_<model>_<category>_<mode>.jsonl.json``.

    The model is everything between ``evaluation_`` and the last ``_<category>_``, so any model name
    (dashes, dots, underscores, even a category word) works.
    """
    name = Path(path).name
    match = _FILE_RE.match(name)
    if match is None:
        raise ConfigError(
            f"{name} is not a KOR-Bench evaluation file; expected "
            f"evaluation_<model>_<category>_<mode>.jsonl.json with <category> one of {', '.join(CATEGORIES)}"
        )
    return match.group("model"), match.group("category"), match.group("mode")


def _verdict(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    return None


def load_records(path: Path) -> list:
    if not path.is_file():
        raise ConfigError(f"evaluation file {path} not found; pass an existing evaluation_*.jsonl.json file")
    try:
        records = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not JSON ({exc.msg}); expected a JSON list of evaluation records"
        ) from None
    if not isinstance(records, list):
        raise ConfigError(
            f"{path} holds a JSON {type(records).__name__}; expected a list of evaluation records"
        )
    return records


def _judge(mode: str, response: object, item: KorItem, gold: str) -> tuple[bool, str]:
    if mode == "official":
        return score_official(response, item, gold), "official"
    if mode == "paper":
        return score_paper(response, item, gold), "paper"
    return score_robust(response, item, gold)


def rescore_file(
    path: str | Path, data_dir: str | Path, mode: str = "official", gold_source: str = "file"
) -> RescoreResult:
    """Score every record of a published evaluation file with ``mode`` and compare with ``is_correct``.

    ``gold_source="file"`` scores against the ``answer`` recorded in the file (the gold the
    official scorer saw; six items of the reference files were corrected in the dataset since),
    ``"data"`` against the current dataset.  Rule ids always come from the dataset.  A file that is
    not in this format is a ConfigError, and so is ``paper`` mode without a working LaTeX parser;
    a record's content never raises.
    """
    if mode not in MODES:
        raise ConfigError(f"unknown scoring mode {mode!r}; known: {', '.join(MODES)}")
    if mode == "paper":
        require_parser()
    if gold_source not in ("file", "data"):
        raise ConfigError(f"unknown gold source {gold_source!r}; use 'file' or 'data'")
    path = Path(path)
    model, category, prompt_mode = parse_file_name(path)
    records = load_records(path)
    items = load_category(data_dir, category)
    skipped: list[tuple[str, str]] = []
    disagreements: list[Disagreement] = []
    gold_mismatches: list[str] = []
    reasons: Counter[str] = Counter()
    n = ours_correct = theirs_correct = agree = real_life = 0
    for position, record in enumerate(records):
        if not isinstance(record, dict):
            skipped.append((f"#{position}", "record is not an object"))
            continue
        idx = str(record.get("idx", ""))
        item = items.get(idx)
        theirs = _verdict(record.get("is_correct"))
        if item is None:
            skipped.append((idx or f"#{position}", "idx not in the dataset"))
            continue
        if theirs is None:
            skipped.append((idx, "is_correct is not a boolean"))
            continue
        recorded = record.get("answer")
        gold = item.answer
        if isinstance(recorded, str):
            if recorded != item.answer:
                gold_mismatches.append(idx)
            if gold_source == "file":
                gold = recorded
        response = record.get("response")
        ours, reason = _judge(mode, response, item, gold)
        if category == "counterfactual":
            real_gold = record.get("real_life_answer")
            if gold_source == "data" or not isinstance(real_gold, str):
                real_gold = item.real_life_answer
            if real_gold:
                real_life += _judge(mode, response, item, real_gold)[0]
        reasons[reason] += 1
        n += 1
        ours_correct += ours
        theirs_correct += theirs
        if ours == theirs:
            agree += 1
        else:
            disagreements.append(Disagreement(idx=idx, ours=ours, theirs=theirs, reason=reason))
    return RescoreResult(
        path=str(path),
        model=model,
        category=category,
        prompt_mode=prompt_mode,
        mode=mode,
        gold_source=gold_source,
        n=n,
        accuracy=ours_correct / n if n else 0.0,
        file_accuracy=theirs_correct / n if n else 0.0,
        agreement=agree / n if n else 0.0,
        disagreements=tuple(disagreements),
        gold_mismatches=tuple(gold_mismatches),
        skipped=tuple(skipped),
        reasons=dict(reasons),
        correct=ours_correct,
        file_correct=theirs_correct,
        real_life_rate=(real_life / n if n else 0.0) if category == "counterfactual" else None,
    )
