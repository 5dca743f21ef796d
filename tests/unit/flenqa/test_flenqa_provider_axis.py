"""The FLenQA accuracy figures drawn against the provider-counted length instead of the target (issue 56).

Rows are made here in the marts' shapes; the test reads the x data matplotlib was given.
"""

from __future__ import annotations

import pytest

from relreason_dagster.benchmarks.flenqa import report
from relreason_dagster.benchmarks.plotting import plt
from relreason_dagster.errors import ConfigError

ACC = "marts.flenqa_accuracy_by_length"


def _acc(model: str, length: int) -> dict:
    return {
        "model": model,
        "task": "MonoRel",
        "setting": "direct",
        "length": length,
        "accuracy": 0.5,
        "ci_low": 0.2,
        "ci_high": 0.8,
    }


def _rows(provider: list[dict]) -> dict[str, list[dict]]:
    return {
        ACC: [_acc(m, n) for m in ("a", "b") for n in (0, 250, 1000)],
        "marts.flenqa_label_bias": [],
        report.PROVIDER_MART: provider,
    }


def _xs(fig) -> dict[str, list[float]]:
    ax = fig.axes[0]
    return {line.get_label(): list(line.get_xdata()) for line in ax.get_lines() if line.get_label()[0] != "_"}


PROVIDER = [
    {"model": "a", "length": 0, "mean_provider_tokens": 410.5},
    {"model": "a", "length": 250, "mean_provider_tokens": 433.0},
    {"model": "a", "length": 1000, "mean_provider_tokens": 1402.6},
    {"model": "b", "length": 0, "mean_provider_tokens": 300.0},
    {"model": "b", "length": 250, "mean_provider_tokens": 380.0},
    {"model": "b", "length": 1000, "mean_provider_tokens": None},  # no reply reported usage
]


def test_each_point_sits_at_its_models_provider_count_and_a_cell_without_one_is_left_out():
    fig = report.draw_flenqa(_rows(PROVIDER), axis="provider")
    try:
        assert _xs(fig) == {"a · direct": [410.5, 433.0, 1402.6], "b · direct": [300.0, 380.0]}
        assert "provider-counted" in fig.axes[0].get_xlabel()
    finally:
        plt().close(fig)


def test_the_default_axis_is_the_target():
    fig = report.draw_flenqa(_rows(PROVIDER))
    try:
        assert _xs(fig) == {"a · direct": [0.0, 1.0, 2.0], "b · direct": [0.0, 1.0, 2.0]}
        assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["min", "250", "1000"]
    finally:
        plt().close(fig)


def test_no_provider_counts_says_so_instead_of_an_empty_axis():
    fig = report.draw_flenqa(_rows([]), axis="provider")
    try:
        assert report.NO_PROVIDER_COUNTS in [t.get_text() for t in fig.axes[0].texts]
    finally:
        plt().close(fig)


def test_the_process_axis_switches_the_study_figures_too():
    spec = next(f for f in report.FIGURES if f.name == "flenqa_figure1")
    rows = {"marts.flenqa_figure1": [_acc("a", 250), _acc("a", 1000)], report.PROVIDER_MART: PROVIDER}
    report.set_length_axis("provider")
    try:
        fig = spec.draw(rows)
    finally:
        report.set_length_axis("target")
    try:
        assert _xs(fig) == {"a · direct": [433.0, 1402.6]}
    finally:
        plt().close(fig)


def test_an_unknown_axis_is_one_line_naming_the_choices():
    with pytest.raises(ConfigError, match=r"^FLenQA length axis 'tokens': use target or provider$"):
        report.set_length_axis("tokens")
