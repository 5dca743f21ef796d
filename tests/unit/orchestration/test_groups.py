"""The UI's mart groups follow the marts folders the families declare."""

from __future__ import annotations

from relreason_dagster.defs.groups import GROUPS, dbt_group


def test_marts_go_to_the_group_of_the_family_folder_they_sit_in():
    assert dbt_group(["relreason", "staging", "stg_samples"]) == "staging"
    assert dbt_group(["relreason", "marts", "kor", "kor_accuracy"]) == "kor"
    assert dbt_group(["relreason", "marts", "flenqa", "flenqa_cot"]) == "flenqa"
    assert dbt_group(["relreason", "marts", "relational", "relational_symbolic_scr"]) == "relational"
    # Top level: named after a family's folder or baseline, else shared by every family.
    assert dbt_group(["relreason", "marts", "relational_f1"]) == "relational"
    assert dbt_group(["relreason", "marts", "dlm_vs_llm"]) == "relational"
    assert dbt_group(["relreason", "marts", "accuracy"]) == "metrics"
    assert {"kor", "flenqa", "selfcontra", "relational", "metrics"} <= set(GROUPS)
