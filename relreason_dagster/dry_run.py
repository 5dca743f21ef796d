"""`relreason run --dry-run`: what a run would ask and what it may cost, without calling any model.

It builds the run's prompts in this process exactly as the pipeline does (each family's ``generate``
and ``build_prompts`` at the profile and seed; plain Python, no Dagster, nothing written), applies
what the run would (the family's ``asks`` for the model's kind, ``--limit``, ``--samples``, the
profile's generation params, ``-M``), groups them into requests with the gateway's own cache keys and
looks in the lake for what is already stored.  Per model it reports the prompts, the calls still to
make, their input tokens (counted with the project's tokenizer; a length-controlled prompt at its
target), their output budget (``max_tokens``)
and the cost LiteLLM's offline cost map gives for those tokens: an upper bound, since a reply may
stop before ``max_tokens``.  A model LiteLLM cannot price has no cost estimate (never a made-up 0).

Draws (``--samples K``) are counted, not listed: each draw of a request is a request of its own with
the same messages, so the plan is built for the first draw and multiplied, and only the draws the
lake can hold (up to the highest draw stored) are hashed to look them up.  So the estimate at the
bound (``MAX_SAMPLES``) answers in the time of one draw's, where listing a million draws never did.

A family may name a group per sample (``dry_run_group(sample)``, FLenQA: its length): each model's
estimate then carries the same figures per group (``Estimate.groups``), printed under the model's row.
A request two groups share (FLenQA's minimal texts are its 250-token texts) counts in each group and
once in the model's row.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import study_generation
from relreason_dagster.benchmarks.registry import baseline_names, get_family
from relreason_dagster.common.tokenizer import chat_prompt_tokens_many
from relreason_dagster.launch_plan import LaunchPlan, spec_record
from relreason_dagster.llm.context_window import context_window, split_too_long
from relreason_dagster.llm.draw_plan import Work, draw_hash, plan_requests
from relreason_dagster.llm.litellm_overhead import call_cost
from relreason_dagster.llm.registry import ModelEntry
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
    # The same calls at the provider's batch prices, for a model the run sends as batch jobs
    # (``--batch`` or ``batch: true``; None otherwise or when LiteLLM has no price).
    batch_cost_usd: float | None = None
    batch: bool = False
    # The same, per group a family names (``dry_run_group``: FLenQA's lengths), labelled
    # ``<benchmark> <group>``: what each part of the run costs (a 128k-token point costs 500 250-token ones).
    groups: list[Estimate] = dataclasses.field(default_factory=list)
    # Prompts left out: over the model's context window with their max_tokens (not in the counts above).
    too_long: int = 0


def _joined(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _window_note(window: tuple[int | None, str], too_long: int) -> str:
    """What the dry run says of the model's context window: unknown (nothing checked), or the prompts
    a run leaves out because they do not fit it (none: nothing to say)."""
    tokens, source = window
    if tokens is None:
        return "context window unknown: prompts not checked against it"
    if too_long:
        return f"{too_long} prompts over its {tokens:,}-token window ({source}) left out (--skip-too-long)"
    return ""


def run_prompts(plan: LaunchPlan) -> dict[str, tuple[Any, list[dict[str, Any]]]]:
    """Per family of the launch's plan: its profile section and its test prompts as the gateway takes them."""
    out = {}
    for name in plan.families:
        family = get_family(name)
        section = plan.profile_for(name)
        samples = family.generate(section, plan.seed)
        rows = [p.row() for p in family.build_prompts(samples, section)]
        group_of = getattr(family, "dry_run_group", None)
        if group_of is not None:
            groups = {s.sample_id: group_of(s) for s in samples}
            rows = [{**r, "group": groups.get(r["sample_id"])} for r in rows]
        out[name] = (section, rows)
    return out


def _asked(spec: ModelEntry, name: str, section: Any, rows: list[dict[str, Any]], **run: Any) -> list[dict]:
    """The family's rows this model is asked, as the gateway takes them, each with its draws in
    ``draws`` (its ``samples`` left at one: the plan is built for the first draw)."""
    asks = getattr(get_family(name), "asks", None)
    rows = [r for r in rows if asks is None or asks(section, spec.kind, r["setting"])]
    pick = getattr(get_family(name), "prompts_for_model", None)  # e.g. each model in the study's wording
    if pick is not None:
        rows = pick(section, spec_record(spec), [{**r, "benchmark": name} for r in rows])
    if run.get("limit"):
        rows = first_samples([{**r, "benchmark": name} for r in rows], run["limit"])
    generation = study_generation(section)
    draws = run.get("samples") or section.values().samples
    return [{**r, "params": dict(generation) if generation else None, "draws": draws} for r in rows]


