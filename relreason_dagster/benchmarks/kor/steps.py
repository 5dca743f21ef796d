"""KOR-Bench self-correction (§6.2) as a follow-up step: plain functions, no Dagster, no model calls.
(Beside it, two steps that ask no model: each model's base_of pair, and the study's released responses.)

Every zero-shot single question a model got wrong is sent back with the official follow-up
("Your answer is incorrect, ...") for up to ``self_correction_rounds`` rounds, stopping at the first
correct answer.  Each round is a stored prompt (kind ``self_correction``: model-specific because it
holds the model's own earlier answers, never parsed as a test answer) and a ``raw.kor_rounds`` row
linked to the round before.  When the conversation would exceed ``context_tokens``, only the
original question, the last answer and the follow-up are re-sent: the study's "extraction of the
previous round's response for re-input".

The rounds are a chain: :meth:`SelfCorrection.prompts` walks it as far as the replies so far reach
and returns the prompts up to the first unanswered one, so the generic driver asks round 1, then
round 2 for those still wrong, and so on, until nothing new is asked.

"Still wrong" is the paper's judgement (the family's ``correct``: the official scorer with its symbolic
step working), as in the study; each round also records the robust verdict (``robust_correct``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from relreason_dagster.benchmarks.base import (
    ANSWERS_JOIN,
    MODEL_ENTRY,
    Profile,
    Reply,
    Sample,
    Step,
    StepPrompt,
    StepRows,
    stable_hash,
)
from relreason_dagster.benchmarks.kor import prompts as kor_prompts
from relreason_dagster.benchmarks.kor.family import (
    BENCHMARK,
    MAX_SELF_CORRECTION_ROUNDS,
    MIXED_TASK,
    KorFamily,
)
from relreason_dagster.benchmarks.kor.family import data_dir as kor_data_dir
from relreason_dagster.benchmarks.kor.profile_schema import Knobs
from relreason_dagster.benchmarks.kor.released import folder_of, read_released
from relreason_dagster.benchmarks.kor.stepwise import STEPWISE_TASK
from relreason_dagster.common.tokenizer import count_tokens
from relreason_dagster.errors import ConfigError

SELF_CORRECTION_KIND = "self_correction"
# Hashed into every round's prompt id (the benchmark name these prompts had before the kind column),
# so the ids, and with them the stored answers, stay what they were.
ROUND_ID_TAG = "kor_selfcorrect"

# The zero-shot single questions of one model (not mixed records, not §6.1's cipher sub-steps), with its
# answer and verdict (round 0 of every chain).
BASE_SQL = f"""
SELECT a.prompt_id, a.parse_status, a.correct, a.detail, r.content, p.messages, p.max_tokens,
       s.benchmark, s.task, s.sample_id, s.split, s.n, s.variant, s.input, s.gold, s.label,
       s.seed, s.generator_version
{ANSWERS_JOIN}
WHERE a.model = ? AND a.benchmark = ? AND a.setting = ? AND s.task NOT IN (?, ?)
ORDER BY a.prompt_id
"""


def rounds_of(profile: Profile) -> int:
    """The profile's ``self_correction_rounds`` (0..5); anything else is one ConfigError line."""
    rounds = profile.typed(Knobs).self_correction_rounds
    if not 0 <= rounds <= MAX_SELF_CORRECTION_ROUNDS:
        raise ConfigError(f"kor self_correction_rounds must be 0..{MAX_SELF_CORRECTION_ROUNDS}, got {rounds}")
    return rounds


def next_messages(
    messages: list[dict[str, str]], answer: str, limit: int
) -> tuple[list[dict[str, str]], str]:
    """The conversation of the next round, and whether it is the full history or the last answer only."""
    full = [
        *messages,
        {"role": "assistant", "content": answer},
        {"role": "user", "content": kor_prompts.FOLLOW_UP},
    ]
    if count_tokens(full) <= limit:
        return full, "full"
    return [messages[0], full[-2], full[-1]], "last"


def _round_row(model: str, sample: Sample, k: int, prompt_id: str, parent: str | None) -> dict[str, Any]:
    return {
        "model": model,
        "sample_id": sample.sample_id,
        "round": k,
        "prompt_id": prompt_id,
        "parent_prompt_id": parent,
        "task": sample.task,
        "split": sample.split,
        "rule_id": sample.variant.get("rule_id"),
    }


@dataclass(frozen=True)
class _Round:
    prompt: StepPrompt
    row: dict[str, Any]  # None-free once answered; ``parse_status`` None while unanswered


