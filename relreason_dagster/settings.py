"""Where relreason keeps its files, and the size profiles of a run.

Everything a run writes lives under ``RELREASON_HOME`` (default ``.relreason``
in the working directory): the DuckDB file, DLM checkpoints, Dagster's
instance folder.  Profiles are plain dicts per family so a family reads only
the keys it knows.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.errors import ConfigError

PACKAGE_ROOT = Path(__file__).resolve().parent
REPO_ROOT = PACKAGE_ROOT.parent
DBT_PROJECT_DIR = REPO_ROOT / "dbt_project"

# Per family, the knobs of each profile.  ``paper`` is the studies' protocol;
# ``smoke`` keeps ``make demo`` within minutes on 2 cores with the 135M model.
PROFILES: dict[str, dict[str, dict[str, Any]]] = {
    "smoke": {
        "relational": {
            "n_fewshot": 1,
            "n_fewshot_cot": 1,
            "n_iid": 1,
            "n_ood": 1,
            "n_train_nodes": 10,
            "n_ood_nodes": 20,
            "settings": ["nl", "nl_cot", "tv"],
            # OOD (n = 20) prompts in nl only: tv and CoT at n = 20 cost 3-7k tokens each on 2 cores.
            "split_settings": {"iid": ["nl", "nl_cot", "tv"], "ood": ["nl"]},
            "max_tokens": 64,
            "family_tree_variant": "study",
            # DLM: two quick tasks so the demo shows a DLM row; ten samples, a short epoch budget.
            "dlm_tasks": ["HasFather", "1-Outdegree"],
            "dlm_seeds": [0],
            "dlm_train_size": 10,
            "dlm_overrides": {"max_epochs": 300},
        },
        # One True and one False instance per task at two lengths, random positions in unrelated prose,
        # plus their minimal texts; the 135M model reads ~1k tokens in a few seconds.
        "flenqa": {
            "n_base": 2,
            "lengths": [250, 1000],
            "paddings": ["different"],
            "positions": ["random"],
            "minimal": True,
            "settings": ["direct", "cot", "next_word"],
            "max_tokens": {"direct": 16, "cot": 128, "next_word": 4},
        },
        # Four built-in Wino-style items (no external data), answer-first zero- and few-shot; the judge
        # (one line: any model of models.yaml) labels each response with the FGE probes.
        "selfcontra": {
            "sources": {"generated": 4},
            "settings": ["zero_answer", "few_answer"],
            "max_tokens": 96,
            "judge": "smollm2-135m",
            "detect_methods": ["fge"],
            "judge_max_tokens": 4,
            "annotation_files": [],
            "detect_limit": 0,
        },
        # KOR-Bench: one question of one short rule per category, zero-shot (official items when the
        # reference folder exists, else generated Logic/Counterfactual items), one self-correction
        # round and one Multi-Q record.
        "kor": {
            "source": "auto",
            "data_dir": "korbench/data",
            "rules": {
                "operation": ["17"],
                "logic": ["5"],
                "cipher": ["23"],
                "puzzle": ["2"],
                "counterfactual": ["13"],
            },
            "generated_rules": {
                "operation": ["1"],
                "logic": ["1"],
                "cipher": ["4"],
                "puzzle": ["10"],
                "counterfactual": ["1"],
            },
            "questions_per_rule": 1,
            "settings": ["zero_shot"],
            "mixed": {"Multi-Q": 1},
            "self_correction_rounds": 1,
            "context_tokens": 4096,
            "max_tokens": 96,
        },
    },
    "paper": {
        "relational": {
            "n_fewshot": 10,
            "n_fewshot_cot": 1,
            "n_iid": 10,
            "n_ood": 10,
            "n_train_nodes": 10,
            "n_ood_nodes": 20,
            "settings": ["nl", "nl_cot", "tv"],
            "max_tokens": 2048,
            "family_tree_variant": "study",
            # DLM as in the study: all nine tasks, trained on the ten few-shot samples; three seeds.
            "dlm_tasks": None,
            "dlm_seeds": [0, 1, 2],
            "dlm_train_size": None,
            "dlm_overrides": {},
        },
        # The study's grid: 3 tasks x 100 base instances x 5 lengths x 3 paddings x 4 positions.
        "flenqa": {
            "n_base": 100,
            "lengths": [250, 500, 1000, 2000, 3000],
            "paddings": ["duplicate", "similar", "different"],
            "positions": ["first", "middle", "last", "random"],
            "minimal": True,
            "settings": ["direct", "cot", "next_word"],
            "max_tokens": {"direct": 64, "cot": 1024, "next_word": 8},
        },
        # The study's §2 protocol: 50 items per dataset (WinoBias anti-stereotype test set, WinoGender,
        # WinoGrande dev) from the reference folder, four prompt settings; its human annotations imported
        # and every one of them judged by all three detection methods.
        "selfcontra": {
            "sources": {"winobias": 50, "winogender": 50, "winogrande": 50},
            "data_dir": "wino",
            "settings": ["zero_answer", "zero_reason", "few_answer", "few_reason"],
            "max_tokens": 512,
            "judge": "smollm2-135m",
            "detect_methods": ["iro", "binary", "fge"],
            "judge_max_tokens": 8,
            "annotation_files": ["wino/selfcontra_annotations/*.csv"],
            "detect_limit": None,
        },
        # The study's protocol: all 5 x 25 rules x 10 official questions, zero- and three-shot,
        # five self-correction rounds (§6.2) and 100 records of each complex-task setting (§6.3).
        "kor": {
            "source": "official",
            "data_dir": "korbench/data",
            "rules": {},
            "generated_rules": {},
            "questions_per_rule": 10,
            "settings": ["zero_shot", "three_shot"],
            "mixed": {"Multi-Q": 100, "Multi-R": 100, "Multi-RQ": 100},
            "self_correction_rounds": 5,
            "context_tokens": 32768,
            "max_tokens": 2048,
        },
    },
}

DEFAULT_PROFILE = "smoke"
DEFAULT_SEED = 20240101


def _user_profiles() -> dict[str, dict[str, dict[str, Any]]]:
    """Profiles from the YAML file ``RELREASON_PROFILES`` names: ``{profile: {family: {knob: value}}}``.

    They add to (or replace) the built-in ones, so a researcher defines a size
    without editing the package, and every process of a run (step workers
    included) sees the same profiles through the environment.
    """
    path = os.environ.get("RELREASON_PROFILES")
    if not path:
        return {}
    import yaml

    try:
        data = yaml.safe_load(Path(path).expanduser().read_text()) or {}
    except OSError as exc:
        raise ConfigError(
            f"RELREASON_PROFILES={path}: {exc.strerror}; point it at a readable YAML file"
        ) from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"RELREASON_PROFILES={path}: not valid YAML ({str(exc).splitlines()[0]})") from None
    if not isinstance(data, dict) or not all(
        isinstance(v, dict) and all(isinstance(f, dict) for f in v.values()) for v in data.values()
    ):
        raise ConfigError(f"RELREASON_PROFILES={path}: expected a mapping of profile -> family -> settings")
    return data


def _all_profiles() -> dict[str, dict[str, dict[str, Any]]]:
    return {**PROFILES, **_user_profiles()}


def profile_names() -> list[str]:
    return sorted(_all_profiles())


def _profile(name: str) -> dict[str, dict[str, Any]]:
    """The per-family sections of profile ``name``; a one-line error names the known ones."""
    profiles = _all_profiles()
    if name not in profiles:
        raise ConfigError(f"unknown profile {name!r}; known profiles: {', '.join(sorted(profiles))}")
    return profiles[name]


def get_profile(name: str, family: str) -> Profile:
    """The profile ``name`` as seen by ``family``."""
    return Profile(name=name, params=dict(_profile(name).get(family, {})))


def profile_families(name: str) -> list[str]:
    """The benchmark families profile ``name`` has settings for: a run covers exactly these."""
    return sorted(_profile(name))


_WRITABLE_HOMES: set[Path] = set()


def relreason_home_path() -> Path:
    """Where ``RELREASON_HOME`` is, without creating it (``relreason status`` only looks)."""
    return Path(os.environ.get("RELREASON_HOME", ".relreason")).expanduser().resolve()


def relreason_home() -> Path:
    """``RELREASON_HOME``, created if needed; an unwritable one is a ConfigError."""
    home = relreason_home_path()
    if home in _WRITABLE_HOMES:
        return home
    try:
        home.mkdir(parents=True, exist_ok=True)
        # A probe file of its own: runs in several threads and processes check the same home at once.
        with tempfile.NamedTemporaryFile(dir=home, prefix=".write-test-"):
            pass
        _WRITABLE_HOMES.add(home)
    except OSError as exc:
        raise ConfigError(
            f"RELREASON_HOME={home} is not writable ({exc.strerror}); set RELREASON_HOME to a writable folder"
        ) from None
    return home


def duckdb_path() -> Path:
    return relreason_home() / "relreason.duckdb"


def lake_url() -> str:
    """Where model output is written as Parquet: ``RELREASON_LAKE`` (a path or a URL that every
    worker can reach, e.g. ``s3://bucket/relreason``), default ``$RELREASON_HOME/lake``."""
    return os.environ.get("RELREASON_LAKE") or str(relreason_home() / "lake")


def max_concurrent_runs() -> int:
    """How many model or DLM task runs `relreason run` keeps going at once (RELREASON_MAX_RUNS)."""
    raw = os.environ.get("RELREASON_MAX_RUNS", "4")
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ConfigError(
            f"RELREASON_MAX_RUNS={raw!r}: expected a positive integer, e.g. RELREASON_MAX_RUNS=4"
        )
    return value


def models_path() -> Path:
    """The model registry file: ``RELREASON_MODELS`` or ``models.yaml`` in the repo."""
    return Path(os.environ.get("RELREASON_MODELS", REPO_ROOT / "models.yaml")).expanduser()


def current_profile_name() -> str:
    return os.environ.get("RELREASON_PROFILE", DEFAULT_PROFILE)


def reference_dir() -> Path:
    return Path(os.environ.get("RELREASON_REFERENCE_DIR", REPO_ROOT.parent / "shared" / "reference"))
