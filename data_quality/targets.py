"""The bounds the data-quality suites enforce, per family; edit here, not in the suites.

Label balance is the positive share of target cells per task (binary relations
are sparse by nature, unary ones should be neither all-true nor all-false).
Token ranges are per prompt setting, counted with the local model's tokenizer.
"""

from __future__ import annotations

# (min, max) positive share of target cells per (benchmark, task); "*" is the family default.
LABEL_BALANCE: dict[str, dict[str, tuple[float, float]]] = {
    "relational": {
        "*": (0.005, 0.95),
        "HasFather": (0.2, 0.95),
        "HasSister": (0.05, 0.9),
        "1-Outdegree": (0.05, 0.9),
        "2-Outdegree": (0.05, 0.9),
        "IsMGUncle": (0.0, 0.2),
    },
    # FLenQA is balanced by construction: exactly half True in every length/padding/position cell.
    "flenqa": {"*": (0.5, 0.5)},
    # Self-Contra: share of items whose answer is the first-named candidate; the built-in generator is
    # balanced by construction, the study's datasets are roughly balanced.
    "selfcontra": {"*": (0.2, 0.8), "generated": (0.5, 0.5)},
}

# (min, max) input tokens per (benchmark, setting).
TOKEN_RANGES: dict[str, dict[str, tuple[int, int]]] = {
    "relational": {
        "nl": (50, 32768),
        "nl_cot": (50, 32768),
        "tv": (50, 65536),
    },
    # FLenQA prompts are checked against their own per-prompt targets (suites.token_targets).
    "flenqa": {"direct": (50, 8192), "cot": (50, 8192), "next_word": (50, 8192)},
    # Zero-shot Wino questions are one sentence; few-shot ones carry six demonstrations.
    "selfcontra": {
        "zero_answer": (20, 512),
        "zero_reason": (20, 512),
        "few_answer": (200, 4096),
        "few_reason": (200, 4096),
    },
}

# Minimum share of readable answers (ok / (ok + na)) per model; below it the check fails (warning).
MIN_PARSE_RATE = 0.5


def label_bounds(benchmark: str, task: str) -> tuple[float, float]:
    family = LABEL_BALANCE.get(benchmark, {})
    return family.get(task, family.get("*", (0.0, 1.0)))


def token_range(benchmark: str, setting: str) -> tuple[int, int]:
    return TOKEN_RANGES.get(benchmark, {}).get(setting, (1, 10**9))
