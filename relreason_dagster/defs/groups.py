"""The asset groups of the Dagster UI, and what each holds: one screen of lineage per group.

About fifty assets in one lineage graph cannot be read, so assets are grouped by stage (inputs,
model output, staging) and the metric marts by study: each family's marts (its ``dbt/marts/``,
linked as ``marts/<marts_folder>/``, the folder name declared by the family) are a group of their own.
Dagster shows a group's name but has no field for its description, so the descriptions live here and in the
families; a unit test keeps every asset's group in this list.
"""

from __future__ import annotations

from relreason_dagster.benchmarks.registry import FAMILIES

STAGE_GROUPS: dict[str, str] = {
    "inputs": "What the models are asked: generated samples, their prompts, and the families' inputs "
    "steps (e.g. imported human annotations).",
    "model_output": "What the models answered: responses (Parquet lake), parsed and scored answers, DLM "
    "checkpoints and answers.",
    "follow_ups": "The families' follow-up steps on those answers: self-correction rounds, judge verdicts "
    "and probes, symbolic checks, trace readings (a group of their own: with them, model_output outgrew "
    "one screen).",
    "staging": "dbt staging views: the raw tables, restricted to the current test prompts.",
    "intermediate": "dbt int_* views: the joins several marts start from (answers with their samples, "
    "the per-sample score, FLenQA and KOR answers with their variants), written once.",
    "metrics": "Marts every family shares: answer scores, accuracy, label bias, parse rate, and "
    "sample_results (the per-sample view: prompt, response, gold, parsed answer, score).",
    "report": "Figures (PNG) drawn from the marts; `relreason report` embeds the same pictures.",
    "lengths": "Prompt lengths against models: the prompts each model left out as too long for its context "
    "window (prompts_too_long, flenqa_too_long; `relreason run --skip-too-long`) and FLenQA's lengths as the "
    "provider counted them (flenqa_provider_lengths).",
    "budget": "Thinking budget: each study's <family>_budget mart, accuracy by sweep level (models.yaml "
    "`sweep:`) with its interval, reasoning tokens, cut share and McNemar between adjacent levels.",
}


def mart_folders() -> dict[str, str]:
    """Each registered family's marts folder and what its marts hold."""
    folders = {}
    for family in FAMILIES.values():
        folder = getattr(family, "marts_folder", None)
        if folder:
            folders[folder] = getattr(family, "marts_description", f"{family.name} marts.")
    return folders


GROUPS: dict[str, str] = {**STAGE_GROUPS, **mart_folders()}


def dbt_group(fqn: list[str]) -> str:
    """The group of a dbt model from its fully qualified name (project, folders..., model).

    A study's ``<family>_budget`` mart is in ``budget`` with the other studies' (the levels of a sweep are
    read side by side), the ``*_too_long`` and ``*_provider_lengths`` marts in ``lengths``; any other
    mart in a family's folder is in that family's group; so is a top-level mart named after the family's
    folder or one of its baselines (``<folder>_...``, ``dlm_...``); every other top-level mart is shared
    (``metrics``).
    """
    if "intermediate" in fqn:
        return "intermediate"
    if "marts" not in fqn:
        return "staging"
    if fqn[-1].endswith(("_too_long", "_provider_lengths")):  # lengths against windows, read together
        return "lengths"
    if fqn[-1].endswith("_budget"):  # one group for a sweep's marts, whatever the study (macros/budget.sql)
        return "budget"
    folders = mart_folders()
    folder = next((part for part in fqn[:-1] if part in folders), None)
    if folder is not None:
        return folder
    for family in FAMILIES.values():
        folder = getattr(family, "marts_folder", None)
        prefixes = (folder, *getattr(family, "baselines", ())) if folder else ()
        if any(fqn[-1].startswith(f"{prefix}_") for prefix in prefixes):
            return folder
    return "metrics"
