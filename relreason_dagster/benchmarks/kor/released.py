"""The study's own models beside a run's: KOR-Bench's released evaluation files, read record by record.

The official repository released its models' zero-shot responses (``eval/results/0923_main``; the
reference folder's ``korbench/responses/`` holds gpt-4o, Qwen2.5-7B-Instruct and
Meta-Llama-3.1-8B-Instruct).  §5's analyses (response style, Operation by direction, Cipher error
types, the real-life ratio against accuracy) are about the study's models; reading their responses
with the same functions a run's answers get puts them in the same marts, beside the user's models.

Each record is judged as ``relreason kor rescore --mode paper`` judges it (the paper's judgement, as
Table 2; against the gold recorded in the file, the gold the study scored with), its ``is_correct``
kept as ``official_correct``.  Nothing is copied into the repository: the files are read from the
profile's ``released_dir`` under ``RELREASON_REFERENCE_DIR``; without them the step stores no rows
and says why in one line.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from relreason_dagster import paths
from relreason_dagster.benchmarks.kor.analysis import cipher_error, operation_direction, response_style
from relreason_dagster.benchmarks.kor.data import KorItem, load_category
from relreason_dagster.benchmarks.kor.parsing import extract_final
from relreason_dagster.benchmarks.kor.scoring import (
    load_records,
    parse_file_name,
    require_parser,
    score_paper,
)
from relreason_dagster.errors import ConfigError

GLOB = "evaluation_*_*.jsonl.json"


@dataclass(frozen=True)
class Released:
    """The rows of every released file found, and each file that could not be read, with why."""

    rows: list[dict[str, Any]]
    files: list[str]
    skipped: list[tuple[str, str]]

    def summary_line(self) -> str:
        """What was read, in one line (the step's metadata and the log)."""
        models = sorted({r["model"] for r in self.rows})
        text = f"{len(self.rows)} released responses of {len(models)} models ({', '.join(models) or '-'})"
        return text + (f"; {len(self.skipped)} files skipped" if self.skipped else "")


def folder_of(released_dir: str | None) -> Path | None:
    """The profile's ``released_dir`` as a path (relative to the reference folder), or None when unset."""
    if not released_dir:
        return None
    raw = Path(released_dir).expanduser()
    return raw if raw.is_absolute() else paths.reference_dir() / raw


def record_row(model: str, setting: str, item: KorItem, record: dict[str, Any]) -> dict[str, Any]:
    """One released record as a ``raw.kor_released`` row: the paper's verdict and §5's readings."""
    recorded = record.get("answer")
    gold = recorded if isinstance(recorded, str) else item.answer
    judged = replace(item, answer=gold)
    response = record.get("response")
    answer = extract_final(response)
    correct = score_paper(response, judged, gold)
    real_gold = record.get("real_life_answer") if isinstance(record.get("real_life_answer"), str) else None
    real_gold = real_gold or item.real_life_answer
    official = record.get("is_correct")
    return {
        "model": model,
        "category": item.category,
        "idx": item.idx,
        "setting": setting,
        "rule_id": item.rule_id,
        "direction": operation_direction(item.question) if item.category == "operation" else None,
        "correct": correct,
        "official_correct": official if isinstance(official, bool) else None,
        "real_life": score_paper(response, judged, real_gold) if real_gold else None,
        "style": response_style(response, answer, gold),
        "cipher_error": cipher_error(judged, response, answer, correct),
    }


def read_released(folder: Path | None, data_dir: Path) -> Released:
    """Every ``evaluation_<model>_<category>_<mode>.jsonl.json`` in ``folder`` as rows; none when the
    folder or the KOR-Bench data is absent (the reason is the one skipped entry)."""
    if folder is None:
        return Released([], [], [("-", "no released_dir in the profile")])
    if not folder.is_dir():
        return Released([], [], [(str(folder), "folder not found (set RELREASON_REFERENCE_DIR)")])
    require_parser()  # the paper's judgement without its parser is an error, never a quiet fallback
    rows: list[dict[str, Any]] = []
    files: list[str] = []
    skipped: list[tuple[str, str]] = []
    items_of: dict[str, dict[str, KorItem]] = {}
    for path in sorted(folder.glob(GLOB)):
        try:
            model, category, mode = parse_file_name(path)
            if category not in items_of:
                items_of[category] = load_category(data_dir, category)
            records = load_records(path)
        except ConfigError as exc:
            skipped.append((path.name, str(exc)))
            continue
        setting = mode.replace("-", "_")
        for record in records:
            item = items_of[category].get(str(record.get("idx", ""))) if isinstance(record, dict) else None
            if item is not None:
                rows.append(record_row(model, setting, item, record))
        files.append(path.name)
    return Released(rows, files, skipped)
