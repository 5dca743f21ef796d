"""The asset groups of the Dagster UI, and what each holds: one screen of lineage per group.

About fifty assets in one lineage graph cannot be read, so assets are grouped by stage (inputs,
model output, staging) and the metric marts by study.  Dagster shows a group's name but has no
field for its description, so the descriptions live here (and in the README); a unit test keeps
every asset's group in this list.
"""

from __future__ import annotations

GROUPS: dict[str, str] = {
    "inputs": "What the models are asked: generated samples, their prompts, Self-Contra annotations.",
    "model_output": "What the models answered: responses (Parquet lake), parsed and scored answers, DLM "
    "checkpoints and answers, KOR self-correction rounds, Self-Contra judge verdicts, symbolic checks.",
    "staging": "dbt staging views: the raw tables, restricted to the current test prompts.",
    "metrics": "Marts every family shares: answer scores, accuracy, label bias, parse rate, and "
    "sample_results (the per-sample view: prompt, response, gold, parsed answer, score).",
    "relational": "Relational reasoning marts: F1 per task, split and setting, and DLM vs LLM (Table 1).",
    "flenqa": "FLenQA marts: accuracy by input length, padding and position, label bias, CoT and next word.",
    "kor": "KOR-Bench marts: accuracy by category and rule, self-correction, mixed and counterfactual.",
    "selfcontra": "Self-Contra marts: SCR, judged labels, detection F1, categories, correlation, and the "
    "symbolic SCR of relational chains of thought.",
    "report": "Figures (PNG) drawn from the marts; `relreason report` embeds the same pictures.",
}

# dbt marts folders that are a study of their own; marts at the top level go by name, else "metrics".
_MART_FOLDERS = {"flenqa", "kor", "selfcontra"}
_RELATIONAL_MARTS = {"relational_f1", "dlm_vs_llm"}


def dbt_group(fqn: list[str]) -> str:
    """The group of a dbt model from its fully qualified name (project, folders..., model)."""
    if "marts" not in fqn:
        return "staging"
    folder = next((part for part in fqn if part in _MART_FOLDERS), None)
    if folder is not None:
        return folder
    return "relational" if fqn[-1] in _RELATIONAL_MARTS else "metrics"
