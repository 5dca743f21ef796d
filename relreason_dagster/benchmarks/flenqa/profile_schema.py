"""The knobs a FLenQA profile may set: each one's type and default, declared once.

``relreason_dagster.profiles`` checks every flenqa section (built-in ``profiles.yaml`` and the user's
file) against :class:`Knobs`; a knob a section leaves out (or sets to null) reads as the default here:
the study's grid.  ``max_tokens`` is per setting, on top of ``DEFAULT_MAX_TOKENS`` (a setting it leaves
out keeps its default cap).  ``generation`` is the study's protocol: generation params sent on top of
the model's own (the paper profile: temperature 0 and top-p 0, Appendix E); they are part of every
request's cache key.  ``reading`` and ``layout`` (the paper profile: ``study``, the study's notebook)
choose the rules that read a response and the prompts' layout; only ``layout`` changes the prompts.
``prose`` names the different padding's built-in prose (``prose.py``): ``python-docs``, the default
(every prompt stored before the knob was built from it), or ``novels`` (the ``long`` profile's).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from relreason_dagster.benchmarks.base import GenerationKnobs
from relreason_dagster.benchmarks.flenqa import padding, prompts
from relreason_dagster.benchmarks.flenqa import reading as reading_rules
from relreason_dagster.benchmarks.flenqa.instances import TASKS
from relreason_dagster.benchmarks.flenqa.prose import BUILTIN as PROSE_DEFAULT
from relreason_dagster.benchmarks.reasoning_source import DEFAULT as DEFAULT_SOURCE
from relreason_dagster.benchmarks.reasoning_source import ReasoningSource
from relreason_dagster.common.tokenizer import DEFAULT_TOKENIZER

DEFAULT_MAX_TOKENS = {prompts.DIRECT: 64, prompts.COT: 1024, prompts.NEXT_WORD: 8}


# The study's grid, the knobs' defaults (generate.py reads them from here: the knobs are declared first).
POOL_SIZE = 100
LENGTHS = (250, 500, 1000, 2000, 3000)


class Knobs(GenerationKnobs):  # generation: the study's decoding, on top of each model's
    """A flenqa section: the grid (tasks x base instances x lengths x paddings x positions), the settings."""

    n_base: int = POOL_SIZE
    tasks: list[str] = Field(default_factory=lambda: list(TASKS))
    lengths: list[int] = Field(default_factory=lambda: list(LENGTHS))
    paddings: list[str] = Field(default_factory=lambda: list(padding.PADDINGS))
    positions: list[str] = Field(default_factory=lambda: list(padding.POSITIONS))
    minimal: bool = True  # also the key paragraphs alone (the unpadded baseline)
    settings: list[str] = Field(default_factory=lambda: list(prompts.SETTINGS))
    max_tokens: dict[str, int] = Field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    tokenizer: str = DEFAULT_TOKENIZER
    # The different padding's built-in prose (prose.py): python-docs (CPython's docs, the default: the
    # smoke and paper prompts were built from it) or novels (public-domain books, enough for 128k tokens).
    prose: Literal["python-docs", "novels"] = PROSE_DEFAULT
    prose_dir: str | None = None  # a folder of .txt files instead of the built-in prose
    # The study's released dataset (FLenQA_hf.jsonl or its parquet) instead of generated items: a path,
    # or auto = the file `relreason flenqa import` stored, generated items when there is none.
    dataset_file: str | None = None
    # Which text §7's CoT analyses (answer first, key-fact coverage) read: the answer, the reasoning
    # trace or both, one row per source (steps.py, marts flenqa_cot*); auto = both for a model with traces.
    reasoning_source: ReasoningSource = DEFAULT_SOURCE
    # Which rules read a response (answer, answer first, key-fact coverage; reading.py): the study's
    # analysis notebook's (study) or relreason's own (relreason, the default: what stored runs were read by).
    reading: reading_rules.Reading = reading_rules.DEFAULT
    # Which prompt layout (prompts.py): the study's notebook's, byte for byte (study), or relreason's
    # (relreason, the default: a new default would re-ask every stored prompt).
    layout: prompts.Layout = prompts.RELREASON_LAYOUT
