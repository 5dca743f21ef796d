"""The contract every benchmark family fulfils: generate -> prompt -> parse -> score.

A family is plain Python (no Dagster import) so a researcher can call it from a
notebook; the Dagster assets only move its rows into DuckDB.  Rows are plain
dicts whose keys match the DuckDB tables in ``relreason_dagster.storage.schema``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from relreason_dagster.errors import ConfigError


def stable_hash(*parts: Any, length: int = 16) -> str:
    """Content hash of JSON-serialisable parts: the stable ids of samples and prompts."""
    payload = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:length]


@dataclass(frozen=True)
class Sample:
    """One generated instance (row of ``raw.samples``)."""

    benchmark: str
    task: str
    sample_id: str
    split: str  # fewshot | iid | ood | test ...
    n: int | None
    variant: dict[str, Any]
    input: dict[str, Any]
    gold: Any
    label: bool | None
    seed: int
    generator_version: str
    # Cell counts for label balance: how many gold-positive cells out of how many.
    gold_pos: int = 0
    n_cells: int = 0

    def row(self) -> dict[str, Any]:
        return {
            "benchmark": self.benchmark,
            "task": self.task,
            "sample_id": self.sample_id,
            "split": self.split,
            "n": self.n,
            "variant": json.dumps(self.variant, sort_keys=True),
            "input": json.dumps(self.input, sort_keys=True),
            "gold": json.dumps(self.gold, sort_keys=True),
            "label": self.label,
            "gold_pos": self.gold_pos,
            "n_cells": self.n_cells,
            "seed": self.seed,
            "generator_version": self.generator_version,
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Sample:
        """Rebuild a sample read back from ``raw.samples`` (JSON columns decoded)."""

        def _load(value: Any) -> Any:
            return json.loads(value) if isinstance(value, str) else value

        return cls(
            benchmark=row["benchmark"],
            task=row["task"],
            sample_id=row["sample_id"],
            split=row["split"],
            n=row.get("n"),
            variant=_load(row.get("variant")) or {},
            input=_load(row["input"]),
            gold=_load(row["gold"]),
            label=row.get("label"),
            seed=row["seed"],
            generator_version=row["generator_version"],
            gold_pos=row.get("gold_pos") or 0,
            n_cells=row.get("n_cells") or 0,
        )


@dataclass(frozen=True)
class Prompt:
    """One prompt to send to every model (row of ``raw.prompts``)."""

    prompt_id: str
    sample_id: str
    benchmark: str
    task: str
    split: str
    setting: str
    messages: list[dict[str, str]]
    template_version: str
    max_tokens: int = 512
    # Length-controlled families (FLenQA): the prompt's expected token count, the allowed deviation,
    # and whether the key text alone is already over the target (exempt, counted apart).
    target_tokens: int | None = None
    target_tolerance: int | None = None
    target_exempt: bool = False

    @classmethod
    def for_sample(
        cls,
        sample: Sample,
        setting: str,
        messages: list[dict[str, str]],
        template_version: str,
        max_tokens: int,
        **extra: Any,
    ) -> Prompt:
        """The prompt of ``sample`` in ``setting``; its id hashes the exact messages, so any change
        to the text is a new prompt (and a new model call), never a stale cached answer."""
        return cls(
            prompt_id=stable_hash(sample.sample_id, setting, messages, template_version),
            sample_id=sample.sample_id,
            benchmark=sample.benchmark,
            task=sample.task,
            split=sample.split,
            setting=setting,
            messages=messages,
            template_version=template_version,
            max_tokens=max_tokens,
            **extra,
        )

    def row(self) -> dict[str, Any]:
        return {
            "prompt_id": self.prompt_id,
            "sample_id": self.sample_id,
            "benchmark": self.benchmark,
            "task": self.task,
            "split": self.split,
            "setting": self.setting,
            "messages": json.dumps(self.messages),
            "template_version": self.template_version,
            "max_tokens": self.max_tokens,
            "target_tokens": self.target_tokens,
            "target_tolerance": self.target_tolerance,
            "target_exempt": self.target_exempt,
        }


@dataclass
class Parsed:
    """A parsed and scored model answer (row of ``raw.parsed_answers`` minus keys).

    ``parse_status`` is ``ok`` or ``na`` (unreadable answer: the study's N/A);
    the pipeline adds ``error`` for prompts whose provider call failed.
    Cell counts make F1, accuracy and label bias computable in SQL for every
    family: ``tp/fp/fn`` over positive cells, ``pred_pos`` / ``n_cells``.
    """

    parse_status: str
    parsed: Any = None
    tp: int = 0
    fp: int = 0
    fn: int = 0
    pred_pos: int = 0
    n_cells: int = 0
    correct: bool | None = None
    detail: dict[str, Any] = field(default_factory=dict)

    def row(self, keys: dict[str, Any]) -> dict[str, Any]:
        """Its ``raw.parsed_answers`` row: ``keys`` (prompt, model, sample...) plus the scored answer."""
        return {
            **keys,
            "parse_status": self.parse_status,
            "parsed": json.dumps(self.parsed),
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "pred_pos": self.pred_pos,
            "n_cells": self.n_cells,
            "correct": self.correct,
            "detail": json.dumps(self.detail, default=str),
        }


# The most draws a prompt may ask for (``--samples K``, a profile's ``samples``): pass@k studies use up to a
# few hundred, and a typo of a few more digits would otherwise start a run of billions of requests.
MAX_SAMPLES = 1000
# The most samples per task ``--limit N`` takes: more than any study's task has (a cap, not a size).
MAX_LIMIT = 1_000_000


class FamilyKnobs(BaseModel):
    """The knobs of one family's profile section, each declared once with its type and its default.

    A family subclasses this in its ``profile_schema.py`` as ``Knobs``; ``relreason_dagster.profiles``
    checks every section (built-in and the user's) against it, and :meth:`Profile.typed` answers a knob
    the section leaves out (or sets to null) with the default declared here, so no call site carries
    a default of its own.  Strict: ``true`` is not an int, ``"3"`` is not a number; an unknown knob is
    an error, not a silently ignored typo.  Each knob's type is what its readers use (``int``, ``str``,
    a ``Literal`` of the choices), so no reader casts it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    # Generic, for every family: how many times each prompt is asked (repeated sampling; the CLI's
    # ``--samples K`` wins over it).
    samples: int = Field(
        1, ge=1, le=MAX_SAMPLES, json_schema_extra={"expected": f"a whole number from 1 to {MAX_SAMPLES}"}
    )


class GenerationKnobs(FamilyKnobs):
    """The knobs of a family whose profile may state the study's decoding (FLenQA, Self-Contra): a
    subclass, not a knob of every family, so a ``generation`` in a family that never sends one stays an
    unknown-knob error.  Shared code reads it with :func:`study_generation`."""

    # Generation params sent on top of each model's own (the paper profiles: the study's temperature);
    # part of every request's cache key.
    generation: dict[str, float] | None = None


K = TypeVar("K", bound=FamilyKnobs)


@dataclass(frozen=True)
class Profile:
    """A family's section of one profile (``smoke`` for the demo, ``paper`` for the studies, or a user's).

    ``params`` are the knobs the profile sets, already merged (``extends``) and type-checked by
    ``relreason_dagster.profiles`` (only these feed the cache keys, so a new declared default does not
    invalidate stored rows); ``knobs`` is the family's :class:`FamilyKnobs` model, whose declared
    defaults :meth:`typed` fills in for the knobs left out.  ``profiles.get_profile`` sets it; a test may
    build ``Profile(name, params)`` without it and read ``typed(Knobs)`` with the family's model.
    """

    name: str
    params: dict[str, Any]
    knobs: type[FamilyKnobs] | None = field(default=None, compare=False, repr=False)

    def typed(self, knobs: type[K]) -> K:
        """The section as the family's ``Knobs`` instance, every knob an attribute: as set, else (unset or
        null) its declared default.  What family code reads (``profile.typed(Knobs).n_iid``): a typo is
        an AttributeError at once and each knob has its declared type, so no reader casts or names a
        knob by string.  Values were checked when the profile was read, so this only fills defaults
        (not strict, so a test's tuple reads as the declared list)."""
        cached = self.__dict__.get("_typed")
        if cached is not None and cached[0] is knobs:
            return cached[1]
        set_now = {key: value for key, value in self.params.items() if value is not None}
        if knobs is FamilyKnobs:  # the generic knobs of any section (shared code's view)
            set_now = {key: value for key, value in set_now.items() if key in FamilyKnobs.model_fields}
        try:
            value = knobs.model_validate(set_now, strict=False)
        except ValidationError as exc:  # a section not read through profiles.py (a test's, a notebook's)
            first = exc.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            raise ConfigError(
                f"profile {self.name!r}: {where}: {first['msg']}, got {first.get('input')!r}"
            ) from None
        object.__setattr__(self, "_typed", (knobs, value))  # a frozen section: read once per instance
        return value

    def values(self) -> FamilyKnobs:
        """The section as its family's model (``knobs``; without one, only the generic knobs): what shared
        code reads, e.g. ``samples``, without knowing the family."""
        return self.typed(self.knobs or FamilyKnobs)

    def with_params(self, changed: dict[str, Any]) -> Profile:
        """This profile with some knobs set (a run's overrides), the same family model."""
        return replace(self, params={**self.params, **changed})


def study_generation(profile: Profile) -> dict[str, float] | None:
    """The generation params the family's profile states (a :class:`GenerationKnobs` family), else None."""
    values = profile.values()
    return values.generation if isinstance(values, GenerationKnobs) else None


class BenchmarkFamily(Protocol):
    """What the pipeline needs from a family; register it with one ``register(...)`` line in
    ``benchmarks.registry`` (from outside the package: ``registry.register``, or a
    ``relreason.families`` entry point).

    Its folder also holds, found by name (``registry.family_module``):

    * ``profiles.yaml`` (its sections of the built-in profiles) and ``profile_schema.py``
      (``Knobs``, a :class:`FamilyKnobs`: each knob's type and default), so a user's profile file is
      checked against the knobs it reads and a knob left out reads as its declared default;
    * ``checks.py``: ``QUALITY`` (a :class:`QualityBounds` for the shared checks) and ``CHECKS``
      (:class:`FamilyCheck` s of its own);
    * ``steps.py``: ``STEPS``, its :class:`FollowUpStep` s (self-correction rounds, a judge...);
    * ``report.py``: ``SECTIONS`` (:class:`ReportSection` s: what ``report.html`` shows of it, figures
      drawn by its own code included) and ``HEADLINES`` (:class:`HeadlineTable` s a run covering it
      prints at its end);
    * ``published.csv``: its study's published numbers, one row per printed cell
      (:data:`PUBLISHED_COLUMNS`), loaded into ``raw.study_reference``.

    Optional class attributes: ``marts_folder`` and ``marts_description`` (the group of its dbt marts
    in the Dagster UI; its dbt files live in ``dbt/`` beside its module, see ``defs/dbt_families.py``),
    ``parse_statuses`` (what ``parse`` may answer; ``parse_status_check`` holds stored answers to it) and
    ``baselines`` (the names of non-LLM models that train on its samples, e.g. the DLM; each a
    :class:`Baseline` in its ``baseline.py``).
    """

    name: str
    tasks: tuple[str, ...]

    def generate(self, profile: Profile, seed: int) -> list[Sample]:
        """All samples of the profile, deterministic in ``seed``."""
        ...

    def build_prompts(self, samples: list[Sample], profile: Profile) -> list[Prompt]:
        """Prompts for every test sample and setting (few-shot samples go inside)."""
        ...

    def parse(self, sample: Sample, setting: str, text: str) -> Parsed:
        """Parse and score one response; never raises on model text."""
        ...


# ------------------------------------------------------------------------------------ follow-up steps


@dataclass(frozen=True)
class Reply:
    """A model's reply to one step prompt: its text, or why there is none."""

    content: str | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and self.content is not None


@dataclass(frozen=True)
class StepPrompt:
    """A prompt a follow-up step asks (stored in ``raw.prompts`` with the step's ``kind``).

    ``prompt_id`` is the step's own stable hash: the same question is the same prompt (one call,
    cached), and a changed question is a new one.
    """

    prompt_id: str
    sample_id: str
    task: str
    split: str
    setting: str
    messages: list[dict[str, str]]
    template_version: str
    max_tokens: int

    def row(self, benchmark: str, kind: str) -> dict[str, Any]:
        """Its ``raw.prompts`` row, less the token count (the ask helper adds it)."""
        return {
            "prompt_id": self.prompt_id,
            "sample_id": self.sample_id,
            "benchmark": benchmark,
            "kind": kind,
            "task": self.task,
            "split": self.split,
            "setting": self.setting,
            "messages": json.dumps(self.messages),
            "template_version": self.template_version,
            "max_tokens": self.max_tokens,
        }


@dataclass
class StepRows:
    """What a step stores: rows of its table, which stored rows they replace, and a summary."""

    rows: list[dict[str, Any]]
    replace_where: str
    replace_params: list[Any]
    summary: dict[str, Any] = field(default_factory=dict)


# Where a step runs: before any model (``inputs``), once per model on that model's answers (``per_model``,
# asking that model), or once over every model's answers (``across_models``, asking the step model).
STEP_STAGES = ("inputs", "per_model", "across_models")

# The FROM clause of a step that reads scored answers with their response, prompt and sample (aliases
# a, r, p, s): written once, since every step that re-asks or judges answers starts from this join.
ANSWERS_JOIN = """FROM raw.parsed_answers a
JOIN raw.responses r USING (prompt_id, model)
JOIN raw.prompts p USING (prompt_id)
JOIN raw.samples s ON s.sample_id = a.sample_id"""


class Baseline(Protocol):
    """A non-LLM model a family trains on its own samples (the relational study's DLM), declared in
    ``baseline.py`` as ``BASELINES``.  The generic layer (``defs/baseline_assets.py``) plans, trains
    and scores it per task; its answers are ``raw.parsed_answers`` rows of model ``name``, scored by
    the family's ``score_prediction`` like any model's, so every mart treats it as a model.
    """

    name: str  # the model name of its answers (reserved: no models.yaml entry may take it)
    setting: str  # the setting of its answers
    title: str  # how tables and figures name it
    description: str
    runs_table: str  # the raw table of its training runs (one row per run, keyed by ``run_id``)
    train_splits: tuple[str, ...]  # the stored splits it trains on
    test_splits: tuple[str, ...]  # the stored splits it answers
    step_words: tuple[str, str]  # what its two steps do, in words, for the run's progress lines

    def tasks(self, profile: Profile, train_size: int | None = None) -> tuple[str, ...]:
        """The family's tasks the profile trains it on."""
        ...

    def plan(
        self, task: str, fewshot: list[Sample], profile: Profile, seed: int, train_size: int | None
    ) -> list[Any]:
        """The training runs of ``task`` (objects with a stable ``run_id`` and ``seed``)."""
        ...

    def intact(self, row: dict[str, Any], home: Any) -> bool:
        """Whether a stored run's trained weights are still on disk, unchanged."""
        ...

    def train(
        self, runs: list[Any], home: Any, on_done: Any, workers: int | None = None
    ) -> list[dict[str, Any]]:
        """Train ``runs``; one ``runs_table`` row per run, ``on_done(row)`` as each finishes; at most
        ``workers`` trainings at once on this machine (None: the baseline's default)."""
        ...

    def predictor(self, row: dict[str, Any], home: Any) -> Any:
        """A stored run's prediction function: a sample in, the cells ``score_prediction`` reads out."""
        ...

    def done_line(self, task: str, row: dict[str, Any]) -> str:
        """The progress line of one finished training run."""
        ...

    def summary(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        """What the UI shows of a task's runs: ``runs`` (table rows), ``programs`` (markdown), ``config``."""
        ...


class FollowUpStep(Protocol):
    """A family's step after (or beside) its test prompts: KOR self-correction, a judge, a checker.

    Everything here is plain Python: ``reads`` names the stored rows it needs (SQL on the ``raw``
    tables), ``prompts`` says what to ask given those rows and the replies so far (called again
    after each batch of replies, until it asks nothing new: a multi-round step is a chain of
    batches), and ``rows`` turns rows and replies into the step's table.  The generic Dagster layer
    (``defs/steps.py``) makes an asset of it; one helper (``llm/ask.py``) asks the model.
    """

    name: str  # asset key and raw table's owner, e.g. ``kor_self_correction``
    description: str
    table: str  # the raw table its rows go to
    stage: str  # one of STEP_STAGES
    kind: str | None  # raw.prompts kind of its prompts; None: it asks no model
    # The profile knob naming the model it asks (across_models), as error lines name it; ``model_for``
    # reads its value.  None: the run's model.
    model_knob: str | None
    after: tuple[str, ...]  # other steps of its family whose rows it reads
    # The benchmark name its prompts were stored under before raw.prompts had a kind (an older DuckDB
    # file is migrated by storage/schema.py); None for a step that never had one.
    legacy_benchmark: str | None

    def model_for(self, profile: Profile) -> str | None:
        """The model an across-models step asks by the profile (its ``model_knob``, typed); None: none."""
        ...

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        """Named queries ``(sql, params)`` of the stored rows the step needs."""
        ...

    def prompts(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> list[StepPrompt]:
        """Every prompt the step asks given ``replies`` so far (those already answered included)."""
        ...

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        """The step's rows once every prompt is answered."""
        ...


# ------------------------------------------------------------------------------------- data quality


@dataclass(frozen=True)
class QualityBounds:
    """The bounds the shared data-quality checks hold a family's rows to (``data_quality/``).

    ``label_balance``: (min, max) positive share of gold cells per task, ``"*"`` the family default;
    None when the family's answers are not labels (nothing to balance, not checked).
    ``token_ranges``: (min, max) input tokens per prompt setting (unlisted settings: unbounded).
    ``min_parse_rate``: the least share of readable answers per model before the check warns.
    """

    label_balance: dict[str, tuple[float, float]] | None = None
    token_ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    min_parse_rate: float = 0.5


# The stored assets a family check can look at.
CHECKED_ASSETS = ("samples", "prompts", "parsed_answers")


@dataclass(frozen=True)
class FamilyCheck:
    """A data-quality check of the family's own (beside the shared ones every family gets).

    ``sql`` reads the frame to check, with one ``?`` for the family's name; ``run`` validates it
    (a ``common.gx_validation.SuiteResult``), given the family's profile section (None when the run
    does not cover the family) and the run's seed.  ``warn``: a failure is a warning, not an error.
    """

    name: str
    asset: str  # one of CHECKED_ASSETS
    description: str
    sql: str
    run: Any  # Callable[[pandas.DataFrame, Profile | None, int], SuiteResult]
    warn: bool = False


# The key of ``stored`` that holds a per-model step's model entry when the step asks for it
# (``Step.reads_model_entry``): one row, the entry as the launch resolved it (name, litellm_model,
# kind, base_of, params, ...).  So a family reads a field of models.yaml without reading the file.
MODEL_ENTRY = "model_entry"


class Step:
    """Defaults for a :class:`FollowUpStep` to subclass: it asks no model, reads nothing, follows no
    other step; a subclass sets its name, table and stage and overrides what it does."""

    name: str
    description: str
    table: str
    stage: str
    kind: str | None = None
    model_knob: str | None = None
    after: tuple[str, ...] = ()
    legacy_benchmark: str | None = None
    reads_model_entry: bool = False  # per-model: ``stored[MODEL_ENTRY]`` holds the model's entry

    def model_for(self, profile: Profile) -> str | None:
        return None

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        return {}

    def prompts(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> list[StepPrompt]:
        return []

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        raise NotImplementedError


def step_model_name(step: FollowUpStep, profile: Profile) -> str | None:
    """The model an across-models step asks by the profile (a run's ``--judge`` wins over it): the step's
    ``model_for(profile)``, which reads its typed knob (Self-Contra judges each detection method with the
    model the study used for it); None: the profile names none."""
    return step.model_for(profile) or None


# ------------------------------------------------------------------------------ what a study shows

Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class FigureSpec:
    """One figure of a family's report section: its PNG, what it shows, the marts it reads, how it is drawn.

    ``draw`` lives in the family (it knows what its marts mean); ``results/figures.py`` only renders
    it: the Dagster figure asset and ``relreason report`` call the same :func:`render`, so the picture
    in the UI's metadata and the one in the HTML report are the same.  ``draw`` gets every mart it
    names (an absent one as no rows) and must draw a panel that says so when they are empty.
    """

    name: str  # file stem under plots/ and report/
    asset_name: str  # the Dagster asset that materializes it
    study: str  # the family it belongs to (a run redraws the figures of the families it covers)
    title: str
    caption: str
    marts: tuple[str, ...]  # "marts.<table>", read whole
    draw: Callable[[dict[str, Rows]], Any]  # rows per mart -> matplotlib Figure
    hint: str  # what to run when there is no data yet
    # Why the figure can be empty although the family was answered: the configuration it needs, which
    # profile leaves it out and which has it.  When every mart is empty but the family has answers,
    # results/figures.py draws this line instead of ``draw``'s "no answers yet" panel.
    empty: str = ""
    # Marts ``draw`` may also read that say nothing of whether the figure has data (FLenQA's provider-
    # counted lengths, an optional x axis): read and depended on like ``marts``, never counted as its rows.
    axis_marts: tuple[str, ...] = ()

    @property
    def file_name(self) -> str:
        return f"{self.name}.png"


@dataclass(frozen=True)
class ReportTable:
    """A report table, one column per model: its title, what the numbers are, the marts it needs and a
    long-form query returning the row keys, ``model`` and either ``value, low, high, n`` or (``counts``)
    ``k, n`` (the report computes a Wilson interval over pooled counts)."""

    key: str  # the HTML id (``table-<key>``) and the name in ReportSummary.tables
    title: str
    note: str
    marts: tuple[str, ...]
    row_keys: tuple[str, ...]
    sql: str
    counts: bool = False
    first: tuple[str, ...] = ()  # row key values placed first, in this order (a study's task order)
    last: tuple[str, ...] = ()  # row key values placed last (an "overall" row)
    last_models: tuple[str, ...] = ()  # model columns placed after the others (a baseline)
    # A counts table whose cells show ``k/n`` where others show ``n=``: the count itself is the news (the
    # answers a budget cut: "3/50" reads at once, a share of 0.06 needs its n).
    fraction: bool = False


@dataclass(frozen=True)
class Comparison:
    """The study's published numbers beside ours: a comparison table pivoted with models as columns.

    Its rows come from ``mart`` (a ``<family>_vs_study`` mart on ``ref('study_reference')``), or from
    ``sql`` (a query of the same columns over the relations in ``needs``, for a family without such a
    mart): the row keys, then ``model, published, source, metric, value, ci_low, ci_high, n, note``.
    ``published`` is true for the paper's models, whose columns the report marks with their
    ``source``.  Rows may go on with ``comparable, why_not`` (:data:`COMPARABILITY_COLUMNS`, the
    contract of every ``<family>_vs_study`` mart): a cell whose row is not comparable is greyed with a
    dagger and its ``why_not`` listed under the table, not shown as the other side's equal; rows
    without them render as before.  ``where`` narrows the rows (SQL on those columns); ``footnote``
    says how the study's protocol differs from ours.  A mart not built yet, or without rows, is not
    shown.
    """

    key: str
    title: str
    row_keys: tuple[str, ...] = ()  # default: the mart's columns before ``model``
    mart: str = ""  # "marts.<family>_vs_study"
    sql: str = ""
    needs: tuple[str, ...] = ()
    where: str = ""
    note: str = ""
    footnote: str = ""
    first: tuple[str, ...] = ()
    last: tuple[str, ...] = ()
    last_models: tuple[str, ...] = ()

    @property
    def relations(self) -> tuple[str, ...]:
        """What must exist before the table can be read."""
        return (self.mart,) if self.mart else self.needs

    def query(self) -> str:
        """The query of its long rows."""
        base = self.sql or f"SELECT * FROM {self.mart}"
        return f"SELECT * FROM ({base}) AS c WHERE {self.where}" if self.where else base


@dataclass(frozen=True)
class ReportSection:
    """One section of ``report.html``: its figures, then ``html`` (a block the family draws itself from
    the rows of ``html_marts``, each read whole, an absent one as no rows, and each registered model's
    ``params`` as ``models.yaml`` sets them, handed in by ``results/`` so a family never reads the model
    registry), its tables and its comparisons with the study.  ``order`` places it among the
    registered families' sections (lower first); ``key`` is its anchor (``#key``)."""

    key: str
    title: str
    label: str  # its link in the page's navigation bar
    order: int = 100
    figures: tuple[FigureSpec, ...] = ()
    tables: tuple[ReportTable, ...] = ()
    comparisons: tuple[Comparison, ...] = ()
    html: Callable[[dict[str, Rows], dict[str, dict[str, Any]]], str] | None = None
    html_marts: tuple[str, ...] = ()
    fold_over: int = 12  # a table of more rows starts folded


@dataclass(frozen=True)
class HeadlineTable:
    """A plain-text table ``relreason run`` / ``demo`` prints at its end when the run covered the family
    (a missing mart leaves it out)."""

    title: str
    sql: str


# The columns every family's ``published.csv`` starts with, in this order; columns after ``note`` are
# extra keys of that family (stored as JSON in raw.study_reference.keys).  ``value`` is in the unit of
# the family's marts (shares in [0, 1] for percentages), empty for a cell the paper leaves N/A;
# ``printed`` is the cell as the paper prints it.
PUBLISHED_COLUMNS = (
    "family",
    "source",
    "model",
    "task",
    "category",
    "dataset",
    "setting",
    "split",
    "n",
    "length",
    "padding",
    "position",
    "metric",
    "value",
    "printed",
    "note",
)

# Optional columns after ``note`` that are not keys: whether a relreason run can stand beside the cell
# like with like (the same items, in the study's selection, pooled the same way with the same count per
# point) and, when it cannot, why in one line.  ``comparable`` is ``true``/``false`` (empty: true); a
# ``false`` needs its ``why_not``.  They go to ``raw.study_reference``'s own columns, and each
# ``<family>_vs_study`` mart carries both on every row (ours: what the run actually was).
COMPARABILITY_COLUMNS = ("comparable", "why_not")
