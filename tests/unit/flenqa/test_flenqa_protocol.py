"""FLenQA's protocol as the paper profile states it, and the report's figures of the study.

The study ran every model at temperature 0 and top-p 0 (Appendix E); the paper profile states them,
the gateway sends them over the model's own params and keys the cache on them (the wire is checked
against a fake server in ``tests/integration/families/test_flenqa_paper.py``).  The report draws each of the
study's figures from the mart that pools what the study pooled, and the headline's Figure 1 is
``marts.flenqa_figure1``.
"""

from __future__ import annotations

from relreason_dagster import profiles
from relreason_dagster.benchmarks.flenqa import report
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.request_key import effective_params, request_hash

SPEC = ModelEntry(
    name="m", litellm_model="openai/x", params={"temperature": 0.7, "top_p": 0.9}, concurrency=1
)
MESSAGES = [{"role": "user", "content": "Is it true?"}]


def test_the_paper_profile_states_the_studys_generation_params():
    assert profiles.get_profile("paper", "flenqa").values().generation == {"temperature": 0, "top_p": 0}
    assert profiles.get_profile("smoke", "flenqa").values().generation is None


def test_the_studys_params_win_over_the_models_and_are_in_the_cache_key():
    study = {"temperature": 0, "top_p": 0}
    assert effective_params(SPEC, 64, study) == {"temperature": 0, "top_p": 0, "max_tokens": 64}
    assert effective_params(SPEC, 64) == {"temperature": 0.7, "top_p": 0.9, "max_tokens": 64}
    assert request_hash(SPEC, MESSAGES, 64, study) != request_hash(SPEC, MESSAGES, 64)
    assert request_hash(SPEC, MESSAGES, 64, {}) == request_hash(SPEC, MESSAGES, 64)


def test_the_report_draws_each_studied_figure_from_its_mart():
    by_name = {f.name: f.marts for f in report.FIGURES}
    for n in (1, 3, 4, 5):
        assert by_name[f"flenqa_figure{n}"] == (f"marts.flenqa_figure{n}",)
    assert by_name["flenqa_label_bias"] == ("marts.flenqa_label_bias",)
    for figure in report.STUDY_FIGURES:  # no data yet: a figure saying so, never an exception
        assert figure.draw({m: [] for m in figure.marts}) is not None


def test_the_headline_figure_1_is_the_figure_1_mart():
    named = [h for h in report.HEADLINES if "Figure 1" in h.title]
    assert len(named) == 1 and "marts.flenqa_figure1" in named[0].sql
    assert not any("flenqa_accuracy_by_length" in h.title for h in report.HEADLINES)
