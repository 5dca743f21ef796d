"""``SelfContraFamily``: Wino-style coreference answered with reasoning, behind the BenchmarkFamily contract.

A task is a dataset: ``generated`` (built in, runs with no external data),
``winobias``, ``winogender`` and ``winogrande`` (loaded from the profile's
``data_dir``, relative to ``RELREASON_REFERENCE_DIR`` unless absolute).  The
answer is a candidate index, so accuracy comes from the generic marts; the
reasoning is kept in ``detail`` for the judges and the annotation export.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import Parsed, Profile, Prompt, Sample, stable_hash
from relreason_dagster.benchmarks.selfcontra import generate, loaders, parsing, prompts, study_items
from relreason_dagster.benchmarks.selfcontra.items import WinoItem
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs
from relreason_dagster.errors import ConfigError

BENCHMARK = "selfcontra"
GENERATOR_VERSION = "selfcontra-items-v1"
DATASETS = ("generated", "winobias", "winogender", "winogrande")


def order_of(setting: str) -> str:
    """``answer`` (answer-first, A) or ``reason`` (reason-first, R) from a setting like ``few_reason``."""
    return "reason" if setting.endswith("reason") else "answer"


def data_dir(profile: Profile) -> Path:
    raw = Path(profile.typed(Knobs).data_dir).expanduser()
    return raw if raw.is_absolute() else paths.reference_dir() / raw


WINOBIAS_STEREOTYPES = ("anti", "pro")
WINOBIAS_SPLITS = ("test", "dev")


def _choice(values: list[str], knob: str, known: tuple[str, ...]) -> tuple[str, ...]:
    """The chosen files of one WinoBias knob (``knob`` names it in the error line)."""
    chosen = tuple(values)
    unknown = [value for value in chosen if value not in known]
    if unknown or not chosen:
        raise ConfigError(f"selfcontra {knob} {list(chosen)} invalid; choose from {', '.join(known)}")
    return chosen


def demonstrations_file(profile: Profile) -> Path:
    """The study's demonstrations JSON (knob ``demonstrations_file``, relative to the reference folder)."""
    raw = Path(profile.typed(Knobs).demonstrations_file).expanduser()
    return raw if raw.is_absolute() else paths.reference_dir() / raw


# The pro-stereotype test file is line-parallel to the anti one with the other gender's pronouns: the word
# the study asked on an anti line ("her" strength) is this word on the same pro line ("his" strength).
_OTHER_GENDER = {"her": "his", "his": "her", "she": "he", "he": "she", "him": "her", "hers": "his"}


def selection(profile: Profile) -> str:
    """``first`` (the first n of each file: WinoBias lines 1..n, WinoGrande dev) or ``study`` (the study's
    own §2 items: its WinoBias lines in its order, WinoGrande train_xs; study_items.py)."""
    value = profile.typed(Knobs).items
    if value not in study_items.SELECTIONS:
        raise ConfigError(
            f"selfcontra items {value!r} invalid; choose from {', '.join(study_items.SELECTIONS)}"
        )
    return value


def _study_winobias(items: list[WinoItem], n: int | None) -> list[WinoItem]:
    """The study's WinoBias items of each loaded file, in the study's order, asking the word it asked."""
    lines = study_items.study_winobias_lines()
    out: list[WinoItem] = []
    for (stereotype, split), found in study_items.winobias_by_file(items).items():
        if split != "test":
            raise ConfigError(
                f"selfcontra items: study lists the WinoBias test files' lines only, not {split}; "
                "set splits: [test] or items: first"
            )
        chosen = [x for x in lines if x.line in found][: n if n is not None else None]
        for x in chosen:
            item = found[x.line]
            if x.asked:
                asked = x.asked if stereotype == "anti" else _OTHER_GENDER.get(x.asked, x.asked)
                item = replace(item, pronoun=asked, variant={**item.variant, "asked": asked})
            out.append(item)
    return out