class SelfCorrection(Step):
    """The self-correction rounds of one model's wrong zero-shot answers (table ``raw.kor_rounds``)."""

    name = "kor_self_correction"
    description = (
        "KOR-Bench self-correction: wrong zero-shot answers re-asked with the official follow-up, "
        "up to 5 rounds (raw.kor_rounds)."
    )
    table = "kor_rounds"
    stage = "per_model"
    kind = SELF_CORRECTION_KIND
    legacy_benchmark = ROUND_ID_TAG  # its prompts' benchmark name before raw.prompts had a kind

    def reads(self, model: str | None, profile: Profile) -> dict[str, tuple[str, list[Any]]]:
        return {"base": (BASE_SQL, [model, BENCHMARK, kor_prompts.ZERO_SHOT, MIXED_TASK, STEPWISE_TASK])}

    def _chain(
        self,
        base: dict[str, Any],
        sample: Sample,
        model: str,
        rounds: int,
        limit: int,
        replies: dict[str, Reply],
    ) -> Iterator[_Round]:
        """Rounds 1.. of one wrong answer, as far as ``replies`` reach (the last one maybe unanswered)."""
        messages, answer, parent = json.loads(base["messages"]), base["content"], base["prompt_id"]
        family = KorFamily()
        for k in range(1, rounds + 1):
            asked, history = next_messages(messages, answer, limit)
            pid = stable_hash(ROUND_ID_TAG, model, sample.sample_id, k, asked)
            prompt = StepPrompt(
                prompt_id=pid,
                sample_id=sample.sample_id,
                task=sample.task,
                split=sample.split,
                setting=f"round{k}",
                messages=asked,
                template_version=kor_prompts.TEMPLATE_VERSION,
                max_tokens=base["max_tokens"],
            )
            row = _round_row(model, sample, k, pid, parent) | {"history": history}
            reply = replies.get(pid)
            if reply is None:
                yield _Round(prompt, row | {"parse_status": None})
                return
            if not reply.ok:
                yield _Round(
                    prompt, row | {"parse_status": "error", "correct": None, "reason": str(reply.error)[:200]}
                )
                return
            parsed = family.parse(sample, kor_prompts.ZERO_SHOT, str(reply.content))
            yield _Round(
                prompt,
                row
                | {
                    "parse_status": parsed.parse_status,
                    "correct": parsed.correct,
                    "reason": parsed.detail.get("reason"),
                    "robust_correct": parsed.detail.get("robust"),
                },
            )
            if parsed.correct:
                return
            messages, answer, parent = asked, str(reply.content), pid

    def _walk(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> Iterator[tuple[dict[str, Any], list[_Round]]]:
        rounds = rounds_of(profile)
        limit = profile.typed(Knobs).context_tokens
        for base in stored["base"]:
            sample = Sample.from_row(base)
            wrong = base["parse_status"] != "error" and not base["correct"] and base["content"] is not None
            chain = list(self._chain(base, sample, model, rounds, limit, replies)) if rounds and wrong else []
            yield base, chain

    def prompts(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> list[StepPrompt]:
        return [r.prompt for _, chain in self._walk(stored, profile, model, replies) for r in chain]

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        rows: list[dict[str, Any]] = []
        wrong = 0
        for base, chain in self._walk(stored, profile, model, replies):
            sample = Sample.from_row(base)
            detail = json.loads(base["detail"]) if isinstance(base["detail"], str) else (base["detail"] or {})
            rows.append(
                _round_row(model, sample, 0, base["prompt_id"], None)
                | {
                    "parse_status": base["parse_status"],
                    "correct": base["correct"],
                    "reason": detail.get("reason"),
                    "robust_correct": detail.get("robust"),
                    "history": "none",
                }
            )
            wrong += bool(chain)
            for r in chain:
                if r.row["parse_status"] is None:  # asked but never answered: stored as the error it is
                    rows.append(
                        r.row | {"parse_status": "error", "correct": None, "reason": "no response stored"}
                    )
                else:
                    rows.append(r.row)
        corrected = Counter(r["round"] for r in rows if r["round"] > 0 and r["correct"])
        return StepRows(
            rows=rows,
            replace_where="model = ?",
            replace_params=[model],
            summary={
                "questions": len(stored["base"]),
                "wrong_at_round_0": wrong,
                "rounds": rounds_of(profile),
                "corrected_per_round": {str(k): v for k, v in sorted(corrected.items())},
            },
        )


def base_of(entry: dict[str, Any] | None) -> str | None:
    """The ``base_of`` of a model entry (the chat model this base model is the base of), or None."""
    value = (entry or {}).get("base_of")
    return str(value) if value else None


class ModelPairs(Step):
    """Which chat model each base model is the base of (models.yaml ``base_of``; KOR-Bench §5)."""

    name = "kor_model_pairs"
    description = (
        "The model's models.yaml base_of (the chat model it is the base of), so marts.kor_base_vs_chat "
        "can pair base and chat models as KOR-Bench §5 does (raw.kor_model_pairs; asks no model)."
    )
    table = "kor_model_pairs"
    stage = "per_model"
    reads_model_entry = True  # base_of from the entry the launch resolved: no file read here

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        chat = base_of((stored.get(MODEL_ENTRY) or [None])[0])
        return StepRows(
            rows=[{"model": model, "base_of": chat}],
            replace_where="model = ?",
            replace_params=[model],
            summary={"base_of": chat or "-"},
        )


class ReleasedResponses(Step):
    """The study's released evaluation files as rows (``raw.kor_released``): its own models in §5's marts."""

    name = "kor_released"
    description = (
        "KOR-Bench's released evaluation files (the profile's released_dir under RELREASON_REFERENCE_DIR): "
        "the study's models judged as Table 2, with §5's readings, beside a run's models (raw.kor_released; "
        "asks no model; no rows without the files)."
    )
    table = "kor_released"
    stage = "inputs"

    def rows(
        self, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str, replies: dict[str, Reply]
    ) -> StepRows:
        found = read_released(folder_of(profile.typed(Knobs).released_dir), kor_data_dir(profile))
        return StepRows(
            rows=found.rows,
            replace_where="true",  # the folder is read whole: a file gone is rows gone
            replace_params=[],
            summary={
                "files": len(found.files),
                "summary": found.summary_line(),
                "skipped": [f"{name}: {why}" for name, why in found.skipped],
            },
        )


STEPS = (SelfCorrection(), ModelPairs(), ReleasedResponses())
