"""Thinking-effort sweeps: an entry's ``sweep:`` (one parameter, a list of levels) as model variants.

Why variants rather than a new axis in every table: a variant is an ordinary model everywhere (its own
name, partition, cache rows, budget, dry-run line), so nothing downstream had to learn about sweeps.
What it adds is knowing which variants belong together: the name ``<name>@<param>=<level>`` (a user's
name can hold neither ``@`` nor ``=``), and ``raw.model_sweeps``, one row per variant, that the budget
marts join on.

The model *name* is not in the request hash (``llm/request_key.py``): a variant whose params equal an
entry's old ones asks nothing again, so turning an entry into a sweep pays only for the new levels.

Pure Python, no registry import (``llm/registry.py`` imports this): the checks here are the sweep's own
shape; the registry checks each level's value as it checks ``params``.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from relreason_dagster.errors import ConfigError

EXAMPLE = "{reasoning_effort: [low, medium, high]}"
# A swept parameter: a params key, or a dotted path to a key nested in one (thinking.budget_tokens).
_PARAM_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z_][A-Za-z0-9_-]*)*$")
# A string level becomes part of a model name, a lake folder and a Dagster partition key: kept plain.
_STRING_LEVEL_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:+-]*$")


def _got(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def level_text(level: Any) -> str:
    """A level as ``raw.model_sweeps.level`` and the variant's name hold it: a string bare, anything
    else as its JSON text (``1024``, ``0.5``, ``true``)."""
    return level if isinstance(level, str) else json.dumps(level)


def variant_name(base: str, param: str, level: Any) -> str:
    """The model name of one level: ``o4@reasoning_effort=high``."""
    return f"{base}@{param}={level_text(level)}"


def check_sweep(where: str, prefix: str, sweep: Any) -> tuple[str, list[Any]]:
    """An entry's ``sweep:`` as ``(param, levels)``; a bad one is one line naming the fix."""
    at = f"{where}: {prefix}.sweep"
    if not isinstance(sweep, dict) or not sweep:
        raise ConfigError(f"{at}: expected one parameter and its levels, e.g. {EXAMPLE}, got {_got(sweep)}")
    if len(sweep) > 1:
        names = ", ".join(str(key) for key in sweep)
        raise ConfigError(
            f"{at}: sweeps one parameter, got {len(sweep)} ({names}); make one entry per parameter"
        )
    ((param, levels),) = sweep.items()
    if not isinstance(param, str) or not _PARAM_RE.match(param):
        raise ConfigError(
            f"{at}: {_got(param)} is not a parameter name; name one such as reasoning_effort or "
            "thinking.budget_tokens (a dotted name sets a key inside params)"
        )
    at = f"{at}.{param}"
    if not isinstance(levels, list) or not levels:
        raise ConfigError(
            f"{at}: expected a list of at least one level, e.g. [low, medium, high], got {_got(levels)}"
        )
    seen: dict[str, int] = {}
    for index, level in enumerate(levels):
        where_level = f"{at}[{index}]"
        if level is None or not isinstance(level, (str, int, float, bool)):
            raise ConfigError(f"{where_level}: expected a string, a number or true/false, got {_got(level)}")
        if isinstance(level, float) and level != level or level in (float("inf"), float("-inf")):
            raise ConfigError(f"{where_level}: expected a finite number, got {_got(level)}")
        # Dagster refuses a partition key with "..." (its range separator).
        if isinstance(level, str) and (not _STRING_LEVEL_RE.match(level) or "..." in level):
            raise ConfigError(
                f"{where_level}: a level is part of the model name, so it takes letters, digits, '.', '_', "
                f"':', '+' or '-' (starting with a letter or digit), got {_got(level)}"
            )
        text = level_text(level)
        if text in seen:
            raise ConfigError(
                f"{where_level}: {_got(level)} is already level {seen[text]}; list each level once"
            )
        seen[text] = index
    return param, list(levels)


def with_level(where: str, prefix: str, params: Mapping[str, Any], param: str, level: Any) -> dict[str, Any]:
    """``params`` with the level set (it wins over the entry's own value); a dotted ``param`` sets a key
    inside a nested mapping, made if absent."""
    out = copy.deepcopy(dict(params))
    *path, key = param.split(".")
    holder = out
    for depth, part in enumerate(path):
        inner = holder.get(part)
        if inner is None:
            inner = holder[part] = {}
        elif not isinstance(inner, dict):
            above = ".".join(path[: depth + 1])
            raise ConfigError(
                f"{where}: {prefix}.sweep.{param}: params.{above} is {_got(inner)}, not a mapping; make it "
                f"a mapping (e.g. {{type: enabled}}) or sweep {above} itself"
            )
        holder = inner
    holder[key] = level
    return out


def swept_top_key(param: str) -> str:
    """The params key a sweep sets (``thinking`` for ``thinking.budget_tokens``)."""
    return param.split(".", 1)[0]


def expand_names(names: Iterable[str], specs: Mapping[str, Any]) -> list[str]:
    """``names`` with each swept entry's name replaced by its variants, in level order (``--model o4``
    runs every level); a variant's own name, any other name and a name the registry lacks stay as they
    are (the last fails later, with the list of known models)."""
    variants: dict[str, list[str]] = {}
    for spec in specs.values():
        if getattr(spec, "sweep_base", None):
            variants.setdefault(spec.sweep_base, []).append(spec.name)
    out: list[str] = []
    for name in names:
        out.extend(variants.get(name, [name]) if name not in specs else [name])
    return list(dict.fromkeys(out))


ROW_COLUMNS = ("model", "base_model", "param", "level", "level_rank")


def sweep_rows(specs: Sequence[Any]) -> list[dict[str, Any]]:
    """The ``raw.model_sweeps`` rows of ``specs``' variants (an ordinary model has none), each once."""
    rows: dict[str, dict[str, Any]] = {}
    for spec in specs:
        if not getattr(spec, "sweep_base", None):
            continue
        rows[spec.name] = {
            "model": spec.name,
            "base_model": spec.sweep_base,
            "param": spec.sweep_param,
            "level": level_text(spec.sweep_level),
            "level_rank": int(spec.sweep_rank),
        }
    return list(rows.values())
