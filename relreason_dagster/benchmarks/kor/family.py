"""``KorFamily``: KOR-Bench (knowledge-orthogonal, rule-driven reasoning) behind the BenchmarkFamily contract.

Samples: one per question (task = category, split = source) and one per mixed record
(task = ``mixed``).  Prompts: the official zero-shot and three-shot structures for single questions,
the mixed template for mixed records.  Parsing: the paper's judgement decides ``correct`` (the official
scorer with its symbolic step working, as Table 2 and Table 3 were scored); the robust verdict (and
its reason code, which also decides ``na``), the released files' ``official`` verdict, the answer
format and, for counterfactual, whether the answer is the real-life one go into ``detail`` so the
marts can report them side by side.

Profile keys (section ``kor``): ``source`` (``official`` | ``generated`` | ``auto``: official when the
data folder exists, else generated), ``data_dir`` (relative to ``RELREASON_REFERENCE_DIR`` unless
absolute), ``categories``, ``rules`` ({category: [rule ids]}; a missing category means all of its
rules), ``generated_rules`` (the same for generated items), ``questions_per_rule``, ``level``
(generated difficulty), ``settings`` (zero_shot/three_shot/trick, and §6.4's rule-withheld
zero_shot_only_questions/three_shot_only_questions), ``settings_by_kind`` ({chat|base:
[settings]}: which of them a model of that ``kind`` in models.yaml is asked; the paper asked chat
models zero-shot and base models three-shot), ``mixed`` ({setting: records}),
``self_correction_rounds`` (0-5), ``stepwise`` (§6.1: the official cipher sub-steps as their own
questions, official source only), ``context_tokens`` and ``max_tokens``.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import Parsed, Profile, Prompt, Sample, stable_hash
from relreason_dagster.benchmarks.kor import mixed, prompts
from relreason_dagster.benchmarks.kor.analysis import cipher_error, operation_direction, response_style
from relreason_dagster.benchmarks.kor.data import CATEGORIES, KorItem
from relreason_dagster.benchmarks.kor.formats import answer_format
from relreason_dagster.benchmarks.kor.items import (
    PoolItem,
    check_categories,
    generated_items,
    official_items,
)
from relreason_dagster.benchmarks.kor.parsing import extract_final
from relreason_dagster.benchmarks.kor.profile_schema import DEFAULT_MAX_TOKENS, Knobs
from relreason_dagster.benchmarks.kor.scoring import (
    require_parser,
    score_official,
    score_paper,
    score_robust,
)
from relreason_dagster.benchmarks.kor.stepwise import STEPWISE_TASK, step_items
from relreason_dagster.benchmarks.kor.tokens import count_cl100k
from relreason_dagster.common.model_kinds import MODEL_KINDS, PROMPTED_AS
from relreason_dagster.errors import ConfigError

BENCHMARK = "kor"
MIXED_TASK = "mixed"
GENERATOR_VERSION = "kor-items-v1"
SOURCES = ("official", "generated", "auto")
MAX_SELF_CORRECTION_ROUNDS = 5  # §6.2: "a maximum of 5 rounds"
# Output tokens are counted on at most this much of a response (hostile text is capped, not encoded whole).
MAX_COUNTED_CHARS = 2_097_152


def data_dir(profile: Profile) -> Path:
    raw = Path(profile.typed(Knobs).data_dir).expanduser()
    return raw if raw.is_absolute() else paths.reference_dir() / raw


def resolve_source(profile: Profile) -> str:
    """``official`` or ``generated`` for this run (``auto`` looks for the data folder)."""
    source = profile.typed(Knobs).source
    if source not in SOURCES:
        raise ConfigError(f"kor source {source!r} unknown; use one of {', '.join(SOURCES)}")
    if source == "auto":
        return "official" if data_dir(profile).is_dir() else "generated"
    return source


def item_of(sample: Sample) -> KorItem:
    """The KorItem a single-question sample was built from."""
    return KorItem(**sample.input["item"])


def pool(profile: Profile, seed: int) -> tuple[list[PoolItem], list[str]]:
    """The run's questions and the categories skipped (generated items needing absent rule texts)."""
    categories = check_categories(list(profile.typed(Knobs).categories))
    per_rule = profile.typed(Knobs).questions_per_rule
    source = resolve_source(profile)
    if source == "official":
        return official_items(data_dir(profile), categories, dict(profile.typed(Knobs).rules), per_rule), []
    folder = data_dir(profile)
    return generated_items(
        folder if folder.is_dir() else None,
        categories,
        dict(profile.typed(Knobs).generated_rules),
        per_rule,
        seed,
        profile.typed(Knobs).level,
    )


