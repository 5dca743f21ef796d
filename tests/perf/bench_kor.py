"""KOR-Bench costs that do not involve a model: building the paper profile's items and prompts,
generating fresh items per category, and scoring (robust and official) real model responses.

Why: a paper run scores 1,250 questions × settings × models plus up to 5 self-correction rounds
each, and the robust scorer may run SymPy on an Operation answer; scoring must stay far below the
seconds a model call costs.  Generation is timed per category because the puzzle generators prove
uniqueness with a search and the operation generators check inverse solution sets by brute force.
"""

from __future__ import annotations

import time
from typing import Any

from tests.perf._common import time_paper_build


def bench_kor() -> dict[str, Any]:
    from relreason_dagster import paths, profiles
    from relreason_dagster.benchmarks.kor.data import CATEGORIES, load_category
    from relreason_dagster.benchmarks.kor.family import KorFamily, data_dir
    from relreason_dagster.benchmarks.kor.items import generated_items
    from relreason_dagster.benchmarks.kor.scoring import load_records, score_official, score_robust

    out: dict[str, Any] = {}
    family = KorFamily()
    paper = profiles.get_profile("paper", "kor")
    folder = data_dir(paper)
    if folder.is_dir():
        out.update(time_paper_build(family, paper))

    generation: dict[str, dict[str, float]] = {}
    for category in CATEGORIES:
        start = time.perf_counter()
        items, skipped = generated_items(folder if folder.is_dir() else None, [category], {}, 5, 11)
        seconds = time.perf_counter() - start
        if not skipped:
            generation[category] = {
                "items": len(items),
                "s": seconds,
                "per_item_ms": 1000 * seconds / len(items),
            }
    out["generation"] = generation

    responses = paths.reference_dir() / "korbench" / "responses"
    files = sorted(responses.glob("evaluation_*_zero-shot.jsonl.json")) if responses.is_dir() else []
    scoring: dict[str, dict[str, float]] = {}
    for category in CATEGORIES:
        mine = [f for f in files if f"_{category}_" in f.name]
        if not mine:
            continue
        items = load_category(folder, category)
        pairs = [
            (str(r.get("response", "")), items[str(r.get("idx"))])
            for f in mine
            for r in load_records(f)
            if str(r.get("idx")) in items
        ]
        start = time.perf_counter()
        for text, item in pairs:
            score_robust(text, item)
        robust = time.perf_counter() - start
        start = time.perf_counter()
        for text, item in pairs:
            score_official(text, item)
        official = time.perf_counter() - start
        scoring[category] = {
            "responses": len(pairs),
            "robust_ms": 1000 * robust / len(pairs),
            "official_ms": 1000 * official / len(pairs),
        }
    out["scoring"] = scoring
    return out


def render(result: dict[str, Any]) -> str:
    lines = ["## KOR-Bench (no model calls)", ""]
    if "paper_samples" in result:
        lines.append(
            f"- paper profile: {result['paper_samples']} samples and {result['paper_prompts']} prompts "
            f"built in {result['paper_build_s']:.2f} s"
        )
    lines += ["", "| category | generated items | s | ms/item |", "|---|---:|---:|---:|"]
    for category, g in result.get("generation", {}).items():
        lines.append(f"| {category} | {g['items']} | {g['s']:.2f} | {g['per_item_ms']:.1f} |")
    lines += [
        "",
        "| category | real responses | robust ms/response | official ms/response |",
        "|---|---:|---:|---:|",
    ]
    for category, s in result.get("scoring", {}).items():
        lines.append(f"| {category} | {s['responses']} | {s['robust_ms']:.2f} | {s['official_ms']:.2f} |")
    return "\n".join(lines) + "\n"