def load_items(dataset: str, n: int | None, profile: Profile, seed: int) -> list[WinoItem]:
    """The first ``n`` items of ``dataset``, or under ``items: study`` the study's own (:func:`selection`).

    WinoBias reads the profile's ``stereotypes`` (anti, pro) and ``splits`` (test, dev), default the
    anti-stereotype test file as Table 2 used; ``n`` counts per stereotype x split file, so adding ``pro``
    adds the pro file's first ``n`` items beside the anti ones (§3 analysed both test files).
    """
    if dataset == "generated":
        return generate.generate_items(int(n or 0), seed)
    root = data_dir(profile)
    if selection(profile) == "s3" and dataset in ("winobias", "winogrande"):
        return _section3_items(dataset, n, profile, root)
    study = selection(profile) == "study"
    if dataset == "winobias":
        stereotypes = _choice(profile.typed(Knobs).stereotypes, "stereotypes", WINOBIAS_STEREOTYPES)
        splits = _choice(profile.typed(Knobs).splits, "splits", WINOBIAS_SPLITS)
        items = loaders.load_winobias(root / "winobias", stereotypes=stereotypes, splits=splits)
        if study:
            return _study_winobias(list(items), n)
        taken: dict[tuple[str, str], int] = {}
        out: list[WinoItem] = []
        for item in items:
            key = (str(item.variant.get("stereotype")), str(item.variant.get("source_split")))
            if n is None or taken.get(key, 0) < n:
                taken[key] = taken.get(key, 0) + 1
                out.append(item)
        return out
    elif dataset == "winogender":
        items = loaders.load_winogender(root / "winogender", style="mask")  # as the study prompted it
    elif dataset == "winogrande":
        name = study_items.STUDY_WINOGRANDE_FILE if study else "dev"
        items = loaders.load_winogrande(root / "winogrande", name=name)
    else:
        raise ConfigError(f"unknown selfcontra dataset {dataset!r}; known: {', '.join(DATASETS)}")
    return list(items)[: n or None]


def _section3_items(dataset: str, n: int | None, profile: Profile, root: Path) -> list[WinoItem]:
    """§3's items (``items: s3``; study_items.py): WinoBias the lines of ``s3_model``'s released files,
    WinoGrande those of the ``s3_winogrande`` file (beyond the reference folder's train_xs)."""
    knobs = profile.typed(Knobs)
    if dataset == "winogrande":
        raw = Path(knobs.s3_winogrande).expanduser()
        return study_items.section3_winogrande(raw if raw.is_absolute() else paths.reference_dir() / raw, n)
    stereotypes = _choice(knobs.stereotypes, "stereotypes", WINOBIAS_STEREOTYPES)
    items = loaders.load_winobias(
        root / "winobias", stereotypes=stereotypes, splits=_choice(knobs.splits, "splits", WINOBIAS_SPLITS)
    )
    return study_items.section3_winobias(list(items), knobs.s3_model, n)


# A prompt asked in a study model's own wording carries ``@<models>`` in its template version.
WORDING_TAG = "@"


def wording_of(row: dict[str, Any]) -> tuple[str, ...]:
    """The study models a prompt row is worded for (its template version's tag); () for GPT-3.5's, which
    every model the study did not word otherwise is asked."""
    _, tag, models = str(row.get("template_version") or "").partition(WORDING_TAG)
    return tuple(models.split("+")) if tag else ()


def item_of(sample: Sample) -> WinoItem:
    return WinoItem.from_input(sample.input)


