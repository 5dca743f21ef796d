"""What the report shows of KOR-Bench: accuracy by category with the self-correction rounds (a figure),
the real-life ratio against accuracy across models (§5 / App. E, a figure), accuracy by category as a
table, accuracy with the rule and withheld (§6.4's only questions), and our models beside the study's
published ones (its Table 2).

Found by name (``registry.family_sections``, ``family_headlines``); ``results/`` renders it without
knowing the family.
"""

from __future__ import annotations

from typing import Any

from relreason_dagster.benchmarks import plotting
from relreason_dagster.benchmarks.base import (
    Comparison,
    FigureSpec,
    HeadlineTable,
    ReportSection,
    ReportTable,
    Rows,
)
from relreason_dagster.benchmarks.kor.family import BENCHMARK

CATEGORIES = ("operation", "logic", "cipher", "puzzle", "counterfactual", "overall")


def draw_kor(rows_by_mart: dict[str, Rows]) -> Any:
    """Accuracy per category (bars, 95% Wilson whiskers) and accuracy after each self-correction round."""
    plt = plotting.plt()
    acc = rows_by_mart["marts.kor_accuracy"]
    rounds = [r for r in rows_by_mart["marts.kor_self_correction"] if r["category"] == "overall"]
    fig, (ax_cat, ax_round) = plt.subplots(
        1, 2, figsize=(plotting.WIDTH_IN, 3.6), gridspec_kw={"width_ratios": [3, 2]}
    )
    colors = plotting.model_colors([r["model"] for r in acc + rounds])
    if acc:
        series = sorted({(r["model"], r["source"], r["setting"]) for r in acc})
        palette = {s: colors[s[0]] for s in series}
        hatches = ["", "//", "..", "xx"]
        categories = [c for c in CATEGORIES if any(r["category"] == c for r in acc)]
        width = 0.8 / len(series)
        for i, key in enumerate(series):
            points = [r for r in acc if (r["model"], r["source"], r["setting"]) == key]
            x = [categories.index(r["category"]) + (i - (len(series) - 1) / 2) * width for r in points]
            ax_cat.bar(
                x,
                [r["accuracy"] for r in points],
                width=width * 0.92,
                color=palette[key],
                hatch=hatches[i % len(hatches)] if len({s[0] for s in series}) < len(series) else "",
                yerr=plotting.error_bars(points, "accuracy", "ci_low", "ci_high"),
                error_kw={"elinewidth": 0.8, "capsize": 1.5},
                label=f"{key[0]} · {key[1]} · {key[2]}",
                edgecolor="white",
                linewidth=0.5,
            )
        ax_cat.set_xticks(range(len(categories)), categories, rotation=20, fontsize=8)
        ax_cat.set_ylim(0, 1.05)
        ax_cat.set_ylabel("accuracy")
        ax_cat.grid(axis="y", alpha=0.3)
    else:
        plotting.no_data(ax_cat, "No KOR-Bench answers yet:\nrun `relreason run --model M --benchmark kor`.")
    ax_cat.set_title("accuracy by category", fontsize=10)
    if rounds:
        for key in sorted({(r["model"], r["source"]) for r in rounds}):
            points = sorted((r for r in rounds if (r["model"], r["source"]) == key), key=lambda r: r["round"])
            x = [r["round"] for r in points]
            ax_round.plot(
                x,
                [r["accuracy"] for r in points],
                marker="o",
                color=colors[key[0]],
                label=f"{key[0]} · {key[1]} (self-correction)",
            )
            ax_round.fill_between(
                x,
                [r["ci_low"] for r in points],
                [r["ci_high"] for r in points],
                color=colors[key[0]],
                alpha=0.15,
            )
        ax_round.set_xticks(sorted({r["round"] for r in rounds}))
        ax_round.set_xlabel("round (0 = zero-shot answer)")
        ax_round.set_ylim(-0.02, 1.05)
        ax_round.grid(alpha=0.3)
    else:
        plotting.no_data(ax_round, "No self-correction rounds yet\n(profile knob self_correction_rounds).")
    ax_round.set_title("self-correction: accuracy after each round", fontsize=10)
    bottom = plotting.legend_below(fig, [ax_cat, ax_round], ncol=2)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


