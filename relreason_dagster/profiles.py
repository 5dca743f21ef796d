"""Size profiles: each family's built-in sections plus the user's profile file, merged and checked.

A family declares, in its own folder, ``profiles.yaml`` (its sections of the built-in profiles,
``{profile: {knob: value}}``) and ``profile_schema.py`` (``Knobs``: a pydantic model, each knob's type
and default; a knob a profile leaves out reads as that default through ``Profile.typed``).  A user adds
or changes profiles in one YAML file, ``{profile: {extends: other, family: {knob: value}}}``: the CLI's
``--profile-file``, else the file ``RELREASON_PROFILES`` names, else ``relreason.yaml`` in the working
directory.  A launch resolves its profile here once; the runs' step processes get the resolved
sections in their run settings (``defs/resources.py``) and read no profile file.

Why a merge per knob: ``{mine: {extends: smoke, kor: {self_correction_rounds: 2}}}`` must change that
one knob and keep the rest of smoke; a knob's value is replaced whole (``rules: {}`` in paper means
"every rule", which a recursive merge could not express).  A family section set to null drops that
family from the extended profile.  A user profile named like a built-in one extends it implicitly.
Every mistake in a file is one ConfigError line naming the file, the key path and what was expected.
"""

from __future__ import annotations

import copy
import functools
import importlib
import os
import sys
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError

from relreason_dagster.benchmarks.base import FamilyKnobs, Profile
from relreason_dagster.errors import ConfigError

PROFILE_FILE_ENV = "RELREASON_PROFILES"
DEFAULT_PROFILE = "smoke"
DEFAULT_SEED = 20240101
DEFAULT_PROFILE_FILE = "relreason.yaml"
EXTENDS = "extends"

Sections = dict[str, dict[str, Any]]  # family -> knob -> value


# ---------------------------------------------------------------------------------------------- types


def type_name(hint: Any) -> str:
    """``list[str] | None`` as a user reads it in an error line."""
    if hint is Any:
        return "any"
    if hint is type(None):
        return "null"
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(type_name(arg) for arg in typing.get_args(hint))
    if origin in (list, dict):
        return f"{origin.__name__}[{', '.join(type_name(arg) for arg in typing.get_args(hint))}]"
    if origin is typing.Literal:  # the values themselves: the fix is one of them
        return "one of " + ", ".join(str(arg) for arg in typing.get_args(hint))
    return getattr(hint, "__name__", str(hint))


@functools.cache
def _adapter(hint: Any) -> TypeAdapter[Any]:
    return TypeAdapter(hint, config=ConfigDict(strict=True))


def matches(value: Any, hint: Any) -> bool:
    """Whether a YAML value has the type ``hint`` as the knob models check it (strict: bool is not an
    int, ``"3"`` is not a number; an int is a float)."""
    try:
        _adapter(hint).validate_python(value)
    except ValidationError:
        return False
    return True


# ------------------------------------------------------------------------------------ family sections


def _family_package(family: Any) -> str:
    return type(family).__module__.rpartition(".")[0]


def family_knobs(family_name: str) -> type[FamilyKnobs] | None:
    """The family's knob model (``Knobs`` in its ``profile_schema.py``); None when it declares none."""
    from relreason_dagster.benchmarks.registry import get_family

    package = _family_package(get_family(family_name))
    if not package:
        return None
    module_name = f"{package}.profile_schema"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return None
        raise
    knobs = getattr(module, "Knobs", None)
    if not (isinstance(knobs, type) and issubclass(knobs, FamilyKnobs)):
        raise ConfigError(f"{module_name}: declare the family's knobs as `class Knobs(FamilyKnobs)`")
    return knobs


def family_schema(family_name: str) -> dict[str, Any] | None:
    """Knob -> type hint of the family's own knobs (the generic ones left out); None without a model."""
    knobs = family_knobs(family_name)
    if knobs is None:
        return None
    return {name: f.annotation for name, f in knobs.model_fields.items() if name not in GENERIC_KNOBS}


def _read_yaml(path: Path, shown: str) -> Any:
    import yaml

    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{shown}: {exc.strerror}; give a readable YAML profile file") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: not UTF-8 text; give a YAML profile file") from None
    except yaml.YAMLError as exc:
        where = getattr(exc, "problem_mark", None)
        line = f" at line {where.line + 1}" if where is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ConfigError(f"{shown}: not valid YAML{line} ({problem})") from None


# Knobs every family's section may set, declared on FamilyKnobs (benchmarks/base.py): ``samples``, how
# many times each prompt is asked (repeated sampling; the CLI's ``--samples K`` wins over it).
GENERIC_KNOBS: dict[str, Any] = {name: f.annotation for name, f in FamilyKnobs.model_fields.items()}


