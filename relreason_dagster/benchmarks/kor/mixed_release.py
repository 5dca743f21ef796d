"""KOR-Bench's released mixed evaluation files (``eval/results/0923_mixed``), scored as a run is scored.

A file is ``evaluation_<model>_mixed_<setting>.jsonl.json``: a list of records with ``idx``, the JSON
object the official code read from the model's reply (``response``; the string ``NULL`` when there
was none), per-question ``details`` (question id, answer) and the official ``pass_rate`` /
``is_correct``.  Each record becomes the mixed sample a run would have asked (the official
``mixed/<setting>.jsonl`` record of that ``idx``) and its reply is judged by the family's own
``parse`` — so the verdicts here are the ones ``marts.kor_mixed`` aggregates.

Table 3's pass rate is the official ``eval/eval.py``'s: the **mean over records** of each record's
share of questions right (a record with no JSON counts 0), not the questions right over all questions
(``pooled_pass_rate``); a reader that pools is 0.85 points below to 3.28 points above the printed
values on the released files.  Any model's file is read the same way: the model is the file name's.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.kor import mixed
from relreason_dagster.benchmarks.kor.data import load_category, load_mixed, load_rules
from relreason_dagster.errors import ConfigError

SETTINGS = ("Multi-Q", "Multi-R", "Multi-RQ", "Multi-RQ_Hard")
_FILE_RE = re.compile(
    r"^evaluation_(?P<model>.+)_mixed_(?P<setting>"
    + "|".join(re.escape(s) for s in SETTINGS)
    + r")\.jsonl\.json$"
)


@dataclass(frozen=True)
class RecordVerdict:
    """One released record judged by us beside the file's own ``pass_rate``."""

    idx: str
    n_questions: int
    n_passed: int
    correct: bool
    file_pass_rate: float
    sample: Any  # the mixed Sample a run would have asked
    response: str  # the reply text we judged (the file's JSON object, re-serialised; "" for NULL)


@dataclass(frozen=True)
class MixedFileScore:
    """A released mixed file: our per-record and pooled pass rates beside the file's."""

    path: str
    model: str
    setting: str
    records: tuple[RecordVerdict, ...]
    skipped: tuple[tuple[str, str], ...]

    @property
    def n(self) -> int:
        return len(self.records)

    @property
    def accuracy(self) -> float:
        return sum(r.correct for r in self.records) / self.n if self.n else 0.0

    @property
    def pass_rate(self) -> float:
        """Table 3's: mean over records of each record's share of questions right."""
        return (
            sum(r.n_passed / r.n_questions for r in self.records if r.n_questions) / self.n if self.n else 0.0
        )

    @property
    def pooled_pass_rate(self) -> float:
        """Questions right over all questions of the file's records (not Table 3's reading)."""
        total = sum(r.n_questions for r in self.records)
        return sum(r.n_passed for r in self.records) / total if total else 0.0

    @property
    def file_pass_rate(self) -> float:
        return sum(r.file_pass_rate for r in self.records) / self.n if self.n else 0.0

    @property
    def agreement(self) -> float:
        """Share of records whose pass rate we compute exactly as the file records it."""
        same = sum(
            abs((r.n_passed / r.n_questions if r.n_questions else 0.0) - r.file_pass_rate) < 1e-9
            for r in self.records
        )
        return same / self.n if self.n else 0.0


def parse_file_name(path: str | Path) -> tuple[str, str]:
    """``(model, setting)`` of a released mixed file's name, or a one-line ConfigError."""
    found = _FILE_RE.match(Path(path).name)
    if not found:
        raise ConfigError(
            f"{Path(path).name}: not a released mixed file; expected "
            f"evaluation_<model>_mixed_<{'|'.join(SETTINGS)}>.jsonl.json"
        )
    return found["model"], found["setting"]


def _reply(response: Any) -> str:
    """The reply text to judge: the JSON object the official code extracted, or nothing."""
    if isinstance(response, dict):
        return json.dumps(response, ensure_ascii=False)
    return ""


