"""The relational study's protocol per setting (``benchmarks/relational/protocol.csv``: test samples per
task and split, few-shot examples per prompt, the DLM's training samples and epochs), which
``marts.relational_vs_study`` holds a run to before it calls a row comparable, re-read from §4.1-4.2 of
the paper text (``$RELREASON_SEEDS_DIR`` or ``<repo>/../shared/seeds``; skipped when absent).

Each row's ``quote`` (fragments separated by `` | ``) must be in the text, and every number of the row
must be what the quote says: digits, or the word ("one") the paper writes.
"""

from __future__ import annotations

import csv
import os
import re
from pathlib import Path

import pytest

from relreason_dagster import paths
from relreason_dagster.benchmarks.relational.prompts import SETTINGS

SEEDS = Path(os.environ.get("RELREASON_SEEDS_DIR") or paths.REPO_ROOT.parent / "shared" / "seeds")
SEED = SEEDS / "relational-reasoning-llms-vs-dlm.txt"
CSV_PATH = paths.REPO_ROOT / "relreason_dagster" / "benchmarks" / "relational" / "protocol.csv"
WORDS = {"one": 1}
# Which phrase of a quote states which column's number.
STATES = {
    "test_samples": r"IID and OOD test samples are set to (\w+)",
    "examples": r"number of training samples is set to (\w+)",
    "train_samples": r"trained on (\w+) training samples",
    "max_epochs": r"at most (\w+) epochs",
}


def _rows() -> list[dict[str, str]]:
    with CSV_PATH.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_every_prompt_setting_and_the_dlm_have_a_row():
    assert sorted(r["setting"] for r in _rows()) == sorted([*SETTINGS, "dlm"])


@pytest.mark.parametrize("row", _rows(), ids=lambda r: r["setting"])
def test_each_number_is_what_the_paper_says(row):
    if not SEED.exists():
        pytest.skip(f"seed text not found: {SEED}")
    text = re.sub(r"\s+", " ", SEED.read_text(encoding="utf-8"))
    quote = row["quote"]
    for fragment in quote.split(" | "):
        assert fragment in text, fragment
    for column, pattern in STATES.items():
        found = re.search(pattern, quote)
        if not row[column]:
            assert found is None, (column, quote)  # nothing stated for the setting: nothing in the CSV
            continue
        assert found is not None, (column, quote)
        word = found.group(1)
        assert int(row[column]) == WORDS.get(word, int(word) if word.isdigit() else -1), (column, word)
