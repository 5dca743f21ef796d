"""Self-Contra costs that do not involve a model: importing annotations, building judge prompts,
the paper profile's items and prompts, and the symbolic step checker.

Why: the study's whole annotation release (12 CSVs, ~1,700 labelled responses) is imported on
every paper run, every labelled response becomes six judge prompts (I+R→O, binary, four FGE
probes), and the symbolic checker runs over every relational CoT response of every model; none
of these may dominate a run whose model calls take seconds each.  The checker is timed on the
gold chain-of-thought of paper-sized samples (every fact a claim, n = 10 and n = 20), the
longest well-formed reasoning the benchmark produces.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from tests.perf._common import time_paper_build


def bench_selfcontra() -> dict[str, Any]:
    from relreason_dagster import paths, profiles
    from relreason_dagster.benchmarks.relational.cot_verdict import check_reasoning
    from relreason_dagster.benchmarks.relational.family import RelationalFamily
    from relreason_dagster.benchmarks.relational.prompts import cot_answer
    from relreason_dagster.benchmarks.selfcontra import detection
    from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_csv
    from relreason_dagster.benchmarks.selfcontra.family import SelfContraFamily, order_of

    out: dict[str, Any] = {}
    folder = paths.reference_dir() / "wino" / "selfcontra_annotations"
    files = sorted(Path(folder).glob("*.csv"))
    if files:
        start = time.perf_counter()
        results = [read_annotation_csv(p) for p in files]
        out["import_s"] = time.perf_counter() - start
        rows = [r for res in results for r in res.rows]
        out["import_files"] = len(files)
        out["import_rows"] = len(rows)
        start = time.perf_counter()
        n_prompts = 0
        for i, row in enumerate(rows):
            order = order_of(row.setting)
            target = detection.target_from_text(str(i), row.question, row.response, order, True)
            for method in detection.METHODS:
                n_prompts += len(detection.judge_prompts(method, target))
        out["judge_prompts"] = n_prompts
        out["judge_prompts_s"] = time.perf_counter() - start

        profile = profiles.get_profile("paper", "selfcontra")
        out.update(time_paper_build(SelfContraFamily(), profile))

    relational = RelationalFamily()
    rel_profile = profiles.get_profile("paper", "relational")
    generated = relational.generate(rel_profile, profiles.DEFAULT_SEED)
    samples = [s for s in generated if s.split in ("iid", "ood")]
    texts = [(s, cot_answer(s)) for s in samples]
    start = time.perf_counter()
    categories: dict[str, int] = {}
    claims = 0
    for sample, text in texts:
        verdict = check_reasoning(sample, text, True)
        categories[verdict.category] = categories.get(verdict.category, 0) + 1
        claims += len(verdict.claims)
    seconds = time.perf_counter() - start
    out["symbolic_responses"] = len(texts)
    out["symbolic_claims"] = claims
    out["symbolic_s"] = seconds
    out["symbolic_categories"] = categories
    out["symbolic_chars_mean"] = sum(len(t) for _, t in texts) / max(1, len(texts))
    return out


def render(result: dict[str, Any]) -> str:
    lines = ["## Self-Contra (no model calls)", ""]
    if "import_s" in result:
        judge_rate = result["judge_prompts"] / result["judge_prompts_s"]
        lines += [
            f"- annotation import: {result['import_files']} CSVs, {result['import_rows']:,} labelled rows in "
            f"{result['import_s']:.2f} s ({result['import_rows'] / result['import_s']:,.0f} rows/s)",
            f"- judge prompts (I+R→O, binary, 4 FGE probes) for every row: {result['judge_prompts']:,} in "
            f"{result['judge_prompts_s']:.2f} s ({judge_rate:,.0f}/s)",
            f"- paper profile items + prompts (WinoBias, WinoGender, WinoGrande from the reference folder): "
            f"{result['paper_samples']} items, {result['paper_prompts']} prompts in "
            f"{result['paper_build_s']:.2f} s",
        ]
    else:
        lines.append("- reference folder not found: annotation import, judge prompts and paper items skipped")
    rate = result["symbolic_responses"] / result["symbolic_s"]
    lines += [
        f"- symbolic checker on the gold CoT of the relational paper samples (IID n=10 + OOD n=20, "
        f"{result['symbolic_chars_mean']:,.0f} characters on average): {result['symbolic_responses']} "
        f"responses, {result['symbolic_claims']:,} claims in {result['symbolic_s']:.2f} s "
        f"({rate:,.0f} responses/s); categories {result['symbolic_categories']}",
    ]
    return "\n".join(lines) + "\n"
