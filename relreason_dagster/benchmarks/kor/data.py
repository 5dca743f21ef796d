"""The official KOR-Bench data layout: ``<data_dir>/<category>/{rule,sample,three-shot}.jsonl``.

An item's gold answer is kept *raw* (``[[24]]``, brackets included) because the official scorer
compares several branches against the raw string, and a scorer that reproduces it needs the same
bytes.  The rule text is joined in from ``rule.jsonl`` so a prompt or a report can show which rule
an item tests without a second lookup.

A missing folder or file is a configuration error (one line naming the path and the fix); the data
is never copied into the project, so the usual fix is pointing at the reference folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from relreason_dagster.errors import ConfigError

CATEGORIES: tuple[str, ...] = ("operation", "logic", "cipher", "puzzle", "counterfactual")

_FIX = (
    "point data_dir at the KOR-Bench data folder (e.g. <reference>/korbench/data) "
    "or set RELREASON_REFERENCE_DIR"
)


@dataclass(frozen=True)
class KorItem:
    """One KOR-Bench question.

    ``answer`` is the raw gold string with its ``[[...]]``; ``real_life_answer`` exists only for
    counterfactual (the answer outside the story world), ``subcategory`` only for cipher
    (``Encryption``/``Decryption``, the file's ``category`` field, renamed so it cannot be confused
    with the benchmark category) and ``trick`` only for puzzle (the hint of the Trick experiments).
    """

    category: str
    idx: str
    rule_id: str
    question: str
    answer: str
    rule: str = ""
    rule_title: str = ""
    real_life_answer: str | None = None
    subcategory: str | None = None
    trick: str | None = None


def _read_jsonl(path: Path) -> list[dict]:
    """The JSON objects of a ``.jsonl`` file; a line that is not a JSON object is a ConfigError."""
    if not path.is_file():
        raise ConfigError(f"KOR-Bench file {path} not found; {_FIX}")
    rows: list[dict] = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ConfigError(
                    f"{path}:{number} is not valid JSON ({exc.msg}); restore the official file"
                ) from None
            if not isinstance(row, dict):
                raise ConfigError(f"{path}:{number} is not a JSON object; restore the official file")
            rows.append(row)
    return rows


def category_dir(data_dir: str | Path, category: str) -> Path:
    """The folder of ``category``; accepts the data folder or the ``korbench`` folder above it."""
    if category not in CATEGORIES:
        raise ConfigError(f"unknown KOR-Bench category {category!r}; known: {', '.join(CATEGORIES)}")
    base = Path(data_dir).expanduser()
    for candidate in (base / category, base / "data" / category):
        if candidate.is_dir():
            return candidate
    raise ConfigError(f"KOR-Bench folder {base / category} not found; {_FIX}")


def _opt(row: dict, key: str) -> str | None:
    value = row.get(key)
    return None if value is None else str(value)


def load_category(data_dir: str | Path, category: str) -> dict[str, KorItem]:
    """The items of one category keyed by ``idx`` (a string, as in the files), rule text joined in."""
    folder = category_dir(data_dir, category)
    rules = {str(row.get("idx")): row for row in _read_jsonl(folder / "rule.jsonl")}
    items: dict[str, KorItem] = {}
    for row in _read_jsonl(folder / "sample.jsonl"):
        idx = str(row.get("idx", ""))
        rule_id = str(row.get("rule_id", ""))
        rule = rules.get(rule_id, {})
        items[idx] = KorItem(
            category=category,
            idx=idx,
            rule_id=rule_id,
            question=str(row.get("question", "")),
            answer=str(row.get("answer", "")),
            rule=str(rule.get("rule_content", "")),
            rule_title=str(rule.get("title", "")),
            real_life_answer=_opt(row, "real_life_answer"),
            subcategory=_opt(row, "category") if category == "cipher" else None,
            trick=_opt(row, "trick"),
        )
    return items


@dataclass(frozen=True)
class KorRule:
    """One rule of ``rule.jsonl``: the text a model is shown."""

    category: str
    rule_id: str
    title: str
    text: str


def load_rules(data_dir: str | Path, category: str) -> dict[str, KorRule]:
    """The rules of one category keyed by rule id (the ``idx`` of ``rule.jsonl``)."""
    folder = category_dir(data_dir, category)
    return {
        str(row.get("idx")): KorRule(
            category, str(row.get("idx")), str(row.get("title", "")), str(row.get("rule_content", ""))
        )
        for row in _read_jsonl(folder / "rule.jsonl")
    }


def load_three_shot(data_dir: str | Path, category: str) -> dict[str, list[tuple[str, str]]]:
    """The official three-shot examples per rule id: ``[(question, answer), ...]`` in file order."""
    shots: dict[str, list[tuple[str, str]]] = {}
    for row in _read_jsonl(category_dir(data_dir, category) / "three-shot.jsonl"):
        shots.setdefault(str(row.get("rule_id", "")), []).append(
            (str(row.get("question", "")), str(row.get("answer", "")))
        )
    return shots


def load_mixed(data_dir: str | Path, setting: str) -> list[dict]:
    """The records of ``mixed/<setting>.jsonl`` (``rule_list``/``question_list`` of ``category_id`` ids)."""
    base = Path(data_dir).expanduser()
    for folder in (base / "mixed", base / "data" / "mixed"):
        if folder.is_dir():
            return _read_jsonl(folder / f"{setting}.jsonl")
    raise ConfigError(f"KOR-Bench folder {base / 'mixed'} not found; {_FIX}")


@dataclass(frozen=True)
class RuleItem:
    """A generated question that carries its own rule text (Logic, Counterfactual): the item type
    of the self-contained generators, so they need no reference data.

    ``gold`` and ``real_life_answer`` are raw answers with their ``[[...]]``; ``params`` what the item
    was built from; ``seed``/``index``/``level`` regenerate exactly this item.
    """

    category: str
    rule_id: str
    title: str
    rule: str
    question: str
    gold: str
    seed: int
    index: int
    level: int = 1
    params: dict = field(default_factory=dict)
    real_life_answer: str | None = None

    def as_kor_item(self) -> KorItem:
        """A :class:`KorItem` for the scorers, rule text, title and real-life answer included."""
        return KorItem(
            category=self.category,
            idx=f"gen-{self.rule_id}-{self.seed}-{self.index}",
            rule_id=self.rule_id,
            question=self.question,
            answer=self.gold,
            rule=self.rule,
            rule_title=self.title,
            real_life_answer=self.real_life_answer,
        )