def score_file(path: str | Path, data_dir: str | Path, gold_source: str = "file") -> MixedFileScore:
    """Judge every record of one released mixed file with the family's ``parse`` (paper judgement).

    ``gold_source`` ``file``: each question's gold is the one the file recorded in ``details`` (the
    dataset has corrected a few golds since, see SCORER.md); ``data``: the dataset's.  A record whose
    ``idx`` is not in the dataset's mixed file is skipped with why.
    """
    from relreason_dagster.benchmarks.kor.family import KorFamily

    model, setting = parse_file_name(path)
    try:
        rows = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"{path}: not a readable JSON list ({exc}); use the released file unchanged"
        ) from None
    if not isinstance(rows, list):
        raise ConfigError(f"{path}: expected a JSON list of records; use the released file unchanged")
    by_idx = {str(r.get("idx")): r for r in load_mixed(data_dir, setting)}
    items: dict[str, dict[str, Any]] = {}
    rules: dict[str, dict[str, Any]] = {}
    family = KorFamily()
    verdicts: list[RecordVerdict] = []
    skipped: list[tuple[str, str]] = []
    for row in rows:
        idx = str(row.get("idx")) if isinstance(row, dict) else "?"
        official = by_idx.get(idx)
        if official is None:
            skipped.append((idx, f"idx not in mixed/{setting}.jsonl"))
            continue
        golds = {
            d.get("question"): d.get("answer")
            for d in (row.get("details") or [])
            if isinstance(d, dict) and gold_source == "file"
        }
        shown, questions = [], []
        for ref in official.get("rule_list", []):
            category, _, rule_id = str(ref).rpartition("_")
            rules.setdefault(category, load_rules(data_dir, category))
            rule = rules[category][rule_id]
            shown.append({"title": rule.title, "text": rule.text})
        for ref in official.get("question_list", []):
            category, _, q_idx = str(ref).rpartition("_")
            items.setdefault(category, load_category(data_dir, category))
            question = mixed._item_dict(items[category][q_idx])
            if golds.get(ref) is not None:
                question["answer"] = golds[ref]
            questions.append(question)
        record = mixed.MixedRecord(setting, f"{setting}-{idx}", shown, questions)
        sample = family._mixed(record, "official", 0)
        reply = _reply(row.get("response"))
        parsed = family.parse(sample, setting, reply)
        try:
            file_rate = float(row.get("pass_rate") or 0.0)
        except (TypeError, ValueError):
            skipped.append((idx, f"pass_rate {row.get('pass_rate')!r} is not a number"))
            continue
        verdicts.append(
            RecordVerdict(
                idx=idx,
                n_questions=int(parsed.detail["n_questions"]),
                n_passed=int(parsed.detail["n_passed"]),
                correct=bool(parsed.correct),
                file_pass_rate=file_rate,
                sample=sample,
                response=reply,
            )
        )
    return MixedFileScore(str(path), model, setting, tuple(verdicts), tuple(skipped))


def overall(scores: list[MixedFileScore]) -> dict[str, float] | None:
    """Table 3's Overall of one model's Multi-Q, Multi-R and Multi-RQ files (None without all three):
    accuracy the mean of the three accuracies, pass rate the mean of the three pass rates (Multi-R's
    pass rate is its accuracy: one question per record)."""
    by_setting = {s.setting: s for s in scores}
    if not all(k in by_setting for k in ("Multi-Q", "Multi-R", "Multi-RQ")):
        return None
    three = [by_setting[k] for k in ("Multi-Q", "Multi-R", "Multi-RQ")]
    return {
        "accuracy": sum(s.accuracy for s in three) / 3,
        "pass_rate": sum(s.pass_rate for s in three) / 3,
        "pooled_pass_rate": sum(s.pooled_pass_rate for s in three) / 3,
        "file_pass_rate": sum(s.file_pass_rate for s in three) / 3,
    }
