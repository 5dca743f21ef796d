"""Whether each model was asked in the wording the study asked it: the per-model step ``selfcontra_wording``.

Why a step of its own: ``marts.selfcontra_vs_study`` puts a model's rates beside the study's only like with
like, and the wording is part of the stimulus (issue 57: the study asked Mistral and Claude WinoGender and
WinoGrande otherwise than GPT-3.5).  Which study model a models.yaml entry is (``prompts.study_model_key``)
is known here, from the entry the launch resolved, not in SQL, so this step compares every prompt the model
answered with the prompt the study would have sent it (the study's wording for that model, and in a
few-shot prompt the study's six demonstrations) and stores the counts per dataset and setting in
``raw.selfcontra_wording``.  It asks no model.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from relreason_dagster.benchmarks.base import (
    ANSWERS_JOIN,
    MODEL_ENTRY,
    Profile,
    Reply,
    Sample,
    Step,
    StepRows,
)
from relreason_dagster.benchmarks.selfcontra import prompts
from relreason_dagster.benchmarks.selfcontra.family import BENCHMARK, demonstrations_file, item_of
from relreason_dagster.benchmarks.selfcontra.study_items import normalized

ASKED_SQL = f"""
SELECT DISTINCT a.prompt_id, a.setting, p.messages, s.benchmark, s.task, s.sample_id, s.split, s.n,
       s.variant, s.input, s.gold, s.label, s.seed, s.generator_version
{ANSWERS_JOIN}
WHERE a.model = ? AND a.benchmark = ?
"""


def study_prompt(
    item: Any, setting: str, model: str, demos: prompts.StudyDemonstrations | None
) -> str | None:
    """The prompt the study would have sent ``model`` (the release's name) for ``item`` in ``setting``;
    None for a few-shot prompt when the study's demonstrations file is not there to build it from."""
    order, shots = prompts.setting_order(setting), prompts.setting_shots(setting)
    if shots == "zero":
        return prompts.study_question_text(item, order, shots, model)
    if demos is None:
        return None
    return prompts.render(item, setting, demos.prefix(item, order), wording="study", model=model)


class Wording(Step):
    """Per model: how many of its prompts were in the wording the study asked that model (no model asked)."""

    name = "selfcontra_wording"
    description = (
        "Per model, dataset and setting: how many of the prompts it answered were worded as the study asked "
        "that model (raw.selfcontra_wording; asks nothing), for marts.selfcontra_vs_study."
    )
    table = "selfcontra_wording"
    stage = "per_model"
    reads_model_entry = True

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        return {"asked": (ASKED_SQL, [model, BENCHMARK])}

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        entry = (stored.get(MODEL_ENTRY) or [{"name": model}])[0]
        key = prompts.study_model_key(entry)
        path = demonstrations_file(profile)
        demos = prompts.StudyDemonstrations(path) if path.is_file() else None
        counts: Counter[tuple[str, str]] = Counter()
        same: Counter[tuple[str, str]] = Counter()
        for row in stored["asked"]:
            where = (row["task"], row["setting"])
            counts[where] += 1
            sent = json.loads(row["messages"])[-1]["content"]
            study = study_prompt(item_of(Sample.from_row(row)), row["setting"], key, demos)
            same[where] += study is not None and normalized(study) == normalized(sent)
        rows = [
            {
                "model": model,
                "dataset": dataset,
                "setting": setting,
                "study_model": key,
                "n": n,
                "n_study_wording": same[(dataset, setting)],
            }
            for (dataset, setting), n in sorted(counts.items())
        ]
        return StepRows(
            rows=rows,
            replace_where="model = ?",
            replace_params=[model],
            summary={
                "study_model": key,
                "prompts": sum(counts.values()),
                "in_study_wording": sum(same.values()),
            },
        )
