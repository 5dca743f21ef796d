"""A baseline's answers asset stays upstream of the shared staging and the marts that read it, though
no file of the shared dbt project names it: its family's ``sources.yml`` declares the source and
``stg_parsed_answers`` reads it through the generated ``registered_baselines()`` macro."""

from __future__ import annotations

import dagster as dg

from relreason_dagster.benchmarks.registry import baseline_names
from relreason_dagster.defs.dbt_families import baseline_source


def test_every_baseline_feeds_the_staged_answers_and_runs_before_the_marts():
    from relreason_dagster.definitions import defs

    graph = defs.resolve_asset_graph()
    staged = dg.AssetKey(["staging", "stg_parsed_answers"])
    parents = graph.get(staged).parent_keys
    assert {dg.AssetKey("parsed_answers"), dg.AssetKey("prompts"), dg.AssetKey("samples")} <= parents
    assert baseline_names(), "the relational family declares the DLM"
    order = {key: i for i, key in enumerate(graph.toposorted_asset_keys)}
    for model in baseline_names():
        answers = dg.AssetKey(baseline_source(model))
        assert answers in parents, f"{model}: its answers asset is not upstream of stg_parsed_answers"
        # A run selecting the baseline and the marts materializes the answers first.
        for mart in ("relational_f1", "dlm_vs_llm"):
            key = dg.AssetKey(["marts", mart])
            assert answers in graph.get_ancestor_asset_keys(key)
            assert order[answers] < order[key]
