"""KOR-Bench §6.1 stepwise prompting of the cipher bottlenecks (Figure 4, Table 13).

The official data (``cipher/subquestions.json``) breaks 50 cipher questions of five error-prone
rules into sequential sub-steps, each typed (Table 13's nine types: Substitution, Shift, Mapping,
Calculation, ...) and with its own gold.  Each sub-step is asked as its own question, the way the
official inference code builds it: the cipher zero-shot prompt with the rule and, as the question,
the item's ``input`` + a blank line + the step's ``description``.  It is judged like a cipher answer
(paper's judgement: the cleaned first ``[[...]]`` equals the step's gold).  ``marts.kor_stepwise``
gives the accuracy per sub-step type and its error rate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.kor.data import KorItem, category_dir, load_rules
from relreason_dagster.errors import ConfigError

STEPWISE_TASK = "cipher_step"
FILE = "subquestions.json"


def load_subquestions(data_dir: str | Path) -> list[dict[str, Any]]:
    """The official stepwise cipher items (a JSON list); a missing or malformed file is a ConfigError."""
    path = category_dir(data_dir, "cipher") / FILE
    if not path.is_file():
        raise ConfigError(
            f"KOR-Bench file {path} not found; set the kor profile's stepwise: false or point "
            "data_dir at the official data"
        )
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(
            f"{path} is not JSON ({exc.msg}); expected the official subquestions list"
        ) from None
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        raise ConfigError(f"{path}: expected a JSON list of objects (the official subquestions file)")
    return rows


def step_items(
    data_dir: str | Path, rule_ids: list[str] | None = None, per_rule: int | None = None
) -> list[tuple[KorItem, dict[str, Any]]]:
    """Every sub-step as a cipher ``KorItem`` (idx ``<item>.<step>``) with its facts (type, position).

    ``rule_ids`` keeps the items of those cipher rules only, ``per_rule`` the first that many items of
    each rule (the profile's ``rules.cipher`` and ``questions_per_rule``); None keeps all.
    """
    rules = load_rules(data_dir, "cipher")
    out: list[tuple[KorItem, dict[str, Any]]] = []
    taken: dict[str, int] = {}
    for row in load_subquestions(data_dir):
        rule_id = str(row.get("rule_id", ""))
        if rule_ids is not None and rule_id not in rule_ids:
            continue
        taken[rule_id] = taken.get(rule_id, 0) + 1
        if per_rule is not None and taken[rule_id] > per_rule:
            continue
        rule = rules.get(rule_id)
        if rule is None:
            raise ConfigError(
                f"{FILE}: item {row.get('idx')} names cipher rule {rule_id!r}, not in rule.jsonl"
            )
        steps = row.get("steps_details") or []
        for detail in steps:
            step = int(detail.get("step", 0))
            item = KorItem(
                category="cipher",
                idx=f"{row.get('idx')}.{step}",
                rule_id=rule_id,
                question=f"{row.get('input', '')}\n\n{detail.get('description', '')}",
                answer=str(detail.get("answer", "")),
                rule=rule.text,
                rule_title=rule.title,
                subcategory=row.get("category"),
            )
            facts = {
                "item_idx": str(row.get("idx")),
                "step": step,
                "steps_num": int(row.get("steps_num") or len(steps)),
                "step_type": str(detail.get("type", "")),
            }
            out.append((item, facts))
    return out
