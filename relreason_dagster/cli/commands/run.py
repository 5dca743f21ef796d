"""`relreason run` and `relreason demo`: launch the pipeline (or estimate it, ``--dry-run``) and print
what it did and the headline tables.

Registered like every command (``register(subparsers, context)``) and first of all: the families'
commands add their `run` options (``CommandContext.add_run_option``) to the parser this sets.
"""

from __future__ import annotations

import argparse
import functools
import time
from collections.abc import Sequence
from typing import Any

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import MAX_LIMIT, MAX_SAMPLES
from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.full_disk import report_no_space
from relreason_dagster.cli.options import (
    VERBOSE_HELP,
    add_launch_options,
    add_profile_options,
    bounded,
    coerce,
    launch_options,
    positive_int,
)
from relreason_dagster.cli.output import format_table, say
from relreason_dagster.cli.run_report import print_headlines, print_report
from relreason_dagster.errors import ConfigError

_STARTED = time.perf_counter()  # the time split `relreason run` prints counts startup from here


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason demo` and `relreason run`, and lend the `run` parser to the commands after it."""
    from relreason_dagster.benchmarks.registry import family_names

    families = ", ".join(family_names())
    demo = subparsers.add_parser(
        "demo", help="materialize everything at the smoke profile and print the result tables"
    )
    run = subparsers.add_parser("run", help="compute models' responses (cached) and the metric tables")
    for launcher in (demo, run):
        launcher.add_argument(
            "-v", "--verbose", action="store_true", default=argparse.SUPPRESS, help=VERBOSE_HELP
        )
        add_profile_options(launcher)
        launcher.add_argument(
            "--rerun",
            action="store_true",
            help="start every run even when nothing changed since the last successful one",
        )
        add_launch_options(launcher)
    run.add_argument(
        "--model",
        action="append",
        help="a model of models.yaml (a swept entry's name runs every level, NAME@PARAM=LEVEL one), a "
        "LiteLLM model string with no entry (openai/gpt-4o-mini: its name "
        "in the results), or a family's trained baseline (dlm); repeat to run several side by side "
        "(default: every enabled model of models.yaml whose key is set)",
    )
    run.add_argument(
        "--benchmark", default=None, help=f"only this family: {families} (default: the profile's families)"
    )
    run.add_argument(
        "--train-size",
        type=positive_int,
        default=None,
        help="baselines (dlm) only: train on N samples (default: the profile's, i.e. the prompts' few-shot "
        "samples)",
    )
    run.add_argument(
        "--samples",
        type=bounded(MAX_SAMPLES, "draws per prompt"),
        default=None,
        metavar="K",
        help="ask every prompt K times, each draw stored and scored on its own (pass@k, maj@k; "
        "default: the profile's samples knob, else 1)",
    )
    run.add_argument(
        "-M",
        "--model-option",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="over every model of the run: a models.yaml field (api_base, api_key_env, concurrency, "
        "reasoning, max_cost, rpm, tpm, ...) or a generation param (temperature, reasoning_effort, ...); "
        "repeatable.  A --model with a '/' and no models.yaml entry is a LiteLLM model string",
    )
    run.add_argument(
        "--limit",
        type=bounded(MAX_LIMIT, "samples per task"),
        default=None,
        metavar="N",
        help="ask only the first N samples of each task (by sample id)",
    )
    run.add_argument(
        "--dry-run",
        action="store_true",
        help="call no model: print per model the prompts, calls still to make, tokens and estimated cost",
    )
    run.add_argument(
        "--skip-too-long",
        action="store_true",
        help="leave out, for each model, the prompts that do not fit its context window with their "
        "max_tokens (counted in the mart prompts_too_long and per family) instead of stopping the "
        "launch; the other models still ask them (window: models.yaml context_window, else LiteLLM's)",
    )
    run.add_argument(
        "--batch",
        action="store_true",
        help="send every model that can (openai, azure, anthropic, vertex_ai, gemini, bedrock) as provider "
        "batch jobs, at about half the price within 24 h; the job ids are kept in the home, so a later "
        "`relreason run` collects them (models.yaml: batch: true)",
    )
    run.add_argument(
        "--no-wait",
        action="store_true",
        help="with batch jobs: submit them and end without waiting; the answers are pending until a later "
        "`relreason run` collects them",
    )
    run.add_argument(
        "--batch-fallback",
        choices=("batch", "live"),
        default=None,
        help="how a batch line that failed or expired is asked again: in the next job (batch, the default) "
        "or as a live call (live)",
    )
    run.add_argument(
        "--all-marts",
        action="store_true",
        help="build and test every dbt model, not only those downstream of the run's families "
        "(relreason demo always does; so does a run after a dbt file changed)",
    )
    context.run_parser = run
    demo.set_defaults(handler=functools.partial(cmd_run, demo=True))
    run.set_defaults(handler=functools.partial(cmd_run, run_keywords=context.run_keywords))


def cmd_run(args: argparse.Namespace, demo: bool = False, run_keywords: dict[str, str] | None = None) -> int:
    """`relreason run` / `relreason demo`; ``run_keywords`` are the run options families added
    (``CommandContext.add_run_option``): ``build_plan`` keyword -> attribute of ``args``."""
    from relreason_dagster.benchmarks.registry import baseline_names
    from relreason_dagster.launch_plan import build_plan
    from relreason_dagster.llm.study_models import registry_models, said_missing_key
    from relreason_dagster.pipeline import run_pipeline

    dry = getattr(args, "dry_run", False)
    if demo or not args.model:  # the registry's models; a dry run lists those without a key too
        models = registry_models(paths.models_path(), keep_missing_keys=dry)
        models += baseline_names() if demo else []
    else:
        models = _with_sweep_levels(list(dict.fromkeys(args.model)))
    benchmarks = [args.benchmark] if getattr(args, "benchmark", None) else None
    family_options = {keyword: getattr(args, dest) for keyword, dest in (run_keywords or {}).items()}
    if dry:  # a dry run calls nothing: a registry model without its key is listed (said once), not checked
        for model in models:
            said_missing_key(model)
    # Bad input is one line and nothing else: the launch is resolved and checked once, here, before the
    # first progress line and before anything is written (launch_plan.py); the runs get it by value, and
    # a dry run estimates this same plan.
    plan = build_plan(
        models,
        profile=args.profile,
        benchmarks=benchmarks,
        seed=args.seed,
        samples=getattr(args, "samples", None),
        limit=getattr(args, "limit", None),
        model_options=_model_options(getattr(args, "model_option", None)),
        dlm_train_size=getattr(args, "train_size", None),
        batch=_batch_choice(args),
        skip_too_long=bool(getattr(args, "skip_too_long", False)),
        dry_run=dry,
        **family_options,  # e.g. judge (Self-Contra's --judge)
    )
    families = benchmarks or sorted(plan.sections)
    for line in plan.notes:  # steps left out (a judge without its key), prompts over a window: one line
        say(line)
    if dry:
        return _dry_run(plan)
    say(
        f"relreason: {'demo' if demo else 'run'} of {', '.join(models)} on {', '.join(families)} "
        f"(profile {args.profile}, results in {paths.relreason_home()})"
    )
    start = time.perf_counter()
    try:
        report = run_pipeline(
            plan,
            rerun=args.rerun,
            on_launch=lambda: say("relreason: loading the pipeline (Dagster definitions, dbt manifest) ..."),
            launch=launch_options(args),
            all_marts=demo or getattr(args, "all_marts", False),
        )
    except Exception as exc:
        if not report_no_space(exc):
            raise
        return 1
    pipeline_s = time.perf_counter() - start
    if report.unchanged_since is not None:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(report.unchanged_since))
        say(
            f"relreason: nothing changed since the run that finished {when} (same code, settings, "
            "models, stored answers and database), so no run was started; its report and results "
            "follow (--rerun starts the runs anyway)"
        )
    else:
        say(f"relreason: finished in {pipeline_s:.0f} s; results:")
    print_report(report, pipeline_s)
    if paths.duckdb_path().exists():
        try:
            print_headlines(
                None if demo else models, None if demo else families, models[0], report.unchanged_since
            )
        except Exception as exc:
            if not report_no_space(exc):
                raise
            return 1
    total = time.perf_counter() - _STARTED
    say(
        f"relreason: {total:.1f} s in all: startup {start - _STARTED:.1f} s, "
        f"up-to-date check {report.check_seconds:.1f} s, runs {pipeline_s - report.check_seconds:.1f} s, "
        f"results {time.perf_counter() - start - pipeline_s:.1f} s"
    )
    return 1 if report.failures or getattr(report, "answered_nothing", None) else 0


def _with_sweep_levels(names: list[str]) -> list[str]:
    """``--model`` names with a swept entry's own name as its variants, one per level (``--model o4``
    runs ``o4@reasoning_effort=low`` ... ``=high``: llm/sweeps.py).  A file that cannot be read is
    left to the launch's checks, which say why in one line."""
    from relreason_dagster.llm.registry import load_registry
    from relreason_dagster.llm.sweeps import expand_names

    try:
        specs = load_registry(paths.models_path())
    except ConfigError:
        return names
    return expand_names(names, specs)


def _dry_run(plan: Any) -> int:
    """`relreason run --dry-run`: per model of the launch's plan, the prompts, the calls still to make,
    tokens and cost; then per across-models step that can say what it would ask (a judge, per detection
    method), its model's."""
    from relreason_dagster.dry_run import estimate

    found = estimate(plan)
    columns = [
        "model",
        "prompts",
        "requests",
        "stored",
        "calls",
        "input_tokens",
        "max_output_tokens",
        "est_cost_usd",
        "note",
    ]
    # Each model's row, then its groups (a family may split its calls, e.g. per length), indented under it.
    listed = []
    for est in found:
        listed.append((est, est.model))
        listed.extend((group, f"  {group.model}") for group in est.groups)
    rows = [
        [
            label,
            e.prompts,
            e.requests,
            e.stored,
            e.calls,
            e.input_tokens,
            e.max_output_tokens,
            "unknown" if e.cost_usd is None else f"{e.cost_usd:.4f}",
            e.note,
        ]
        for e, label in listed
    ]
    batched = any(getattr(e, "batch", False) for e in found)
    if batched:  # --batch / batch: true: both prices
        at = columns.index("est_cost_usd") + 1
        columns.insert(at, "est_batch_cost_usd")
        for row, (e, _) in zip(rows, listed, strict=True):
            price = e.batch_cost_usd
            row.insert(at, "-" if not e.batch else "unknown" if price is None else f"{price:.4f}")
    # The note is the last column and holds what must not be cut (a price to check, prompts left out).
    print(format_table(columns, rows, max_width=160))
    say(
        "relreason: dry run, no model was called; est_cost_usd prices input_tokens and max_output_tokens "
        "(an upper bound) with LiteLLM's offline cost map"
        + ("; est_batch_cost_usd the same at its batch prices (models sent as batch jobs)" if batched else "")
    )
    return 0


def _batch_choice(args: argparse.Namespace) -> Any:
    """The run's ``--batch`` / ``--no-wait`` / ``--batch-fallback`` (None: none given)."""
    from relreason_dagster.llm.batch_choice import BatchChoice

    choice = BatchChoice(
        batch=bool(getattr(args, "batch", False)),
        wait=not getattr(args, "no_wait", False),
        fallback=getattr(args, "batch_fallback", None),
    )
    return choice if choice.any else None


def _model_options(items: Sequence[str] | None) -> dict[str, Any]:
    """``-M KEY=VALUE`` options as a dict, each value read as YAML (0.7 a number, low a string)."""
    options: dict[str, Any] = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"-M {item!r}: expected KEY=VALUE, e.g. -M temperature=0 or -M api_base=URL")
        options[key.strip()] = coerce(value)
    return options
