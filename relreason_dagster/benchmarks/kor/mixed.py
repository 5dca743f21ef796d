"""KOR-Bench complex task processing (§6.3): Multi-Q, Multi-R and Multi-RQ prompts and their scoring.

* Multi-Q: 1 rule, 1-10 questions of it; Multi-R: 2-3 rules, 1 question; Multi-RQ: 2-3 rules,
  1-3 questions.  Official records come from ``mixed/<setting>.jsonl``; generated ones are drawn
  (seeded) from the run's own item pool with the same shape, so fresh items get the setting too.
* The model answers in JSON (``{"question1": ..., ...}``).  Two judgements, as for single questions:
  :func:`score_paper` is the official one (how the paper's Table 3 was scored): the span from the
  first ``{`` to the last ``}`` with control characters removed must parse as a JSON object, its
  values (``str()`` of each) are matched in order to the questions and judged by the official rules
  with the list position as ``idx`` (so the idx-based Operation branches never fire), a value needs
  its own ``[[...]]``; :func:`score` is the robust one: the last ``{...}`` block that parses, each
  value scored with the robust scorer (a value without ``[[...]]`` is wrapped, since the JSON itself
  is the answer format here).  A record is correct only if every question is; the pass rate is the
  share of questions answered correctly.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.kor.data import KorItem, load_category, load_mixed, load_rules
from relreason_dagster.benchmarks.kor.items import PoolItem
from relreason_dagster.benchmarks.kor.scoring import score_official, score_robust
from relreason_dagster.errors import ConfigError

SHAPES: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    # setting: ((min, max) rules, (min, max) questions)
    "Multi-Q": ((1, 1), (1, 10)),
    "Multi-R": ((2, 3), (1, 1)),
    "Multi-RQ": ((2, 3), (1, 3)),
}
_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
_OFFICIAL_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")
MAX_SCAN = 200_000


@dataclass(frozen=True)
class MixedRecord:
    """One mixed question set: the rules shown (title, text) and the questions with their golds."""

    setting: str
    record_id: str
    rules: list[dict[str, str]]
    questions: list[dict[str, Any]]

    def row_input(self) -> dict[str, Any]:
        return {"rules": self.rules, "questions": self.questions}


def _item_dict(item: KorItem) -> dict[str, Any]:
    return asdict(item)


def official_records(data_dir: Path, setting: str, n: int) -> list[MixedRecord]:
    """``n`` records of the official ``mixed/<setting>.jsonl``: a fixed random sample, in file order.

    The files are ordered by shape (Multi-RQ: all 2-rule/1-question records first; Multi-Q cycles
    through 1-10 questions), so neither the first ``n`` nor every k-th record covers the shapes; a
    sample drawn with a fixed seed does, and is the same on every run.
    """
    if setting not in SHAPES:
        raise ConfigError(f"kor mixed setting {setting!r} unknown; known: {', '.join(SHAPES)}")
    items: dict[str, dict[str, KorItem]] = {}
    rules: dict[str, dict[str, Any]] = {}
    out: list[MixedRecord] = []
    every = load_mixed(data_dir, setting)
    if 0 < n < len(every):
        chosen = [
            every[k]
            for k in sorted(random.Random(f"kor-mixed-official:{setting}").sample(range(len(every)), n))
        ]
    else:
        chosen = every[: max(n, 0)]
    for row in chosen:
        shown, questions = [], []
        for ref in row.get("rule_list", []):
            category, _, rule_id = str(ref).rpartition("_")
            if category not in rules:
                rules[category] = load_rules(data_dir, category)
            rule = rules[category][rule_id]
            shown.append({"title": rule.title, "text": rule.text})
        for ref in row.get("question_list", []):
            category, _, idx = str(ref).rpartition("_")
            if category not in items:
                items[category] = load_category(data_dir, category)
            questions.append(_item_dict(items[category][idx]))
        out.append(MixedRecord(setting, f"{setting}-{row.get('idx')}", shown, questions))
    return out


def generated_records(pool: list[PoolItem], setting: str, n: int, seed: int) -> list[MixedRecord]:
    """``n`` records of ``setting``'s shape drawn from ``pool`` (seeded; shapes capped by the pool)."""
    if setting not in SHAPES:
        raise ConfigError(f"kor mixed setting {setting!r} unknown; known: {', '.join(SHAPES)}")
    by_rule: dict[tuple[str, str], list[KorItem]] = {}
    for p in pool:
        by_rule.setdefault((p.item.category, p.item.rule_id), []).append(p.item)
    keys = sorted(by_rule)
    if not keys:
        return []
    (r_lo, r_hi), (q_lo, q_hi) = SHAPES[setting]
    rng = random.Random(f"kor-mixed:{setting}:{seed}")
    out: list[MixedRecord] = []
    for k in range(n):
        n_rules = min(rng.randint(r_lo, r_hi), len(keys))
        chosen = rng.sample(keys, n_rules)
        candidates = [item for key in chosen for item in by_rule[key]]
        if setting == "Multi-Q":
            candidates = by_rule[chosen[0]]
        n_questions = min(rng.randint(q_lo, q_hi), len(candidates))
        questions = rng.sample(candidates, n_questions)
        shown = [{"title": by_rule[key][0].rule_title, "text": by_rule[key][0].rule} for key in chosen]
        out.append(
            MixedRecord(setting, f"{setting}-gen-{seed}-{k}", shown, [_item_dict(q) for q in questions])
        )
    return out