def settings_by_kind(profile: Profile) -> dict[str, list[str]]:
    """The profile's ``settings_by_kind``, checked: kinds of models.yaml, settings of the profile."""
    raw = dict(profile.typed(Knobs).settings_by_kind)
    chosen = list(profile.typed(Knobs).settings)
    for kind, wanted in raw.items():
        if kind not in MODEL_KINDS:
            raise ConfigError(f"kor settings_by_kind: kind {kind!r} unknown; use {' or '.join(MODEL_KINDS)}")
        extra = [s for s in wanted if s not in chosen]
        if extra:
            raise ConfigError(
                f"kor settings_by_kind.{kind}: {extra} not in the profile's settings {chosen}; add them there"
            )
    return raw


def prompt_text(sample: Sample, setting: str) -> str | None:
    """The user message of ``sample`` in ``setting`` (None: three-shot without three examples, or the
    trick setting for a question that is not a puzzle with a trick).  The only-questions settings
    (§6.4, App. K) are the zero-/three-shot prompts without the rule."""
    if sample.task == MIXED_TASK:
        return prompts.mixed(
            [(r["title"], r["text"]) for r in sample.input["rules"]],
            [q["question"] for q in sample.input["questions"]],
        )
    item = item_of(sample)
    if setting == prompts.TRICK:  # App. F.2: puzzle questions that come with a trick only
        hint = (item.trick or "").strip() if item.category == "puzzle" else ""
        return prompts.trick(item.rule, item.question, item.trick) if hint else None
    if setting in (prompts.THREE_SHOT, prompts.THREE_SHOT_ONLY_QUESTIONS):
        shots = [tuple(s) for s in sample.input.get("shots", [])]
        if len(shots) != 3:
            return None
        if setting == prompts.THREE_SHOT_ONLY_QUESTIONS:  # §6.4 / App. K: the rule withheld
            return prompts.only_questions(item.category, shots, item.question)
        return prompts.three_shot(item.category, item.rule, shots, item.question)
    if setting == prompts.ZERO_SHOT_ONLY_QUESTIONS:
        return prompts.only_questions(item.category, (), item.question)
    return prompts.zero_shot(item.category, item.rule, item.question)


# Puzzle rules whose gold lists every acceptable answer, and how: the official judgement (the paper's)
# accepts any one of them and rejects the list itself.
_ALTERNATIVES = {"2": ",", "4": " ", "10": "\n"}


def perfect_answer(category: str, rule_id: str, gold: str) -> str:
    """The gold as a model that solved the question writes it: the gold itself, or for a puzzle gold
    listing alternatives (rule 2 comma-separated, rule 4 words, rule 10 lines) the first of them."""
    sep = _ALTERNATIVES.get(rule_id) if category == "puzzle" else None
    if sep is None or not (gold.startswith("[[") and gold.endswith("]]")):
        return gold
    first = next((part.strip() for part in gold[2:-2].split(sep) if part.strip()), "")
    return f"[[{first}]]"


def _token_counts(sample: Sample, setting: str, response: str) -> dict[str, int | None]:
    """Input (the prompt's user message) and output tokens in ``cl100k_base``, as Table 7 counts them."""
    asked = prompt_text(sample, setting) if setting in prompts.SETTINGS or sample.task == MIXED_TASK else None
    return {
        "input_tokens_cl100k": None if asked is None else count_cl100k(asked),
        "output_tokens_cl100k": count_cl100k(response[:MAX_COUNTED_CHARS]),
    }


def _max_tokens(profile: Profile, setting: str) -> int:
    value = profile.typed(Knobs).max_tokens
    return int(value.get(setting, DEFAULT_MAX_TOKENS) if isinstance(value, dict) else value)