# How each origin of marts.kor_real_life_vs_accuracy is drawn: the study's printed models as a grey
# backdrop (chat circles, base triangles), its released models as black crosses, a run's models coloured.
_SETTING_MARKERS = {"zero_shot": "o", "three_shot": "^"}


def draw_real_life(rows_by_mart: dict[str, Rows]) -> Any:
    """§5 / App. E: real-life answer ratio (counterfactual) against overall accuracy, one point per model."""
    plt = plotting.plt()
    rows = [
        r
        for r in rows_by_mart["marts.kor_real_life_vs_accuracy"]
        if r.get("accuracy") is not None and r.get("real_life_rate") is not None
    ]
    fig, ax = plt.subplots(figsize=(plotting.WIDTH_IN, 3.8))
    ours = [r for r in rows if r["origin"] == "relreason"]
    if not ours:
        plotting.no_data(
            ax, "No counterfactual answers of a run yet:\nrun `relreason run --model M --benchmark kor`."
        )
    for setting, marker in _SETTING_MARKERS.items():
        printed = [r for r in rows if r["origin"] == "Table 2" and r["setting"] == setting]
        if printed:
            kind = "chat, zero-shot" if setting == "zero_shot" else "base, three-shot"
            ax.scatter(
                [r["accuracy"] for r in printed],
                [r["real_life_rate"] for r in printed],
                marker=marker,
                s=18,
                color="0.7",
                label=f"Table 2 ({kind})",
            )
    released = [r for r in rows if r["origin"] == "released"]
    if released:
        ax.scatter(
            [r["accuracy"] for r in released],
            [r["real_life_rate"] for r in released],
            marker="x",
            s=40,
            color="black",
            label="the study's models, from its released files",
        )
    colors = plotting.model_colors([r["model"] for r in ours])
    for r in ours:
        low, high = r.get("real_life_ci_low"), r.get("real_life_ci_high")
        rate = r["real_life_rate"]
        yerr = None if low is None or high is None else [[rate - low], [high - rate]]
        ax.errorbar(
            [r["accuracy"]],
            [r["real_life_rate"]],
            yerr=yerr,
            fmt=_SETTING_MARKERS.get(r["setting"], "s"),
            color=colors[r["model"]],
            capsize=2,
            label=f"{r['model']} · {r['source']} · {r['setting']}",
        )
    ax.set_xlim(-0.02, 1.0)
    ax.set_ylim(-0.02, max([0.5, *(r["real_life_rate"] + 0.05 for r in rows)]))
    ax.set_xlabel("overall accuracy")
    ax.set_ylabel("real-life answers (counterfactual)")
    ax.grid(alpha=0.3)
    ax.set_title("real-life answers against accuracy", fontsize=10)
    bottom = plotting.legend_below(fig, [ax], ncol=2)
    fig.tight_layout(rect=(0, bottom, 1, 1))
    return fig


FIGURES = (
    FigureSpec(
        name="kor_accuracy",
        asset_name="kor_plot",
        study=BENCHMARK,
        title="KOR-Bench: accuracy by category and self-correction",
        caption="Accuracy per rule category and overall (the paper's judgement: the official scorer with its "
        "symbolic step working, as Table 2) with 95% Wilson whiskers; right: "
        "accuracy after each self-correction round (round 0 = zero-shot), overall.",
        marts=("marts.kor_accuracy", "marts.kor_self_correction"),
        draw=draw_kor,
        hint=f"relreason run --model M --benchmark {BENCHMARK}",
    ),
    FigureSpec(
        name="kor_real_life",
        asset_name="kor_real_life_plot",
        study=BENCHMARK,
        title="KOR-Bench: real-life answers against accuracy (§5, App. E)",
        caption="Each model's share of counterfactual answers that are the real-world one (95% "
        "Wilson whiskers) against its overall accuracy, the paper's judgement; grey: every model of "
        "the study's Table 2 as printed (circles chat zero-shot, triangles base three-shot); black "
        "crosses: the study's models recomputed from its released files (when the reference folder "
        "has them); coloured: a run's models.  §5: as accuracy rises, real-life answers fall "
        "(marts.kor_real_life_vs_accuracy, pearson_r).",
        marts=("marts.kor_real_life_vs_accuracy",),
        draw=draw_real_life,
        hint=f"relreason run --model M --benchmark {BENCHMARK}",
    ),
)