def _last_json_object(text: str) -> dict[str, Any] | None:
    """The last ``{...}`` block of ``text`` that parses as a JSON object (trailing commas forgiven)."""
    text = _CONTROL_RE.sub("", text[-MAX_SCAN:])
    ends = [i for i, ch in enumerate(text) if ch == "}"]
    for end in reversed(ends[-50:]):
        depth = 0
        for start in range(end, max(-1, end - 20_000), -1):
            ch = text[start]
            if ch == "}":
                depth += 1
            elif ch == "{":
                depth -= 1
                if depth == 0:
                    block = text[start : end + 1]
                    for candidate in (block, re.sub(r",\s*}", "}", block)):
                        try:
                            value = json.loads(candidate)
                        except (ValueError, RecursionError):  # deeper than Python's stack: not an answer
                            continue
                        if isinstance(value, dict):
                            return value
                    break
    return None


def read_answers(text: str) -> list[str] | None:
    """The answer values of a mixed response, in order; None when it holds no JSON object."""
    found = _last_json_object(text or "")
    if found is None:
        return None
    return ["" if v is None else v if isinstance(v, str) else json.dumps(v) for v in found.values()]


def score(questions: list[dict[str, Any]], text: str) -> tuple[list[str] | None, list[bool], list[str]]:
    """``(answers, verdicts, reasons)`` of a mixed response; missing answers are wrong (``missing``)."""
    answers = read_answers(text)
    verdicts: list[bool] = []
    reasons: list[str] = []
    for k, question in enumerate(questions):
        if answers is None or k >= len(answers):
            verdicts.append(False)
            reasons.append("missing")
            continue
        value = answers[k]
        wrapped = value if "[[" in value else f"[[{value}]]"
        verdict, reason = score_robust(wrapped, KorItem(**question))
        verdicts.append(verdict)
        reasons.append(reason)
    return answers, verdicts, reasons


def read_answers_official(text: str) -> list[str] | None:
    """The official reading of a mixed response: ``str()`` of each value of the JSON object spanning
    the first ``{`` to the last ``}`` (control characters removed); None when there is none."""
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end < start:
        return None
    try:
        found = json.loads(_OFFICIAL_CONTROL_RE.sub("", text[start : end + 1]))
    except (ValueError, RecursionError):
        return None
    if not isinstance(found, dict):
        return None  # the official code would crash on a list; no answer is the same verdict
    return [str(value) for value in found.values()]


def score_paper(questions: list[dict[str, Any]], text: str) -> tuple[list[str] | None, list[bool]]:
    """``(answers, verdicts)`` of a mixed response by the official judgement (Table 3); missing → wrong."""
    answers = read_answers_official(text or "")
    verdicts: list[bool] = []
    for k, question in enumerate(questions):
        if answers is None or k >= len(answers):
            verdicts.append(False)
            continue
        item = KorItem(**{**question, "idx": str(k)})
        verdicts.append(score_official(answers[k], item, symbolic=True))
    return answers, verdicts
