"""Point-of-view (POV) reasoning and its diagnostic (the study's Appendix C, Tables 11-14).

Why: the study perturbs a model's reasoning by making it consider the pronoun from both candidates' points
of view, in two orders (the right candidate first, or the wrong one), and reads (Table 13 → Table 12) which
candidate it settles on afterwards, and (Table 11 → Table 14) how consistent it then scores a given
reasoning, 1-10.  Both are three-turn conversations; each turn's prompt holds the earlier turns and the
model's replies, so the step walks the chain as far as the replies reach (as KOR's self-correction does).

Plain text in, text out: :func:`turn_messages` builds a turn's messages from the replies so far,
:func:`read_final` and :func:`read_score` read the last reply; an unreadable reply is ``None``, never an
exception.  Table 11's second turn prints a stray "W" before "Output" (a typo); it is left out here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from relreason_dagster.benchmarks.selfcontra import parsing

TEMPLATE_VERSION = "selfcontra-pov-v1"
KINDS = ("reasoning", "diagnostic")  # Table 13 (→ Table 12) and Table 11 (→ Table 14)
ORDERS = ("correct_first", "incorrect_first")
# Table 14's two columns: the score turn sees the first two replies whole ("Reasoning + Answers") or only
# their yes/no answer line ("Yes/No Answers Only").
VARIANTS = ("full", "yes_no")
_FORMAT = "Output in the following format: Answer: [answer in yes/no] Reasoning: [reasoning]"


@dataclass(frozen=True)
class PovTarget:
    """One question to consider from both points of view: its sentence, pronoun, the two candidates and
    which is right, and (diagnostic) the reasoning to score."""

    target_id: str
    sentence: str
    pronoun: str
    candidates: tuple[str, str]
    gold: int
    reasoning: str = ""


def characters(target: PovTarget, order: str) -> tuple[str, str]:
    """``(characterA, characterB)``: the first point of view is the right candidate's in ``correct_first``."""
    right, wrong = target.candidates[target.gold], target.candidates[1 - target.gold]
    return (right, wrong) if order == "correct_first" else (wrong, right)


def _bare(candidate: str) -> str:
    return re.sub(r"^the\s+", "", candidate.strip(), flags=re.IGNORECASE)


def turn_texts(kind: str, target: PovTarget, order: str) -> tuple[str, str, str]:
    """The three user turns of ``kind`` (Table 13 for ``reasoning``, Table 11 for ``diagnostic``)."""
    a, b = characters(target, order)
    p = target.pronoun
    if kind == "reasoning":
        return (
            f"{target.sentence} If we consider '{p}' refers to {a}, does the sentence make sense? "
            "Give your reasoning.",
            f"This time, consider that the {_bare(b)} is '{p}'. Does the sentence make sense? "
            "What is your reasoning?",
            f"Based on your previous considerations for both points of views, who is '{p}' more likely "
            "to be and why?",
        )
    return (
        f"{target.sentence} If we consider '{p}' refers to {a}, does the sentence make sense? {_FORMAT}",
        f"This time, consider that the {_bare(b)} is '{p}'. Does the sentence make sense? {_FORMAT}",
        "Based on your previous considerations for both points of views, consider the following reasoning: "
        f"{target.reasoning.strip()} On a scale of 1-10, with 10 being perfect, how consistent is this "
        "reasoning with your consideration? Output in the following format: Score: [score] "
        "Explanation: [explanation]",
    )


_ANSWER_LINE = re.compile(r"Answer\s*:\s*\[?\s*(yes|no)\b", re.IGNORECASE)


def yes_no_only(reply: str) -> str:
    """A reply cut to its yes/no answer (Table 14's "Yes/No Answers Only"): ``Answer: yes``, or the reply
    whole when it states none (nothing is invented)."""
    found = _ANSWER_LINE.search(reply or "")
    return f"Answer: {found.group(1).lower()}" if found else (reply or "")


def turn_messages(
    kind: str, target: PovTarget, order: str, turn: int, replies: list[str], variant: str = "full"
) -> list[dict[str, str]]:
    """The messages of turn ``turn`` (1-3): the earlier user turns with the model's ``replies`` to them
    (cut to their yes/no answer under ``variant = yes_no``), then this turn's text."""
    texts = turn_texts(kind, target, order)
    messages: list[dict[str, str]] = []
    for k in range(turn - 1):
        reply = replies[k] if variant == "full" else yes_no_only(replies[k])
        messages += [{"role": "user", "content": texts[k]}, {"role": "assistant", "content": reply}]
    return [*messages, {"role": "user", "content": texts[turn - 1]}]


def read_final(reply: str | None, target: PovTarget) -> int | None:
    """The candidate the final POV turn settles on (index), by the answer parser; None when it names none."""
    if not reply:
        return None
    return parsing.map_answer(reply, target.candidates, target.pronoun)


_SCORE = re.compile(r"Score\s*:\s*\[?\s*(\d+(?:\.\d+)?)")
_ANY_NUMBER = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)(?:\s*/\s*10|\s+out of 10)?")


def read_score(reply: str | None) -> float | None:
    """The 1-10 score of a diagnostic reply (``Score: 8``, else its first number in 1..10); None otherwise."""
    if not reply:
        return None
    found = _SCORE.search(reply) or _ANY_NUMBER.search(reply)
    if found is None:
        return None
    value = float(found.group(1))
    return value if 1 <= value <= 10 else None


def sentence_of(question: str) -> str:
    """The sentence of a recorded question ("... paperwork.who is 'she'?" → "... paperwork.")."""
    return re.split(r"(?<=[.!])\s*(?:who\b|does\b)", question, maxsplit=1, flags=re.IGNORECASE)[0].strip()