def _draws_to_call(
    spec: ModelEntry, works: dict[str, Work], draws: dict[str, int], store: ResponseStore | None
) -> tuple[int, dict[str, int]]:
    """All requests of the plan (each first-draw request times its draws) and, per first-draw request,
    how many of its draws still need a call (a draw is stored when the lake has its answer for every
    prompt id, or any model's answer to the same request)."""
    requests = sum(draws[h] for h in works)
    if store is None:
        return requests, dict(draws)
    stored_ok = store.stored_ok(spec.name)
    deepest = store.max_sample_index()
    hashed: dict[str, list[str]] = {
        h: [h, *(draw_hash(spec, w, k) for k in range(1, min(draws[h], deepest + 1)))]
        for h, w in works.items()
    }
    cached = store.successes([x for hashes in hashed.values() for x in hashes])
    to_call = {}
    for h, work in works.items():
        stored = sum(1 for x in hashed[h] if x in cached or all((p, x) in stored_ok for p in work.prompt_ids))
        to_call[h] = draws[h] - stored
    return requests, to_call


def _stored_answers() -> ResponseStore | None:
    """The lake's answers, or None when there is no lake yet (a dry run creates nothing)."""
    import os

    if not os.environ.get("RELREASON_LAKE") and not (paths.relreason_home_path() / "lake").exists():
        return None
    return ResponseStore(Lake.default())


def estimate(plan: LaunchPlan) -> list[Estimate]:
    """Every model's :class:`Estimate` of the launch's plan (``launch_plan.build_plan``: its models as
    resolved, ``-M`` and ``--batch`` applied, its profile's sections, ``--samples``, ``--limit``), then one
    per across-models step that says what it would ask (:func:`step_estimates`); nothing is resolved
    again, no model is called and nothing is written."""
    families = run_prompts(plan)
    store = _stored_answers()
    run = {"samples": plan.samples, "limit": plan.limit}
    specs = {spec.name: spec for spec in plan.specs}
    out = []
    # Shared by the models of one estimate (a study's list is dozens of models on the same prompts): a
    # prompt's tokens are the same for every model, and with nothing stored the plan of two models with
    # the same kind and params groups the same prompts into the same requests.
    tokens_of: dict[str, int] = {}
    plans: dict[str, Estimate] = {}
    for name in plan.models:
        if name in baseline_names():
            out.append(Estimate(model=name, note="a trained baseline: no model calls"))
            continue
        spec = specs[name]
        window = context_window(spec)
        same_plan = json.dumps(
            [spec.kind, spec.params, spec.provider, window, spec.n], sort_keys=True, default=str
        )
        if store is None and same_plan in plans:
            est = dataclasses.replace(
                plans[same_plan], model=name, groups=[dataclasses.replace(g) for g in plans[same_plan].groups]
            )
        else:
            est = _plan_estimate(spec, name, families, store, tokens_of, **run)
            plans[same_plan] = est
        est.cost_usd = (
            call_cost(spec.litellm_model, est.input_tokens, est.max_output_tokens) if est.calls else 0.0
        )
        # The price first: the table cuts a long note, and a price to check is what a user must not miss.
        price_note = ""
        if est.cost_usd is None:
            price_note = f"LiteLLM has no price for {spec.litellm_model}"
        elif est.calls and not est.cost_usd:  # e.g. Hugging Face models: the map's 0, not a free call
            price_note = "LiteLLM's cost map says 0: check the price"
        est.note = _joined(price_note, _window_note(window, est.too_long))
        est.batch = spec.transport_used == "batch"
        est.batch_cost_usd = None
        if est.batch:
            from relreason_dagster.llm.transports.batch import batch_call_cost

            est.batch_cost_usd = (
                batch_call_cost(spec.litellm_model, est.input_tokens, est.max_output_tokens)
                if est.calls
                else 0.0
            )
        elif name in plan.batch_live:
            est.note = "; ".join(filter(None, [est.note, "runs live: its provider has no batch jobs"]))
        _price_groups(spec, est)
        out.append(est)
    asked = {
        name: {
            family: len(_asked(spec, family, section, rows, **run))
            for family, (section, rows) in families.items()
        }
        for name, spec in specs.items()
    }
    answers = {family: sum(per.get(family, 0) for per in asked.values()) for family in families}
    out.extend(step_estimates(plan, families, answers, store, tokens_of))
    return out


def _price_groups(spec: ModelEntry, est: Estimate) -> None:
    """Each group's cost at the model's prices (and batch prices when the model runs as batch jobs)."""
    for group in est.groups:
        group.cost_usd = (
            call_cost(spec.litellm_model, group.input_tokens, group.max_output_tokens) if group.calls else 0.0
        )
        group.batch = est.batch
        group.batch_cost_usd = None
        if est.batch:
            from relreason_dagster.llm.transports.batch import batch_call_cost

            group.batch_cost_usd = (
                batch_call_cost(spec.litellm_model, group.input_tokens, group.max_output_tokens)
                if group.calls
                else 0.0
            )


