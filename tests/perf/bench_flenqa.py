"""FLenQA generation cost: the paper grid (3 tasks x 100 base instances x 61 cells) and its prompts.

Why: ``relreason run --benchmark flenqa --profile paper`` generates 18,300
samples (every text re-padded with the real tokenizer's counts) and ~55k
prompts before a single model call; the acceptance target is <= 60 s on two
cores for the generation.  The tokenizer vocabulary and the built-in prose
are loaded (and timed) first, so ``generate_s`` is the generator's own work;
a cold ``relreason`` run pays both.  The size columns say what lands in
``raw.samples`` / ``raw.prompts`` (rows as JSON), and the per-length table
what the generator's own token estimate (exact for these texts up to a token
or two) says about the length targets, including the samples whose key
paragraphs alone exceed the target (``key_exceeds``) and those that miss
the +-5% band (see ``test_all_text_lengths_within_tolerance``).
"""

from __future__ import annotations

import json
import resource
import time
from collections import Counter, defaultdict
from typing import Any

TARGET_S = 60.0


def bench_flenqa() -> dict[str, Any]:
    from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
    from relreason_dagster.benchmarks.flenqa.generate import sample_text
    from relreason_dagster.benchmarks.flenqa.padding import TOLERANCE
    from relreason_dagster.benchmarks.flenqa.profile_schema import Knobs
    from relreason_dagster.benchmarks.flenqa.prose import load_prose, prose_source
    from relreason_dagster.common.tokenizer import vocab_model
    from relreason_dagster.profiles import DEFAULT_SEED, get_profile

    profile = get_profile("paper", "flenqa")
    family = FlenqaFamily()

    start = time.perf_counter()
    knobs = profile.typed(Knobs)
    vocab_model(knobs.tokenizer)
    load_prose(prose_source(knobs.prose_dir, knobs.prose))
    setup_s = time.perf_counter() - start

    start = time.perf_counter()
    samples = family.generate(profile, DEFAULT_SEED)
    generate_s = time.perf_counter() - start

    start = time.perf_counter()
    built = family.build_prompts(samples, profile)
    prompts_s = time.perf_counter() - start

    texts = [sample_text(s) for s in samples]
    text_chars = sum(len(t) for t in texts)
    text_bytes = sum(len(t.encode("utf-8")) for t in texts)
    prompt_chars = sum(len(m["content"]) for p in built for m in p.messages)
    sample_json = sum(len(json.dumps(s.row())) for s in samples)
    prompt_json = sum(len(json.dumps(p.row())) for p in built)

    per_length: dict[int, list[Any]] = defaultdict(list)
    for s in samples:
        per_length[int(s.variant.get("length") or 0)].append(s)
    rows = []
    for length in sorted(per_length):
        group = per_length[length]
        estimated = [int(s.input["estimated_tokens"]) for s in group]
        exceeds = sum(bool(s.input["key_exceeds"]) for s in group)
        outside = (
            sum(
                1
                for s, e in zip(group, estimated, strict=True)
                if not s.input["key_exceeds"] and abs(e - length) > TOLERANCE * length
            )
            if length
            else 0
        )
        rows.append(
            {
                "length": length or "minimal",
                "samples": len(group),
                "mean_tokens": round(sum(estimated) / len(estimated), 1),
                "min_tokens": min(estimated),
                "max_tokens": max(estimated),
                "key_exceeds": exceeds,
                "outside_5pct": outside,
                "mean_chars": round(sum(len(sample_text(s)) for s in group) / len(group)),
            }
        )
    return {
        "profile": "paper",
        "seed": DEFAULT_SEED,
        "setup_s": round(setup_s, 2),
        "generate_s": round(generate_s, 1),
        "prompts_s": round(prompts_s, 1),
        "target_s": TARGET_S,
        "within_target": generate_s <= TARGET_S,
        "samples": len(samples),
        "samples_by_split": dict(Counter(s.split for s in samples)),
        "prompts": len(built),
        "prompts_by_setting": dict(Counter(p.setting for p in built)),
        "text_chars": text_chars,
        "text_mb": round(text_bytes / 1e6, 1),
        "prompt_chars": prompt_chars,
        "sample_rows_json_mb": round(sample_json / 1e6, 1),
        "prompt_rows_json_mb": round(prompt_json / 1e6, 1),
        "key_exceeds": sum(r["key_exceeds"] for r in rows),
        "outside_5pct": sum(r["outside_5pct"] for r in rows),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "rows": rows,
    }


def render(result: dict[str, Any]) -> str:
    ok = "within" if result["within_target"] else "**over**"
    rows = result["rows"]
    cols = list(rows[0]) if rows else []
    by_setting = ", ".join(f"{k} {v:,}" for k, v in result["prompts_by_setting"].items())
    lines = [
        "## FLenQA generation (paper profile)",
        "",
        f"**{result['samples']:,} samples in {result['generate_s']} s** ({ok} the {result['target_s']:.0f} s "
        f"target), after {result['setup_s']} s loading the tokenizer vocabulary and the built-in prose; "
        f"**{result['prompts']:,} prompts** ({by_setting}) in {result['prompts_s']} s.",
        "",
        f"Texts: {result['text_chars']:,} characters ({result['text_mb']} MB); prompts "
        f"{result['prompt_chars']:,} characters.  Rows as JSON: samples {result['sample_rows_json_mb']} MB, "
        f"prompts {result['prompt_rows_json_mb']} MB.  Peak RSS of the process {result['peak_rss_mb']} MB.",
        "",
        "Tokens are the generator's estimate (`estimated_tokens`, the exact count of the text within a "
        "token or two); `key_exceeds`: the key paragraphs alone are over the target + 5% (unpadded, "
        "exempt); `outside_5pct`: padded texts that miss the +-5% band anyway.",
        "",
        "| " + " | ".join(cols) + " |",
        "|" + "---|" * len(cols),
    ]
    lines += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    return "\n".join(lines) + "\n"