class SelfContraFamily:
    """Self-Contra reasoning: zero/few-shot × answer-first/reason-first prompts per item."""

    name: str = BENCHMARK
    tasks: tuple[str, ...] = DATASETS
    # Its dbt files: dbt/ beside this module (marts in dbt/marts/); its marts are one group of the Dagster UI.
    marts_folder: str = "selfcontra"
    marts_description: str = "Self-Contra marts: SCR, judged labels, detection F1, categories, correlation."
    # What parse() may answer ("error" is the pipeline's, for a failed call).
    parse_statuses: tuple[str, ...] = ("ok", "na")

    def generate(self, profile: Profile, seed: int) -> list[Sample]:
        sources = dict(profile.typed(Knobs).sources)
        # Which items (first n, or the study's own): kept on every sample, so a mart can tell whether a
        # run's numbers are on the study's items; generated items are never the study's.
        study = selection(profile)
        out: list[Sample] = []
        for dataset, n in sources.items():
            chosen = study if dataset != "generated" else "generated"
            for index, item in enumerate(load_items(dataset, n, profile, seed)):
                out.append(
                    Sample(
                        benchmark=BENCHMARK,
                        task=dataset,
                        sample_id=stable_hash(BENCHMARK, dataset, item.item_id, item.row_input()),
                        split="test",
                        n=None,
                        variant={**item.variant, "index": index, "selection": chosen},
                        input=item.row_input(),
                        gold=item.gold,
                        label=item.gold == 0,
                        seed=seed,
                        generator_version=GENERATOR_VERSION,
                        gold_pos=int(item.gold == 0),
                        n_cells=1,
                    )
                )
        return out

    def build_prompts(self, samples: list[Sample], profile: Profile) -> list[Prompt]:
        chosen = list(profile.typed(Knobs).settings)
        unknown = [s for s in chosen if s not in prompts.SETTINGS]
        if unknown:
            raise ConfigError(f"selfcontra settings {unknown} unknown; known: {', '.join(prompts.SETTINGS)}")
        max_tokens = profile.typed(Knobs).max_tokens
        wording = profile.typed(Knobs).prompts
        if wording not in prompts.WORDINGS:
            known = ", ".join(prompts.WORDINGS)
            raise ConfigError(f"selfcontra prompts {wording!r} unknown; choose from {known}")
        study = prompts.StudyDemonstrations(demonstrations_file(profile)) if wording == "study" else None
        per_model = study is not None and profile.typed(Knobs).wording == "study"
        keys = prompts.STUDY_MODELS if per_model else (prompts.DEFAULT_STUDY_MODEL,)
        out: list[Prompt] = []
        for sample in samples:
            item = item_of(sample)
            for setting in chosen:
                demos = None
                if study is not None and prompts.setting_shots(setting) == "few":
                    demos = study.prefix(item, prompts.setting_order(setting))
                # One prompt per distinct wording: GPT-3.5's keeps the template version (and so its id);
                # another model's own is tagged with the models asked it (prompts_for_model picks).
                texts: dict[str, list[str]] = {}
                for key in keys:
                    text = prompts.render(item, setting, demos, wording=wording, model=key)
                    texts.setdefault(text, []).append(key)
                for text, asked_of in texts.items():
                    version = prompts.TEMPLATE_VERSION
                    if prompts.DEFAULT_STUDY_MODEL not in asked_of:
                        version = f"{version}{WORDING_TAG}{'+'.join(asked_of)}"
                    messages = [{"role": "user", "content": text}]
                    out.append(Prompt.for_sample(sample, setting, messages, version, max_tokens))
        return out

    def prompts_for_model(
        self, profile: Profile, entry: dict[str, Any], rows: list[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        """The prompt rows model ``entry`` (its models.yaml entry) is asked: of each sample and setting,
        the row in the wording the study asked this model (``wording: study``), else GPT-3.5's (the untagged
        row).  Rows of one wording only (every other profile) are all kept."""
        key = prompts.study_model_key(entry)
        tagged: dict[tuple[str, str], bool] = {}
        for row in rows:
            if key in wording_of(row):
                tagged[(row["sample_id"], row["setting"])] = True
        return [
            row
            for row in rows
            if key in wording_of(row)
            or (
                WORDING_TAG not in str(row.get("template_version") or "")
                and not tagged.get((row["sample_id"], row["setting"]))
            )
        ]

    def render_gold(self, sample: Sample, setting: str) -> str:
        """A perfect response in ``setting``: what a scripted oracle model answers in tests."""
        item = item_of(sample)
        answer = f"Answer: {item.candidates[item.gold]}"
        evidence = item.evidence or item.sentence
        reasoning = f"Reasoning: The sentence says {evidence}, which fits {item.candidates[item.gold]}."
        return f"{answer}\n{reasoning}" if order_of(setting) == "answer" else f"{reasoning}\n{answer}"

    def parse(self, sample: Sample, setting: str, text: str) -> Parsed:
        """The candidate the answer names; an answer naming neither is ``na`` (the study's unparsed)."""
        item = item_of(sample)
        answer = parsing.read_answer(text, item, order_of(setting))
        detail = {
            "answer": "unparsed" if answer.index is None else item.candidates[answer.index],
            "answer_text": answer.answer_text[:500],
            "reasoning": answer.reasoning[:4000],
            "order": order_of(setting),
        }
        if answer.status != "ok" or answer.index is None:
            return Parsed(parse_status="na", n_cells=1, correct=False, detail=detail)
        first = answer.index == 0
        return Parsed(
            parse_status="ok",
            parsed=answer.index,
            tp=int(first and item.gold == 0),
            fp=int(first and item.gold != 0),
            fn=int(not first and item.gold == 0),
            pred_pos=int(first),
            n_cells=1,
            correct=answer.index == item.gold,
            detail=detail,
        )