CATEGORY_TABLE = ReportTable(
    key="kor",
    title="KOR-Bench: accuracy by category",
    note="The paper's judgement (the official scorer with its symbolic step working, as Table 2), per "
    "question source and prompt setting; 95% Wilson interval (marts.kor_accuracy; robust_accuracy there "
    "is ours).",
    marts=("marts.kor_accuracy",),
    row_keys=("source", "setting", "category"),
    sql="SELECT source, setting, category, model, accuracy AS value, ci_low AS low, ci_high AS high, n "
    "FROM marts.kor_accuracy",
    last=("overall",),
)

KNOWLEDGE_IMPACT_TABLE = ReportTable(
    key="kor_knowledge_impact",
    title="KOR-Bench: accuracy with the rule and without it (§6.4 only questions, App. A knowledge impact)",
    note="The same questions asked with the rule and with it withheld (App. K's only-questions prompt: "
    "the official template without its rule section), paired; per shots and category, the paper's "
    "judgement, 95% Wilson interval on the rule-withheld accuracy; difference = given - withheld, the "
    "rule's contribution (marts.kor_knowledge_impact).",
    marts=("marts.kor_knowledge_impact",),
    row_keys=("source", "shots", "category", "rule"),
    sql="SELECT source, shots, category, 'given' AS rule, model, accuracy_with_rule AS value, "
    "NULL AS low, NULL AS high, n FROM marts.kor_knowledge_impact "
    "UNION ALL SELECT source, shots, category, 'withheld', model, accuracy_without_rule, without_ci_low, "
    "without_ci_high, n FROM marts.kor_knowledge_impact "
    "UNION ALL SELECT source, shots, category, 'difference', model, difference, NULL, NULL, n "
    "FROM marts.kor_knowledge_impact",
    first=(*CATEGORIES[:-1], "given", "withheld", "difference"),
    last=("overall",),
)

VS_STUDY = Comparison(
    key="kor_vs_study",
    title="KOR-Bench: our models beside the study's (Tables 2 and 3)",
    mart="marts.kor_vs_study",
    note="Accuracy per setting and category (Table 2: single questions, with the counterfactual "
    "real-life ratio), and accuracy and pass rate of the mixed questions (Table 3); columns marked "
    "published are the study's models as its tables print them (marts.kor_vs_study).",
    footnote="Protocol: only our answers to the official KOR-Bench questions are compared (generated "
    "questions are other questions), scored as the study scored them (the official scorer with its "
    "symbolic step); the study asked chat models zero-shot and base models three-shot.",
    first=CATEGORIES[:-1],
    last=("overall",),
)


SECTIONS = (
    ReportSection(
        key=BENCHMARK,
        title="KOR-Bench: knowledge-orthogonal reasoning",
        label="KOR-Bench",
        order=30,
        figures=FIGURES,
        tables=(CATEGORY_TABLE, KNOWLEDGE_IMPACT_TABLE),
        comparisons=(VS_STUDY,),
    ),
)

