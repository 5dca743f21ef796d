"""``RelationalFamily``: the study's nine relational tasks behind the BenchmarkFamily contract."""

from __future__ import annotations

from typing import Any

from relreason_dagster.benchmarks.base import Parsed, Profile, Prompt, Sample
from relreason_dagster.benchmarks.relational import prompts
from relreason_dagster.benchmarks.relational.generate import (
    BENCHMARK,
    decode_gold,
    encode_gold,
    generate_samples,
)
from relreason_dagster.benchmarks.relational.parsing import parse_nl, parse_tv
from relreason_dagster.benchmarks.relational.tasks import TASKS, task_spec
from relreason_dagster.benchmarks.scoring import score_cells, unreadable
from relreason_dagster.errors import ConfigError


class RelationalFamily:
    """Family trees and graphs (Li et al., "LLMs for Relational Reasoning"), prompted as nl, nl_cot, tv."""

    name: str = BENCHMARK
    tasks: tuple[str, ...] = TASKS
    settings: tuple[str, ...] = prompts.SETTINGS
    # Its dbt files: dbt/ beside this module (marts in dbt/marts/); its marts are one group of the Dagster UI.
    marts_folder: str = "relational"
    marts_description: str = (
        "Relational reasoning marts: F1 per task, split and setting, DLM vs LLM (Table 1), and the "
        "symbolic SCR of chains of thought."
    )
    # What parse() may answer ("error" is the pipeline's, for a failed call).
    parse_statuses: tuple[str, ...] = ("ok", "na")
    # Non-LLM models trained on this family's samples: the DLM baseline (its dlm/ folder).
    baselines: tuple[str, ...] = ("dlm",)

    def generate(self, profile: Profile, seed: int) -> list[Sample]:
        """Few-shot, IID and OOD samples of every task, deterministic in ``seed``."""
        return generate_samples(profile, seed)

    def build_prompts(self, samples: list[Sample], profile: Profile) -> list[Prompt]:
        """One prompt per iid/ood sample and profile setting."""
        return prompts.build_prompts(samples, profile)

    def render_gold(self, sample: Sample, setting: str) -> str:
        """The gold answer in ``setting``'s answer format (also the few-shot answers)."""
        return prompts.render_gold(sample, setting)

    def score_prediction(self, sample: Sample, cells: Any, detail: dict[str, Any]) -> Parsed:
        """Score a baseline's predicted true cells (not text) exactly like a parsed response."""
        spec = task_spec(sample.task)
        gold = decode_gold(sample.gold, spec.arity)
        return score_cells(cells, gold, sample.n_cells, encode_gold(cells, spec.arity), detail)

    def parse(self, sample: Sample, setting: str, text: str) -> Parsed:
        """Read and score one response against the sample's gold cells; never raises on model text."""
        spec = task_spec(sample.task)
        n = int(sample.input["n"])
        n_cells = n if spec.arity == 1 else n * n
        gold = decode_gold(sample.gold, spec.arity)
        if setting in ("nl", "nl_cot"):
            result = parse_nl(text, sample.task, n)
        elif setting == "tv":
            result = parse_tv(text, sample.task, n)
        else:
            raise ConfigError(f"unknown relational setting {setting!r}; known: {', '.join(self.settings)}")
        if result.status != "ok":
            return unreadable(gold, n_cells, result.detail)
        return score_cells(result.cells, gold, n_cells, encode_gold(result.cells, spec.arity), result.detail)
