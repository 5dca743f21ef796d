"""The Self-Contra type-frequency figure (the study's Figures 3-4) draws from marts.selfcontra_scr rows."""

from __future__ import annotations

from relreason_dagster.benchmarks.selfcontra.report import FIGURES, TYPE_ORDER, draw_selfcontra_types
from relreason_dagster.results.figures import render_rows

ROWS = [
    {
        "dataset": "winobias",
        "split": split,
        "model": model,
        "setting": setting,
        **dict.fromkeys((column for column, _ in TYPE_ORDER), 2),
    }
    for model in ("gpt3.5", "mistral")
    for setting in ("zero_answer", "few_answer")
    for split in (None, "anti_test")
]


def test_type_frequency_figure_has_a_panel_per_dataset_split_and_a_bar_per_model_and_type() -> None:
    fig = draw_selfcontra_types({"marts.selfcontra_scr": ROWS})
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["winobias", "winobias (anti_test)"]
    bars = fig.axes[0].patches
    assert len(bars) == 2 * len(TYPE_ORDER)
    # Zero- and few-shot combined: every type holds 4 of 20 responses per model.
    assert {round(bar.get_height(), 4) for bar in bars} == {0.2}


def test_type_frequency_figure_is_declared_and_differs_from_its_no_data_panel() -> None:
    spec = next(f for f in FIGURES if f.name == "selfcontra_types")
    assert spec.marts == ("marts.selfcontra_scr",)
    assert render_rows(spec, {"marts.selfcontra_scr": ROWS}) != render_rows(spec, {})
