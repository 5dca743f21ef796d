"""`relreason run --dry-run`: what a run would ask and what it may cost, without calling any model.

It builds the run's prompts in this process exactly as the pipeline does (each family's ``generate``
and ``build_prompts`` at the profile and seed; plain Python, no Dagster, nothing written), applies
what the run would (the family's ``asks`` for the model's kind, ``--limit``, ``--samples``, the
profile's generation params, ``-M``), groups them into requests with the gateway's own cache keys and
looks in the lake for what is already stored.  Per model it reports the prompts, the calls still to
make, their input tokens (counted with the project's tokenizer), their output budget (``max_tokens``)
and the cost LiteLLM's offline cost map gives for those tokens: an upper bound, since a reply may
stop before ``max_tokens``.  A model LiteLLM cannot price has no cost estimate (never a made-up 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import FAMILIES, baseline_names, get_family
from relreason_dagster.llm.draw_plan import plan_requests
from relreason_dagster.llm.litellm_overhead import call_cost
from relreason_dagster.llm.registry import ModelSpec, resolve_model
from relreason_dagster.llm.tokenizer import chat_prompt_tokens_many
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.prompt_snapshots import first_samples
from relreason_dagster.storage.responses import ResponseStore


@dataclass
class Estimate:
    """One model's share of a run that was not made."""

    model: str
    prompts: int = 0
    requests: int = 0
    stored: int = 0
    calls: int = 0
    input_tokens: int = 0
    max_output_tokens: int = 0
    cost_usd: float | None = None
    note: str = ""


def run_prompts(
    profile: str, benchmarks: Sequence[str] | None, seed: int
) -> dict[str, tuple[Any, list[dict[str, Any]]]]:
    """Per family of the run: its profile section and its test prompts as the gateway takes them."""
    in_profile = profiles.profile_families(profile)
    names = list(benchmarks or [name for name in FAMILIES if name in in_profile])
    out = {}
    for name in names:
        family = get_family(name)
        section = profiles.get_profile(profile, name)
        samples = family.generate(section, seed)
        out[name] = (section, [p.row() for p in family.build_prompts(samples, section)])
    return out


def _asked(spec: ModelSpec, name: str, section: Any, rows: list[dict[str, Any]], **run: Any) -> list[dict]:
    asks = getattr(get_family(name), "asks", None)
    rows = [r for r in rows if asks is None or asks(section, spec.kind, r["setting"])]
    if run.get("limit"):
        rows = first_samples([{**r, "benchmark": name} for r in rows], run["limit"])
    generation = section.get("generation") if section.declares("generation") else None
    draws = run.get("samples") or section.get("samples")
    return [{**r, "params": dict(generation) if generation else None, "samples": draws} for r in rows]


def _stored_answers() -> ResponseStore | None:
    """The lake's answers, or None when there is no lake yet (a dry run creates nothing)."""
    import os

    if not os.environ.get("RELREASON_LAKE") and not (paths.relreason_home() / "lake").exists():
        return None
    return ResponseStore(Lake.default())


def estimate(
    models: Sequence[str],
    *,
    profile: str,
    benchmarks: Sequence[str] | None = None,
    seed: int = profiles.DEFAULT_SEED,
    samples: int | None = None,
    model_options: dict[str, Any] | None = None,
    limit: int | None = None,
) -> list[Estimate]:
    """Every model's :class:`Estimate`; no model is called and nothing is written."""
    families = run_prompts(profile, benchmarks, seed)
    store = _stored_answers()
    out = []
    for name in dict.fromkeys(models):
        if name in baseline_names():
            out.append(Estimate(model=name, note="a trained baseline: no model calls"))
            continue
        spec = resolve_model(paths.models_path(), name, model_options)
        prompts = [
            row
            for family, (section, rows) in families.items()
            for row in _asked(spec, family, section, rows, samples=samples, limit=limit)
        ]
        works = plan_requests(spec, prompts)
        stored_ok = store.stored_ok(spec.name) if store else set()
        cached = store.successes(list(works)) if store else {}
        to_call = [
            w
            for h, w in works.items()
            if h not in cached and not all((p, h) in stored_ok for p in w.prompt_ids)
        ]
        tokens = chat_prompt_tokens_many([w.messages for w in to_call]) if to_call else []
        est = Estimate(
            model=name,
            prompts=len({p["prompt_id"] for p in prompts}),
            requests=len(works),
            stored=len(works) - len(to_call),
            calls=len(to_call),
            input_tokens=sum(tokens),
            max_output_tokens=sum(int(w.params.get("max_tokens") or 0) for w in to_call),
        )
        est.cost_usd = (
            call_cost(spec.litellm_model, est.input_tokens, est.max_output_tokens) if to_call else 0.0
        )
        if est.cost_usd is None:
            est.note = f"LiteLLM has no price for {spec.litellm_model}"
        out.append(est)
    return out
