"""``FlenqaFamily``: FLenQA (Levy et al., "Same Task, More Tokens") behind the BenchmarkFamily contract."""

from __future__ import annotations

import functools
import math

from relreason_dagster.benchmarks.base import Parsed, Profile, Prompt, Sample
from relreason_dagster.benchmarks.flenqa import parsing, prompts, reading
from relreason_dagster.benchmarks.flenqa.generate import (
    BENCHMARK,
    generate_samples,
    sample_text,
)
from relreason_dagster.benchmarks.flenqa.instances import TASKS, base_instances
from relreason_dagster.benchmarks.flenqa.padding import TOLERANCE
from relreason_dagster.benchmarks.flenqa.profile_schema import DEFAULT_MAX_TOKENS, Knobs
from relreason_dagster.common.tokenizer import count_tokens
from relreason_dagster.errors import ConfigError


@functools.lru_cache(maxsize=4096)
def _skeleton_tokens(
    task: str, setting: str, question: str, rule: str, tokenizer: str, layout: str = prompts.RELREASON_LAYOUT
) -> int:
    """Tokens of a prompt with an empty text: what the instructions add to the text's length."""
    message = prompts.render(task, setting, "", question, rule, layout)
    return count_tokens([{"role": "user", "content": message}], tokenizer)


def _rule(sample: Sample, layout: str) -> str:
    """The rule as the layout puts it: the study's layout prints a released row's rule as the notebook
    prints the released value (``study_rule``); otherwise (and for generated items) our one string."""
    rule = str(sample.input.get("rule", ""))
    if layout == prompts.STUDY_LAYOUT:
        return str(sample.input.get("study_rule", rule))
    return rule


# Instances whose questions (and rules) bound a template's tokens at the door, the tokens a longer
# question than theirs may add (a name or a relation is a few tokens), and the tokens a chat template
# may add around the message (role markers; llm/context_window.py bounds them the same way).
_DOOR_INSTANCES = 8
_QUESTION_SLACK = 16
_CHAT_TEMPLATE = 128


def _check_settings(settings: list[str]) -> None:
    unknown = [s for s in settings if s not in prompts.SETTINGS]
    if unknown:
        raise ConfigError(f"flenqa settings {unknown} unknown; known: {', '.join(prompts.SETTINGS)}")


def prompt_budgets(profile: Profile) -> dict[int, int]:
    """Per length of the profile, the most tokens a prompt of that length needs with its reply: the
    target (length + the template's tokens, with the question and rule), the 5% a generated text may run
    over it, and the setting's ``max_tokens``; the largest over the profile's tasks and settings.

    Why from the profile: the launch checks each model's context window before anything is generated
    or written (llm/launch_checks.check_window), and a 128k-token prompt costs seconds to build.  The
    template is bounded by its UTF-8 bytes (a token is at least one byte), so the door needs no
    tokenizer (loading one costs seconds) and never lets a length through whose prompts overflow; the
    bound is a few hundred tokens above the count, and the model step counts each prompt exactly.
    """
    knobs = profile.typed(Knobs)
    _check_settings(list(knobs.settings))
    max_tokens = {**DEFAULT_MAX_TOKENS, **dict(knobs.max_tokens)}
    template = dict.fromkeys(knobs.settings, 0)  # per setting: the most tokens its template takes
    for task in knobs.tasks:
        for item in base_instances(task, _DOOR_INSTANCES, 0):
            for setting in knobs.settings:
                message = prompts.render(task, setting, "", item.question, item.rule, knobs.layout)
                template[setting] = max(template[setting], len(message.encode("utf-8")) + _CHAT_TEMPLATE)
    return {
        int(length): max(
            math.ceil((length + template[s] + _QUESTION_SLACK) * (1 + TOLERANCE)) + int(max_tokens.get(s, 0))
            for s in knobs.settings
        )
        for length in sorted(set(knobs.lengths))
    }


