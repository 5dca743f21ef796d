"""The knobs a Self-Contra profile may set: each one's type and default, declared once.

``relreason_dagster.profiles`` checks every selfcontra section (built-in ``profiles.yaml`` and the
user's file) against :class:`Knobs`; a knob a section leaves out (or sets to null) reads as the default
here.  ``sources`` maps a dataset to its item count; ``detect_limit``/``annotation_limit`` null mean no
limit.  ``stereotypes`` (anti, pro) and ``splits`` (test, dev) pick the WinoBias files (default anti
test); ``items`` is ``first`` (the first n of each file; WinoGrande dev) or ``study`` (the study's own §2
items, derived from its released annotation files: study_items.py) or ``s3`` (§3's sets: ``s3_model``'s
released WinoBias lists and the WinoGrande items of ``s3_winogrande``); ``prompts`` is ``relreason`` (our
wording and demonstrations) or ``study`` (the study's wording and its six demonstrations from
``demonstrations_file``, relative to the reference folder).
``generation`` is the study's decoding, sent on top of each model's own params (the paper profile:
temperature 0, as §2 states for all models).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from relreason_dagster.benchmarks.base import GenerationKnobs
from relreason_dagster.benchmarks.reasoning_source import DEFAULT, ReasoningSource
from relreason_dagster.benchmarks.selfcontra.detection import METHODS
from relreason_dagster.benchmarks.selfcontra.prompts import SETTINGS

# The WinoBias files there are (family.py reads them) and the judge's detection methods: a list
# naming none, or a name outside these, fails when the profile is read, in one line, not when the
# step that needs it runs.
Stereotype = Literal["anti", "pro"]
Split = Literal["test", "dev"]
Selection = Literal["first", "study", "s3"]
Wording = Literal["study", "gpt3.5"]
S3Model = Literal["mistral", "gpt3.5"]
AppendixProbe = Literal["em", "pov", "pov_diagnostic"]
Method = Literal[METHODS]  # type: ignore[valid-type]


class Knobs(GenerationKnobs):  # generation: the study's decoding, on top of each model's
    """A selfcontra section: the items, the prompt settings and wording, the judge and its detection."""

    sources: dict[str, int] = Field(default_factory=lambda: {"generated": 50})
    data_dir: str = "wino"  # relative to the reference folder (null: this default)
    stereotypes: list[Stereotype] = Field(
        default_factory=lambda: ["anti"],
        min_length=1,
        json_schema_extra={"expected": "a non-empty list of anti, pro"},
    )
    splits: list[Split] = Field(
        default_factory=lambda: ["test"],
        min_length=1,
        json_schema_extra={"expected": "a non-empty list of test, dev"},
    )
    items: Selection = "first"  # first n of each file, or the study's own §2 items (study_items.py)
    # items: s3 (§3, Table 5): whose released §3 files' WinoBias items to ask (the two models' pro files
    # differ on 30 lines), and the WinoGrande file holding §3's WinoGrande items (relative to the reference
    # folder, or absolute): train_s.jsonl of WinoGrande 1.1, which the reference folder lacks.
    s3_model: S3Model = "mistral"
    s3_winogrande: str = "wino/winogrande/train_s.jsonl"
    # App. C-D's probes, each off unless named (each asks several prompts per response; probe_steps.py):
    # em (the judge's evidence-missing probe), pov and pov_diagnostic (the run's model, on annotated
    # WinoBias responses, at most pov_limit of them; null: all).
    appendix_probes: list[AppendixProbe] = Field(default_factory=list)
    pov_limit: int | None = 60
    prompts: str = "relreason"
    # Under prompts: study, whose study wording each model gets: ``study`` (each study model the one the
    # study asked it, other models GPT-3.5's: prompts.study_model_key, study_wording.csv) or ``gpt3.5``
    # (every model GPT-3.5's).
    wording: Wording = "gpt3.5"
    demonstrations_file: str = "wino/self_contra_demonstrations.json"
    settings: list[str] = Field(default_factory=lambda: list(SETTINGS))
    max_tokens: int = 512
    judge: str | None = None  # a model of models.yaml (or --judge): every method's, unless judges names one
    # The judge of each detection method (a model of models.yaml): §4.1 judged I+R→O and FGE with GPT-4 and
    # binary detection with GPT-4-turbo, so the paper profile names both; a method it leaves out is
    # judged by ``judge``, and a run's ``--judge`` judges every method.
    judges: dict[Method, str] | None = None
    detect_methods: list[Method] = Field(
        default_factory=lambda: list(METHODS),
        min_length=1,
        json_schema_extra={"expected": f"a non-empty list of {', '.join(METHODS)}"},
    )
    judge_max_tokens: int = 8
    annotation_files: list[str] = Field(default_factory=list)
    annotation_limit: int | None = None
    detect_limit: int | None = None
    # The prompt settings of the annotated responses the judge labels (null: every setting); Table 6 used
    # §3's Few-shot (A) responses, so the paper profile judges few_answer.
    detect_settings: list[str] | None = None
    # Which text the judge and the trace reading read of our own responses: the answer, the reasoning
    # trace, or both (auto: both for a model with traces, the answer otherwise; reasoning_source.py).
    reasoning_source: ReasoningSource = DEFAULT