def _expected(knobs: type[FamilyKnobs], knob: str) -> str:
    """What a knob takes, as the error line says it: its own words, else its type read like YAML."""
    declared = knobs.model_fields[knob]
    extra = declared.json_schema_extra
    if isinstance(extra, dict) and isinstance(extra.get("expected"), str):
        return str(extra["expected"])
    return type_name(declared.annotation)


def _check_section(shown: str, path: str, family: str, section: Any) -> dict[str, Any]:
    """One family's knobs, checked against the family's model; the first mistake is one line naming
    the file, the key path and what the knob takes.  The section comes back as given (no defaults
    filled in: only set knobs feed the cache keys)."""
    if not isinstance(section, dict):
        raise ConfigError(f"{shown}: {path}: expected a mapping of knob -> value, got {section!r}")
    knobs = family_knobs(family)
    # A family without a model (an outside one with no profile_schema.py): only the generic knobs.  A
    # null is the knob's declared default (what ``Profile.typed`` reads), so it is not checked against
    # the knob's type: a path knob is ``str``, never None, to its readers.
    if knobs is None:
        section_known = {k: v for k, v in section.items() if k in GENERIC_KNOBS}
    else:
        section_known = section
    knobs = knobs or FamilyKnobs
    checked = {k: v for k, v in section_known.items() if v is not None or k not in knobs.model_fields}
    try:
        knobs.model_validate(checked)
    except ValidationError as exc:
        order = list(section)
        errors = [e for e in exc.errors() if e["loc"]]
        errors.sort(key=lambda e: order.index(e["loc"][0]) if e["loc"][0] in order else len(order))
        if not errors:
            raise ConfigError(f"{shown}: {path}: {exc.errors()[0]['msg']}") from None
        knob = str(errors[0]["loc"][0])
        if errors[0]["type"] == "extra_forbidden":
            known = sorted(k for k in knobs.model_fields if k not in GENERIC_KNOBS)
            raise ConfigError(
                f"{shown}: {path}.{knob}: unknown {family} knob; known: {', '.join(known)}"
            ) from None
        raise ConfigError(
            f"{shown}: {path}.{knob}: expected {_expected(knobs, knob)}, got {section[knob]!r}"
        ) from None
    return dict(section)


def builtin_profiles() -> dict[str, Sections]:
    """``{profile: {family: knobs}}`` from every registered family's ``profiles.yaml`` (read once per
    set of registered families, so a family registered later, e.g. by a test, is seen)."""
    from relreason_dagster.benchmarks.registry import FAMILIES

    return _builtin_profiles(tuple((name, type(family).__module__) for name, family in FAMILIES.items()))


@functools.cache
def _builtin_profiles(families: tuple[tuple[str, str], ...]) -> dict[str, Sections]:
    merged: dict[str, Sections] = {}
    for name, module in families:
        path = Path(str(sys.modules[module].__file__)).resolve().parent / "profiles.yaml"
        if not path.is_file():
            continue
        data = _read_yaml(path, str(path)) or {}
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a mapping of profile -> knobs")
        for profile, section in data.items():
            merged.setdefault(str(profile), {})[name] = _check_section(str(path), f"{profile}", name, section)
    return merged


# ---------------------------------------------------------------------------------------- user file


# The profile file this command chose (``use_profile_file``): the CLI's ``--profile-file`` or the
# discovered default, as an absolute path; None: look it up (``RELREASON_PROFILES``, ./relreason.yaml).
_chosen_file: Path | None = None


def profile_file() -> Path | None:
    """The user's profile file: the command's choice, else ``RELREASON_PROFILES``, else
    ``./relreason.yaml`` if present."""
    if _chosen_file is not None:
        return _chosen_file
    named = os.environ.get(PROFILE_FILE_ENV)
    if named:
        return Path(named).expanduser()
    local = Path(DEFAULT_PROFILE_FILE)
    return local if local.is_file() else None


def use_profile_file(path: str | os.PathLike[str] | None) -> Path | None:
    """Make ``path`` (or the discovered default) the profile file of this command (None: forget it).

    The CLI calls this first, and with None when the command ends.  The file is read here, so a bad
    one is one line before anything runs.  Nothing is written to the environment: a launch hands
    the resolved sections to its runs by value (``RunSettings.sections``).
    """
    global _chosen_file
    _chosen_file = None
    chosen = Path(path).expanduser() if path else profile_file()
    if chosen is None:
        return None
    if not chosen.is_file():
        raise ConfigError(f"{_shown(chosen)}: no such profile file; give a YAML file of profiles")
    _chosen_file = chosen.resolve()
    user_profiles()
    return chosen


def forget_profile_file() -> None:
    """The command is over: the next one looks its profile file up again."""
    global _chosen_file
    _chosen_file = None