class FlenqaFamily:
    """MonoRel, People In Rooms and simplified Ruletaker, padded to 250-3000 tokens."""

    name: str = BENCHMARK
    tasks: tuple[str, ...] = TASKS
    settings: tuple[str, ...] = prompts.SETTINGS
    # Its dbt files: dbt/ beside this module (marts in dbt/marts/); its marts are one group of the Dagster UI.
    marts_folder: str = "flenqa"
    marts_description: str = (
        "FLenQA marts: accuracy by input length, padding and position, label bias, CoT and next word."
    )
    # What parse() may answer ("error" is the pipeline's, for a failed call).
    parse_statuses: tuple[str, ...] = ("ok", "na", "refused")

    def generate(self, profile: Profile, seed: int) -> list[Sample]:
        return generate_samples(profile, seed)

    def dry_run_group(self, sample: Sample) -> str:
        """The dry run's breakdown: a 128k-token point costs what 500 points at 250 tokens do."""
        length = int(sample.variant.get("length") or 0)
        return f"length {length}" if length else "minimal"

    def build_prompts(self, samples: list[Sample], profile: Profile) -> list[Prompt]:
        """Every setting of the profile for every sample; next-word prompts only for padded texts."""
        settings = list(profile.typed(Knobs).settings)
        _check_settings(settings)
        max_tokens = {**DEFAULT_MAX_TOKENS, **dict(profile.typed(Knobs).max_tokens)}
        layout = profile.typed(Knobs).layout
        version = prompts.template_version(layout)
        out: list[Prompt] = []
        for sample in samples:
            text = sample_text(sample)
            question, rule = sample.input["question"], _rule(sample, layout)
            for setting in settings:
                if setting == prompts.NEXT_WORD and sample.split == "minimal":
                    continue
                body = prompts.split_last_word(text)[0] if setting == prompts.NEXT_WORD else text
                message = prompts.render(sample.task, setting, body, question, rule, layout)
                messages = [{"role": "user", "content": message}]
                length = int(sample.variant.get("length") or 0)
                target = tolerance = None
                # A released row's length is the study's target in the study's tokenizer, not ours.
                if length and sample.variant.get("source") != "released":
                    tokenizer = sample.variant.get("tokenizer")
                    skeleton = _skeleton_tokens(sample.task, setting, question, rule, tokenizer, layout)
                    target = length + skeleton
                    tolerance = round(target * TOLERANCE)  # 5% of the prompt's own target
                out.append(
                    Prompt.for_sample(
                        sample,
                        setting,
                        messages,
                        version,
                        int(max_tokens[setting]),
                        target_tokens=target,
                        target_tolerance=tolerance,
                        target_exempt=bool(sample.input.get("key_exceeds")),
                    )
                )
        return out

    def prompt_budgets(self, profile: Profile) -> dict[int, int]:
        """Per length, the most tokens (prompt + ``max_tokens``) a prompt needs: :func:`prompt_budgets`."""
        return prompt_budgets(profile)

    def render_gold(self, sample: Sample, setting: str) -> str:
        """A perfect response in ``setting``: what a scripted oracle model answers in tests."""
        if setting == prompts.NEXT_WORD:
            return str(sample.input["next_word"])
        verdict = "True" if sample.label else "False"
        if setting == prompts.COT:
            first, second = sample.input["key_sentences"]
            return f"Step 1: {first}\nStep 2: {second}\nSo the answer is {verdict}."
        return verdict

    def parse(self, sample: Sample, setting: str, text: str) -> Parsed:
        """The answer (or the next word) of one response; never raises on model text."""
        if setting == prompts.NEXT_WORD:
            word = parsing.first_word(text)
            gold = parsing.normalize(str(sample.input.get("next_word", "")))
            if word is None:
                return Parsed(parse_status="na", correct=False, detail={"gold_word": gold})
            return Parsed(parse_status="ok", parsed=word, correct=word == gold, detail={"gold_word": gold})
        if setting not in prompts.REASONING_SETTINGS:
            raise ConfigError(f"unknown flenqa setting {setting!r}; known: {', '.join(prompts.SETTINGS)}")
        rules = reading.of_sample(sample.variant)  # the profile's reading knob, carried by the sample
        value = reading.answer(text, rules)
        detail = {"answer": {True: "true", False: "false", None: "refused"}[value], "reading": rules}
        if setting == prompts.COT:
            covered = reading.coverage(text, list(sample.input["key_sentences"]), rules)
            detail |= {"answer_first": reading.answer_first(text, rules), "keys_covered": covered}
        if value is None:
            return Parsed(parse_status="refused", n_cells=1, correct=False, detail=detail)
        return Parsed(
            parse_status="ok",
            parsed=value,
            tp=int(value and sample.label),
            fp=int(value and not sample.label),
            fn=int(not value and bool(sample.label)),
            pred_pos=int(value),
            n_cells=1,
            correct=value == sample.label,
            detail=detail,
        )
