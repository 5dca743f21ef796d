"""A launch's plan travels to its runs as typed run config (``defs/resources.py``), never as JSON text.

Why a test: the run settings once carried the plan as five JSON strings and ints where 0 meant "not
set", parsed again in every step; the UI showed the strings and the launchpad could not edit them.
This holds ``defs/`` to typed fields: no ``json.loads`` / ``json.dumps`` of run config there (JSON of
other things is listed below, each with why), and no ``RunSettings`` field typed ``str`` but holding
JSON, nor an int whose 0 means "unset".
"""

from __future__ import annotations

import ast
import json
import types
import typing
from pathlib import Path
from typing import Any

import dagster as dg

from relreason_dagster.defs.resources import LaunchConfig, RunSettings

DEFS = Path(__file__).resolve().parents[3] / "relreason_dagster" / "defs"

# JSON in defs/ that is not run config: (file, json function) -> (how many calls, what they read/write).
OTHER_JSON: dict[tuple[str, str], tuple[int, str]] = {
    ("assets.py", "loads"): (1, "a stored prompt row's messages column (the lake's prompt snapshot)"),
    ("baseline_assets.py", "loads"): (1, "a stored training summary's config column, shown as metadata"),
    ("dbt.py", "loads"): (1, "dbt's manifest.json"),
    ("dbt.py", "dumps"): (1, "dbt's --vars argument, JSON by dbt's own rule"),
    ("dbt_families.py", "dumps"): (1, "a literal written into a generated dbt macro"),
    ("dbt_scope.py", "dumps"): (2, "the dbt files' fingerprint and the full-build record file"),
    ("dbt_scope.py", "loads"): (1, "the full-build record file"),
}

# The str fields of the run settings, each with what it holds (a name or a path: never JSON).
STR_FIELDS = {
    "RunSettings.profile": "a profile name",
    "RunSettings.models_file": "the models.yaml path",
    "RunSettings.step_model": "a model name (--judge)",
}


def _json_calls() -> dict[tuple[str, str], int]:
    """Per defs/ file and json function (loads/dumps/load/dump), the calls in its source."""
    found: dict[tuple[str, str], int] = {}
    for path in sorted(DEFS.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = node.func if isinstance(node, ast.Call) else None
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "json"
                and func.attr in ("loads", "dumps", "load", "dump")
            ):
                key = (path.name, func.attr if func.attr.endswith("s") else func.attr + "s")
                found[key] = found.get(key, 0) + 1
    return found


def test_no_json_of_run_config_in_defs():
    found = _json_calls()
    assert found, "the scan found no json call at all: it is not reading defs/"
    unexplained = {
        f"defs/{name}: {count} json.{func}"
        for (name, func), count in found.items()
        if OTHER_JSON.get((name, func), (0, ""))[0] != count
    }
    assert not unexplained, (
        "run config travels typed (RunSettings fields), never as JSON; if this JSON is of something "
        "else, list it in OTHER_JSON with why: " + "; ".join(sorted(unexplained))
    )
    stale = [key for key in OTHER_JSON if key not in found]
    assert not stale, f"OTHER_JSON lists JSON that is gone: {stale}"


def _fields(model: type[dg.Config], prefix: str) -> dict[str, Any]:
    """``{Class.field: annotation}`` of ``model`` and of the Config classes nested in it."""
    out: dict[str, Any] = {}
    for name, info in model.model_fields.items():
        annotation = info.annotation
        out[f"{prefix}.{name}"] = annotation
        for inner in _members(annotation):
            if isinstance(inner, type) and issubclass(inner, dg.Config):
                out |= _fields(inner, inner.__name__)
    return out


def _members(annotation: Any) -> list[Any]:
    """The types an annotation names, unions and containers opened (``dict[str, X] | None`` -> X ...)."""
    args = typing.get_args(annotation)
    if not args:
        return [annotation]
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return [t for arg in args for t in _members(arg)]
    return [annotation, *(t for arg in args for t in _members(arg))]


def _is_str(annotation: Any) -> bool:
    """``str`` or ``str | None``: a field whose value is text (containers of str are not)."""
    if annotation is str:
        return True
    args = typing.get_args(annotation)
    union = isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union
    return union and [arg for arg in args if arg is not type(None)] == [str]


def test_no_run_settings_field_holds_json_text_or_zero_for_unset():
    fields = _fields(RunSettings, "RunSettings")
    assert "LaunchConfig.sections" in fields  # the nested plan is scanned too
    strs = {name for name, annotation in fields.items() if _is_str(annotation)}
    assert strs == set(STR_FIELDS), f"str fields of the run settings: {sorted(strs)}; say what each holds"
    zero_ints = [
        name
        for name, info in {
            **{f"RunSettings.{k}": v for k, v in RunSettings.model_fields.items()},
            **{f"LaunchConfig.{k}": v for k, v in LaunchConfig.model_fields.items()},
        }.items()
        if info.default == 0 and not isinstance(info.default, bool)
    ]
    assert not zero_ints, f"an int whose 0 means 'unset': make it `int | None = None`: {zero_ints}"


def test_a_launchs_str_settings_are_no_json(tmp_path, monkeypatch):
    """The str fields of a real launch's settings hold names and paths: none parses as JSON."""
    from relreason_dagster.launch_plan import build_plan
    from tests.fakes.scripted_provider import register_scripted_provider
    from tests.pipeline_home import isolated_home, scripted_models_yaml

    isolated_home(monkeypatch, tmp_path, scripted_models_yaml("m", "j"))
    register_scripted_provider()
    plan = build_plan(["m"], profile="smoke", judge="j", samples=2, model_options={"temperature": 0})
    config = RunSettings.from_plan(plan).model_dump()
    for name in STR_FIELDS:
        value = config[name.split(".")[1]]
        assert isinstance(value, str)
        try:
            parsed = json.loads(value)
        except ValueError:
            continue
        assert not isinstance(parsed, dict | list), f"{name} holds JSON: {value[:60]}"