class KorFamily:
    """KOR-Bench's five categories, official or generated, plus the mixed settings."""

    name: str = BENCHMARK
    tasks: tuple[str, ...] = (*CATEGORIES, MIXED_TASK, STEPWISE_TASK)
    # Its dbt files: dbt/ beside this module (marts in dbt/marts/); its marts are one group of the Dagster UI.
    marts_folder: str = "kor"
    marts_description: str = (
        "KOR-Bench marts: accuracy by category and rule, self-correction, mixed, counterfactual, knowledge "
        "impact (rule withheld), §5's response styles, Operation directions, Cipher errors and real-life "
        "ratio against accuracy, Table 1 dataset statistics and Table 7 token statistics."
    )
    # What parse() may answer ("error" is the pipeline's, for a failed call).
    parse_statuses: tuple[str, ...] = ("ok", "na")

    def generate(self, profile: Profile, seed: int) -> list[Sample]:
        rounds = profile.typed(Knobs).self_correction_rounds
        if not isinstance(rounds, int) or not 0 <= rounds <= MAX_SELF_CORRECTION_ROUNDS:
            raise ConfigError(
                f"kor self_correction_rounds must be 0..{MAX_SELF_CORRECTION_ROUNDS}, got {rounds!r}"
            )
        items, _ = pool(profile, seed)
        out = [self._single(p, seed) for p in items]
        source = resolve_source(profile)
        if profile.typed(Knobs).stepwise and source == "official":
            chosen = dict(profile.typed(Knobs).rules).get("cipher")
            steps = step_items(
                data_dir(profile),
                [str(r) for r in chosen] if chosen else None,
                profile.typed(Knobs).questions_per_rule,
            )
            out.extend(self._step(item, facts, seed) for item, facts in steps)
        for setting, n in dict(profile.typed(Knobs).mixed).items():
            if source == "official":
                records = mixed.official_records(data_dir(profile), setting, int(n))
            else:
                records = mixed.generated_records(items, setting, int(n), seed)
            out.extend(self._mixed(r, source, seed) for r in records)
        return out

    def _single(self, p: PoolItem, seed: int) -> Sample:
        item = p.item
        fmt = answer_format(item.category, item.answer)
        data = {"item": asdict(item), "shots": [list(s) for s in p.shots]}
        # §5: forward computation or an unknown to find (read off the question, official or generated).
        direction = {"direction": operation_direction(item.question)} if item.category == "operation" else {}
        return Sample(
            benchmark=BENCHMARK,
            task=item.category,
            sample_id=stable_hash(BENCHMARK, p.source, item.category, item.idx, item.question, item.answer),
            split=p.source,
            n=None,
            variant={
                "source": p.source,
                "rule_id": item.rule_id,
                "idx": item.idx,
                "answer_format": fmt,
                "subcategory": item.subcategory,
                **direction,
                **p.params,
            },
            input=data,
            gold=item.answer,
            label=None,
            seed=seed,
            generator_version=GENERATOR_VERSION,
        )

    def _step(self, item: KorItem, facts: dict[str, Any], seed: int) -> Sample:
        """One sub-step of §6.1's stepwise cipher prompting (task ``cipher_step``)."""
        return Sample(
            benchmark=BENCHMARK,
            task=STEPWISE_TASK,
            sample_id=stable_hash(BENCHMARK, "official", STEPWISE_TASK, item.idx, item.question, item.answer),
            split="official",
            n=None,
            variant={
                "source": "official",
                "rule_id": item.rule_id,
                "idx": item.idx,
                "answer_format": "TR",
                "subcategory": item.subcategory,
                **facts,
            },
            input={"item": asdict(item), "shots": []},
            gold=item.answer,
            label=None,
            seed=seed,
            generator_version=GENERATOR_VERSION,
        )

    def _mixed(self, record: mixed.MixedRecord, source: str, seed: int) -> Sample:
        data = record.row_input()
        return Sample(
            benchmark=BENCHMARK,
            task=MIXED_TASK,
            sample_id=stable_hash(BENCHMARK, source, record.setting, record.record_id, data),
            split=source,
            n=len(record.questions),
            variant={
                "source": source,
                "mixed_setting": record.setting,
                "record_id": record.record_id,
                "n_rules": len(record.rules),
                "n_questions": len(record.questions),
                "categories": sorted({q["category"] for q in record.questions}),
            },
            input=data,
            gold=[q["answer"] for q in record.questions],
            label=None,
            seed=seed,
            generator_version=GENERATOR_VERSION,
        )

    def asks(self, profile: Profile, kind: str, setting: str) -> bool:
        """Whether a model of ``kind`` (models.yaml ``kind``: chat or base) is asked ``setting``'s prompts.

        ``settings_by_kind`` restricts the single-question settings per kind (the paper: chat models
        zero-shot, base models three-shot); a kind it does not name, and the mixed settings, are
        asked everything built.
        """
        by_kind = settings_by_kind(profile)
        if kind not in by_kind:  # a reasoning model is asked what chat models are, unless named
            kind = PROMPTED_AS.get(kind, kind)
        if setting not in prompts.SETTINGS or kind not in by_kind:
            return True
        return setting in by_kind[kind]

    def build_prompts(self, samples: list[Sample], profile: Profile) -> list[Prompt]:
        """Each question in every chosen setting; each mixed record in its own setting."""
        chosen = list(profile.typed(Knobs).settings)
        unknown = [s for s in chosen if s not in prompts.SETTINGS]
        if unknown:
            raise ConfigError(f"kor settings {unknown} unknown; known: {', '.join(prompts.SETTINGS)}")
        settings_by_kind(profile)  # a typo there is an error now, not a model silently asked nothing
        out: list[Prompt] = []
        for sample in samples:
            wanted = [sample.variant["mixed_setting"]] if sample.task == MIXED_TASK else chosen
            if sample.task == STEPWISE_TASK:  # §6.1 asks each sub-step with the zero-shot prompt only
                wanted = [s for s in chosen if s == prompts.ZERO_SHOT]
            for setting in wanted:
                text = prompt_text(sample, setting)
                if text is not None:  # no three-shot prompt without three examples, no trick without one
                    out.append(self._prompt(sample, setting, text, profile))
        return out

    def _prompt(self, sample: Sample, setting: str, text: str, profile: Profile) -> Prompt:
        messages = [{"role": "user", "content": text}]
        return Prompt.for_sample(
            sample, setting, messages, prompts.TEMPLATE_VERSION, _max_tokens(profile, setting)
        )

    def render_gold(self, sample: Sample, setting: str) -> str:
        """A perfect response: what a scripted oracle model answers in tests."""
        if sample.task == MIXED_TASK:
            # Each value keeps its [[...]]: each question asks for it, and the official scorer needs it.
            answers = {
                f"question{k}": perfect_answer(q["category"], q["rule_id"], q["answer"])
                for k, q in enumerate(sample.input["questions"], 1)
            }
            return "My answers:\n" + json.dumps(answers)
        item = item_of(sample)
        answer = perfect_answer(item.category, item.rule_id, item.answer)
        return f"Applying the rule step by step, the answer is {answer}"

    def parse(self, sample: Sample, setting: str, text: str) -> Parsed:
        """Score one response; never raises on model text (a broken LaTeX parser is a ConfigError)."""
        require_parser()  # the paper's judgement without its parser is an error, never a quiet fallback
        if sample.task == MIXED_TASK:
            return self._parse_mixed(sample, text)
        item = item_of(sample)
        robust, reason = score_robust(text, item)
        detail: dict[str, Any] = {
            "reason": reason,
            "robust": robust,
            "official": score_official(text, item),
            "answer_format": sample.variant.get("answer_format"),
            "rule_id": item.rule_id,
        }
        if item.real_life_answer:
            detail["real_life"] = score_paper(text, item, gold=item.real_life_answer)
            detail["real_life_robust"] = score_robust(text, item, gold=item.real_life_answer)[0]
        detail |= _token_counts(sample, setting, text)
        answer = extract_final(text)
        correct = score_paper(text, item)
        # §5's readings of the response: visible reasoning or not, and a wrong cipher answer's error type.
        detail["style"] = response_style(text, answer, item.answer)
        detail["cipher_error"] = cipher_error(item, text, answer, correct)
        status = "na" if reason in ("no_answer", "error", "too_long") else "ok"
        return Parsed(parse_status=status, parsed=answer, n_cells=1, correct=correct, detail=detail)

    def _parse_mixed(self, sample: Sample, text: str) -> Parsed:
        questions = sample.input["questions"]
        answers, robust, reasons = mixed.score(questions, text)
        _, paper = mixed.score_paper(questions, text)
        detail = {
            "mixed_setting": sample.variant.get("mixed_setting"),
            "n_questions": len(questions),
            "n_passed": sum(paper),
            "robust": bool(robust) and all(robust),
            "robust_n_passed": sum(robust),
            "reasons": reasons,
        } | _token_counts(sample, str(sample.variant.get("mixed_setting")), text)
        status = "na" if answers is None else "ok"
        return Parsed(
            parse_status=status,
            parsed=answers,
            n_cells=1,
            correct=bool(paper) and all(paper),
            detail=detail,
        )
