"""`relreason models list` and `relreason models add`: the models of models.yaml (and the built-in
baselines), and adding one, or every model a study evaluated.
"""

from __future__ import annotations

import argparse
from typing import Any

from relreason_dagster import paths
from relreason_dagster.cli.context import CommandContext
from relreason_dagster.cli.options import coerce
from relreason_dagster.cli.output import format_table
from relreason_dagster.errors import ConfigError


def register(subparsers: Any, context: CommandContext) -> None:
    """Add `relreason models list` and `relreason models add`."""
    from relreason_dagster.benchmarks.registry import family_names

    families = ", ".join(family_names())
    models = subparsers.add_parser("models", help="list or add models in models.yaml")
    msub = models.add_subparsers(dest="models_cmd", required=True)
    msub.add_parser("list").set_defaults(handler=cmd_models)
    add = msub.add_parser("add")
    add.set_defaults(handler=cmd_models)
    add.add_argument("name", nargs="?")
    add.add_argument("litellm_model", nargs="?")
    add.add_argument("--study", help=f"every model a study evaluated: {families} or all")
    add.add_argument("--param", action="append", help="generation parameter KEY=VALUE (repeatable)")
    add.add_argument("--concurrency", type=int, default=None)
    add.add_argument("--api-base", default=None)
    add.add_argument("--api-key-env", default=None, help="NAME of the environment variable holding the key")
    add.add_argument(
        "--workers", type=int, default=None, help="processes sharing the calls (fast remote servers only)"
    )
    add.add_argument(
        "--sweep",
        default=None,
        metavar="PARAM=L1,L2,...",
        help="one model per level of one parameter, e.g. reasoning_effort=low,medium,high or "
        "thinking.budget_tokens=1024,4096,16384 (with --study: on the study's reasoning models)",
    )


def sweep_option(text: str) -> dict[str, list[Any]]:
    """``--sweep PARAM=L1,L2,...`` as a models.yaml ``sweep:`` (each level a number or true/false when
    it spells one, as ``--param`` reads values); the levels themselves are checked with the entry."""
    param, _, levels = text.partition("=")
    if not param.strip() or not levels.strip():
        raise ConfigError(
            f"--sweep {text!r}: expected PARAM=LEVEL,LEVEL,..., e.g. --sweep reasoning_effort=low,medium,high"
        )
    return {param.strip(): [coerce(level.strip()) for level in levels.split(",")]}


def cmd_models(args: argparse.Namespace) -> int:
    """`relreason models list` (models.yaml and the built-in baselines) or `relreason models add`."""
    from relreason_dagster.benchmarks.registry import baseline_names, get_baseline
    from relreason_dagster.llm.registry import NewModel, add_models, load_registry

    path = paths.models_path()
    sweep = sweep_option(args.sweep) if getattr(args, "sweep", None) else None
    if args.models_cmd == "add" and (args.study or not (args.name and args.litellm_model)):
        from relreason_dagster.llm.study_models import add_study_command

        return add_study_command(path, args.study, args.name, sweep=sweep)
    if args.models_cmd == "add":
        params: dict[str, Any] = {}
        for item in args.param or []:
            if "=" not in item:
                raise ConfigError(f"--param {item!r}: expected KEY=VALUE, e.g. --param temperature=0")
            key, value = item.split("=", 1)
            params[key] = coerce(value)
        entry = NewModel(
            args.name,
            args.litellm_model,
            params=params or None,
            concurrency=args.concurrency,
            api_base=args.api_base,
            api_key_env=args.api_key_env,
            workers=args.workers,
            sweep=sweep,
        )
        added = add_models(path, [entry])
        levels = f" as {len(added)} models, one per level ({', '.join(added)})" if sweep else ""
        print(
            f"added model {args.name!r} ({args.litellm_model}) to {path}{levels}; "
            f"run `relreason run --model {args.name}` to compute its responses only"
        )
        return 0
    registry = load_registry(path)
    rows = [
        (
            s.name,
            s.litellm_model,
            "yes" if s.enabled else "no",
            s.concurrency,
            s.workers,
            s.transport_used,  # how its calls are sent (llm/transports/): direct, litellm or a registered one
            s.api_key_env or "",
            s.api_base or "",
        )
        for s in registry.values()
    ]
    for name in baseline_names():
        baseline = get_baseline(name)
        rows.append((name, f"(built in: {baseline.description}, trained per task)", "yes", 1, 1, "-", "", ""))
    headers = "name litellm_model enabled concurrency workers transport api_key_env api_base".split()
    print(format_table(headers, rows))
    return 0