HEADLINES = (
    HeadlineTable(
        "marts.kor_response_style (KOR-Bench §5: visible reasoning, the bare answer, placeholders, overall; "
        "released = the study's models from its released files)",
        "SELECT released, model, source, setting, n, reasoning_rate, answer_only_rate, placeholder_rate, "
        "empty_rate, accuracy FROM marts.kor_response_style WHERE category = 'overall' "
        "ORDER BY released, model, source, setting",
    ),
    HeadlineTable(
        "marts.kor_operation_direction (KOR-Bench §5: Operation accuracy, forward against inverse)",
        "SELECT released, model, source, setting, direction, n, accuracy, ci_low, ci_high "
        "FROM marts.kor_operation_direction ORDER BY released, model, source, setting, direction",
    ),
    HeadlineTable(
        "marts.kor_cipher_errors (KOR-Bench §5: wrong cipher answers by error type)",
        "SELECT released, model, source, setting, error_type, n, n_wrong, share_of_wrong "
        "FROM marts.kor_cipher_errors ORDER BY released, model, source, setting, n DESC",
    ),
    HeadlineTable(
        "marts.kor_real_life_vs_accuracy (KOR-Bench §5 / App. E: real-life ratio against accuracy; "
        "Table 2's printed models left out here)",
        "SELECT origin, model, source, setting, n, accuracy, real_life_rate, real_life_ci_low, "
        "real_life_ci_high, pearson_r FROM marts.kor_real_life_vs_accuracy WHERE origin <> 'Table 2' "
        "ORDER BY origin, model, source, setting",
    ),
    HeadlineTable(
        "marts.kor_dataset_stats (KOR-Bench Table 1 of the questions asked: rules, lengths in characters, "
        "answer formats)",
        "SELECT source, category, n_rules, rule_length_mean, rule_length_max, n_questions, "
        "question_length_mean, answer_formats FROM marts.kor_dataset_stats ORDER BY source, category",
    ),
    HeadlineTable(
        "marts.kor_trick (KOR-Bench App. F.2: puzzle accuracy without and with the trick, paired)",
        "SELECT model, source, n, accuracy_zero_shot, accuracy_trick, trick_ci_low, trick_ci_high, delta "
        "FROM marts.kor_trick ORDER BY model, source",
    ),
    HeadlineTable(
        "marts.kor_knowledge_impact (KOR-Bench §6.4 / App. K: accuracy with the rule and withheld, paired)",
        "SELECT model, source, shots, n, accuracy_with_rule, accuracy_without_rule, without_ci_low, "
        "without_ci_high, difference FROM marts.kor_knowledge_impact WHERE category = 'overall' "
        "ORDER BY model, source, shots",
    ),
    HeadlineTable(
        "marts.kor_stepwise (KOR-Bench §6.1: cipher sub-steps one by one, accuracy and error rate by type)",
        "SELECT model, source, step_type, n, accuracy, ci_low, ci_high, error_rate, robust_accuracy "
        "FROM marts.kor_stepwise ORDER BY model, source, step_type",
    ),
    HeadlineTable(
        "marts.kor_token_stats (KOR-Bench Table 7: input and output tokens in cl100k_base, mean and sd)",
        "SELECT model, source, setting, category, n, input_mean, input_sd, output_mean, output_sd "
        "FROM marts.kor_token_stats ORDER BY model, source, setting, category",
    ),
    HeadlineTable(
        "marts.kor_accuracy (KOR-Bench: accuracy by category as the paper judged it; official_accuracy = "
        "the released files' judgement, robust_accuracy = ours)",
        "SELECT model, source, setting, category, n, n_correct, n_na, n_cut, accuracy, ci_low, ci_high, "
        "official_accuracy, robust_accuracy FROM marts.kor_accuracy "
        "ORDER BY model, source, setting, category",
    ),
    HeadlineTable(
        "marts.kor_self_correction (KOR-Bench: accuracy after each self-correction round, overall)",
        "SELECT model, source, round, n, n_correct, accuracy, n_corrected, correction_rate "
        "FROM marts.kor_self_correction WHERE category = 'overall' ORDER BY model, source, round",
    ),
    HeadlineTable(
        "marts.kor_mixed (KOR-Bench: Multi-Q / Multi-R / Multi-RQ; pass_rate = mean of the records' "
        "shares, as Table 3; pooled_pass_rate = questions right / questions)",
        "SELECT model, source, setting, n, accuracy, n_questions, pass_rate, pooled_pass_rate "
        "FROM marts.kor_mixed "
        "ORDER BY model, source, setting",
    ),
)
