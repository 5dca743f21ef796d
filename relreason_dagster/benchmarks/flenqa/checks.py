"""FLenQA's data-quality bounds and its own check: padding never names the instance's entities.

Length targets are checked per prompt by the shared ``token_target_check`` (every prompt with a
``target_tokens``), so the token ranges here are only a sanity bound.
"""

from __future__ import annotations

import json
from typing import Any

from relreason_dagster.benchmarks.base import FamilyCheck, Profile, QualityBounds
from relreason_dagster.benchmarks.flenqa.padding import mentions
from relreason_dagster.common.gx_validation import SuiteResult, validate

MAX_PROMPT_TOKENS = 1_048_576

QUALITY = QualityBounds(
    # Balanced by construction: exactly half True in every length/padding/position cell.
    label_balance={"*": (0.5, 0.5)},
    # The upper bound is a sanity bound only (the targets are checked per prompt): the long profile
    # reaches 128k tokens and a user profile may state any length, so it is a 1M-token window's.
    token_ranges={setting: (50, MAX_PROMPT_TOKENS) for setting in ("direct", "cot", "next_word")},
)


def padding_entities(samples: Any, profile: Profile | None = None, seed: int = 0) -> SuiteResult:
    """*Similar* padding: no padding paragraph names an entity of its own instance.

    ``samples`` has ``sample_id``, ``task``, ``padding`` and ``input`` (JSON with ``paragraphs``,
    ``key_index`` and ``entities``); the mention test is the generator's own word match.
    """
    import great_expectations.expectations as gxe
    import pandas as pd

    rows = []
    for sample_id, task, kind, raw in zip(
        samples["sample_id"], samples["task"], samples["padding"], samples["input"], strict=True
    ):
        data = json.loads(raw) if isinstance(raw, str) else raw
        keys = set(data["key_index"])
        bad = [i for i, p in enumerate(data["paragraphs"]) if i not in keys and mentions(p, data["entities"])]
        rows.append(
            {"sample_id": sample_id, "task": task, "padding": kind, "offending": len(bad), "clean": not bad}
        )
    df = pd.DataFrame(rows, columns=["sample_id", "task", "padding", "offending", "clean"])
    expectations = [gxe.ExpectColumnValuesToBeInSet(column="clean", value_set=[True])]
    return validate("padding_entities", df, expectations, ["sample_id", "task", "offending"])


CHECKS = (
    FamilyCheck(
        name="padding_entities_check",
        asset="samples",
        description="FLenQA: no padding paragraph of the similar kind names an entity of its own instance.",
        sql="SELECT sample_id, task, json_extract_string(variant, '$.padding') AS padding, input"
        " FROM raw.samples WHERE benchmark = ? AND json_extract_string(variant, '$.padding') = 'similar'",
        run=padding_entities,
    ),
)