def step_estimates(
    plan: LaunchPlan,
    families: dict[str, tuple[Any, list[dict[str, Any]]]],
    answers: dict[str, int],
    store: ResponseStore | None,
    tokens_of: dict[str, int],
) -> list[Estimate]:
    """One :class:`Estimate` per across-models step that can say what it would ask (the optional step
    method ``dry_run_prompts(profile, answers)``: the prompts it can build now, such as a judge's on
    imported annotations, and how many more it asks on the run's own answers, whose text is not known
    yet), labelled ``<model>[<step>]``; its model is the one the plan names for it
    (``LaunchPlan.step_models``).  Those further prompts count in ``prompts`` and ``calls``, not in
    tokens or cost, and the note says how many.  A model whose key is not set is listed with a note."""
    from relreason_dagster.benchmarks.registry import family_steps
    from relreason_dagster.llm.study_models import missing_key

    specs = {spec.name: spec for spec in plan.step_specs}
    out = []
    for family, (section, _) in families.items():
        for step in family_steps(family):
            planned = getattr(step, "dry_run_prompts", None)
            name = plan.step_models.get(step.name)
            if step.stage != "across_models" or step.kind is None or planned is None or not name:
                continue
            label = f"{name}[{step.name}]"
            spec = specs.get(name)
            if spec is None:  # left out by the plan: a study's judge not in models.yaml
                out.append(Estimate(model=label, note=f"{name} is not in models.yaml: a run leaves it out"))
                continue
            prompts, later = planned(section, answers.get(family, 0))
            rows = [
                {**p.row(family, str(step.kind)), "messages": p.messages, "params": None, "draws": 1}
                for p in prompts
            ]
            est = _estimate_rows(spec, label, rows, store, tokens_of)
            est.prompts += later
            est.requests += later
            est.calls += later
            est.cost_usd = call_cost(spec.litellm_model, est.input_tokens, est.max_output_tokens)
            notes = [f"+{later} calls on the run's answers, not in tokens or cost"] if later else []
            env = missing_key(spec)
            if env:
                notes.append(f"{env} is not set: a run leaves this step out")
            elif est.cost_usd is None:
                notes.append(f"LiteLLM has no price for {spec.litellm_model}")
            est.note = "; ".join(notes)
            out.append(est)
    return out


def _plan_estimate(
    spec: ModelEntry,
    name: str,
    families: dict[str, tuple[Any, list[dict[str, Any]]]],
    store: ResponseStore | None,
    tokens_of: dict[str, int],
    **run: Any,
) -> Estimate:
    """One model's prompts, requests, calls still to make and their tokens (``tokens_of``: the input
    tokens of each prompt id counted so far, filled here: a request's messages are its prompts')."""
    prompts = [
        {**row, "family": family}
        for family, (section, rows) in families.items()
        for row in _asked(spec, family, section, rows, **run)
    ]
    window = context_window(spec)[0]
    left: list[Any] = []
    if window is not None:  # as the model step leaves them out (defs/assets._fitting)
        prompts, left = split_too_long(prompts, window, (spec.params or {}).get("max_tokens"), by_target=True)
    est = _estimate_rows(spec, name, prompts, store, tokens_of)
    est.too_long = len(left)
    by_group: dict[str, list[dict[str, Any]]] = {}
    for row in prompts:
        if row.get("group") is not None:
            by_group.setdefault(f"{row['family']} {row['group']}", []).append(row)
    est.groups = [_estimate_rows(spec, label, rows, store, tokens_of) for label, rows in by_group.items()]
    return est


def _estimate_rows(
    spec: ModelEntry,
    name: str,
    prompts: list[dict[str, Any]],
    store: ResponseStore | None,
    tokens_of: dict[str, int],
) -> Estimate:
    """The :class:`Estimate` of asking ``spec`` the prompt rows ``prompts`` (each with its ``draws``)."""
    works = plan_requests(spec, prompts)
    draws_of = {str(p["prompt_id"]): int(p["draws"] or 1) for p in prompts}
    draws = {h: max(draws_of[p] for p in w.prompt_ids) for h, w in works.items()}
    requests, to_call = _draws_to_call(spec, works, draws, store)
    called = [(works[h], n) for h, n in to_call.items() if n > 0]
    # A request of a length-controlled prompt (FLenQA) is counted at its target: built to it, and its
    # exact count is checked within 5% of it (token_target_check); counting the long profile's hundreds
    # of millions of tokens again would take the tokenizer an hour.
    targets = {str(p["prompt_id"]): p.get("target_tokens") for p in prompts if not p.get("target_exempt")}
    todo = {}
    for work, _ in called:
        first = work.prompt_ids[0]
        if first in tokens_of:
            continue
        target = next((targets[p] for p in work.prompt_ids if targets.get(p)), None)
        if target:
            tokens_of[first] = int(target)
        else:
            todo[first] = work.messages
    if todo:
        tokens_of.update(zip(todo, chat_prompt_tokens_many(list(todo.values())), strict=True))
    # Draws still to ask, and the calls that ask them: ``n`` draws per request (draw_plan.bundle).
    missing = sum(n for _, n in called)
    calls = sum(-(-n // spec.n) for _, n in called)
    return Estimate(
        model=name,
        prompts=len({p["prompt_id"] for p in prompts}),
        requests=requests,
        stored=requests - missing,
        calls=calls,
        input_tokens=sum(tokens_of[w.prompt_ids[0]] * -(-n // spec.n) for w, n in called),
        max_output_tokens=sum(int(w.params.get("max_tokens") or 0) * n for w, n in called),
    )