def _parse_user(shown: str, data: Any) -> dict[str, dict[str, Any]]:
    """Check the shape, families, knobs and ``extends`` of a user file's profiles."""
    from relreason_dagster.benchmarks.registry import family_names

    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{shown}: expected a mapping of profile -> {{extends, family: {{knob: value}}}}")
    known = family_names()
    parsed: dict[str, dict[str, Any]] = {}
    for profile, body in data.items():
        if not isinstance(profile, str):
            raise ConfigError(f"{shown}: {profile!r}: a profile name must be text")
        if body is None:
            body = {}
        if not isinstance(body, dict):
            raise ConfigError(f"{shown}: {profile}: expected a mapping of family -> knobs, got {body!r}")
        entry: dict[str, Any] = {}
        for key, section in body.items():
            if key == EXTENDS:
                if not isinstance(section, str):
                    raise ConfigError(
                        f"{shown}: {profile}.{EXTENDS}: expected str (a profile name), got {section!r}"
                    )
                entry[EXTENDS] = section
            elif key not in known:
                raise ConfigError(
                    f"{shown}: {profile}.{key}: unknown family; known: {', '.join(known)} (or {EXTENDS})"
                )
            else:
                checked = None if section is None else _check_section(shown, f"{profile}.{key}", key, section)
                entry[key] = checked
        parsed[profile] = entry
    return parsed


def _shown(path: Path) -> str:
    """The file as error lines name it: relative to the working directory when inside it (``my.yaml``)."""
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except (OSError, ValueError):
        return str(path)


@functools.lru_cache(maxsize=8)
def _user_profiles_cached(path: str, shown: str, mtime_ns: int, size: int) -> dict[str, dict[str, Any]]:
    """The file's profiles, each ``extends`` chain checked too: a bad file fails whichever profile runs."""
    user = _parse_user(shown, _read_yaml(Path(path), shown))
    for name in user:
        _resolve_in(shown, builtin_profiles(), user, name)
    return user


def user_profiles() -> dict[str, dict[str, Any]]:
    """The checked profiles of the user's profile file (none without one); re-read when it changes."""
    path = profile_file()
    if path is None:
        return {}
    try:
        stat = path.stat()
    except OSError as exc:
        raise ConfigError(
            f"{_shown(path)}: {exc.strerror}; point --profile-file (or {PROFILE_FILE_ENV}) at a readable file"
        ) from None
    return _user_profiles_cached(str(path), _shown(path), stat.st_mtime_ns, stat.st_size)


# ---------------------------------------------------------------------------------------- resolving


def profile_names() -> list[str]:
    return sorted({*builtin_profiles(), *user_profiles()})


def _merge(base: Sections, body: Mapping[str, Any]) -> Sections:
    merged = {family: dict(knobs) for family, knobs in base.items()}
    for family, section in body.items():
        if family == EXTENDS:
            continue
        if section is None:
            merged.pop(family, None)
        else:
            merged[family] = {**merged.get(family, {}), **section}
    return merged


def _resolve_in(
    shown: str, builtin: dict[str, Sections], user: dict[str, dict[str, Any]], name: str
) -> Sections:
    """Profile ``name`` with its ``extends`` chain applied; a cycle or unknown parent is one line."""

    def walk(current: str, chain: tuple[str, ...]) -> Sections:
        if current in chain:
            loop = " -> ".join((*chain[chain.index(current) :], current))
            raise ConfigError(f"{shown}: {chain[-1]}.{EXTENDS}: cycle {loop}")
        body = user.get(current)
        if body is None:
            return builtin[current]
        parent = body.get(EXTENDS, current if current in builtin else None)
        if parent is None:
            base: Sections = {}
        elif parent == current and current in builtin:
            base = builtin[current]
        elif parent not in user and parent not in builtin:
            known = ", ".join(sorted({*builtin, *user}))
            raise ConfigError(f"{shown}: {current}.{EXTENDS}: unknown profile {parent!r}; known: {known}")
        else:
            base = walk(parent, (*chain, current))
        return _merge(base, body)

    return copy.deepcopy(walk(name, ()))


def resolve(name: str) -> Sections:
    """Profile ``name``: its built-in sections, then the user file's layers (a fresh copy)."""
    builtin = builtin_profiles()
    user = user_profiles()
    if name not in builtin and name not in user:
        raise ConfigError(f"unknown profile {name!r}; known profiles: {', '.join(profile_names())}")
    path = profile_file()
    return _resolve_in(_shown(path) if path else "built-in profiles", builtin, user, name)


def get_profile(name: str, family: str) -> Profile:
    """The profile ``name`` as seen by ``family``; an unknown profile is one line naming the known ones."""
    return Profile(name=name, params=dict(resolve(name).get(family, {})), knobs=family_knobs(family))


def profile_families(name: str) -> list[str]:
    """The benchmark families profile ``name`` has settings for: a run covers exactly these."""
    return sorted(resolve(name))


def current_profile_name() -> str:
    return os.environ.get("RELREASON_PROFILE", DEFAULT_PROFILE)
