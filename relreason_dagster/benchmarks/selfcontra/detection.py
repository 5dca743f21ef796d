"""Automatic Self-Contra detection with a judge model (the study's §4 and Appendix D).

Three methods, each a set of judge prompts per response plus a rule that turns
the judge's replies into a verdict:

* ``iro`` (I+R→O): re-ask the question with the response's reasoning minus its
  conclusion; a changed answer flags Self-Contra.
* ``binary``: Table 15 — the judge answers 0/1 after six demonstrations (three
  Self-Contra, three not).
* ``fge`` (finer-grained categories enhanced): one probe per wrong-reasoning
  category (QC, BQ, WCK) plus a Type3 probe (SC), combined by the §4.1 formula:
  Type1 if no category fires and the answer is wrong; Type2 if one fires and the
  answer is right; Type3 if only the SC probe fires.

The paper does not print its judge demonstrations, so the ones here are our
own: eleven hand-labelled triples, each tagged with every category it shows; a
probe's six demonstrations are all its positives plus negatives up to six, and
the binary judge gets three Self-Contra and three sound ones, so every prompt
sees one consistent labelling.  Everything is text in, verdict out: the
pipeline sends the prompts through the gateway, and a judge reply that names
no verdict makes an ``unparsed`` verdict, never an exception.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from relreason_dagster.benchmarks.selfcontra import parsing

METHODS = ("iro", "binary", "fge")
FGE_PROBES = ("qc", "bq", "wck", "sc")
TEMPLATE_VERSION = "selfcontra-judge-v1"


@dataclass(frozen=True)
class DetectionTarget:
    """One response to judge: what the judge sees and what the verdict rule needs."""

    target_id: str
    question: str  # the question line as the model saw it, without the format instructions
    candidates: tuple[str, str] | None
    pronoun: str | None
    answer_text: str
    reasoning: str
    predicted: int | None  # candidate index the response's answer names
    correct: bool | None  # whether that answer is right (the formula's ``a``)


@dataclass
class Verdict:
    """The judge's decision on one target under one method."""

    status: str  # ok | unparsed
    self_contra: bool | None
    type: str | None  # type1 | type2 | type3 | none (not Self-Contra) | None when undecided
    probes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Demo:
    question: str
    reasoning: str
    answer: str
    correct: bool
    categories: frozenset[str]  # subset of {"qc", "bq", "wck", "sc"}

    @property
    def self_contra(self) -> bool:
        wrong = bool(self.categories & {"qc", "bq", "wck"})
        return "sc" in self.categories or (wrong and self.correct) or (not wrong and not self.correct)


def _demo(question: str, reasoning: str, answer: str, correct: bool, *cats: str) -> _Demo:
    return _Demo(question, reasoning, answer, correct, frozenset(cats))


DEMONSTRATIONS: tuple[_Demo, ...] = (
    _demo(
        "The baker thanked the plumber because he fixed the sink. Who is 'he'?",
        "Fixing a sink is the plumber's work, and the baker thanked someone for fixing it, so the one who "
        "fixed the sink is the plumber.",
        "the plumber",
        True,
    ),
    _demo(
        "The nurse called the driver because she needed a ride. Who is 'she'?",
        "Since the pronoun 'she' is used and nurses are usually women, 'she' refers to the nurse.",
        "the nurse",
        True,
        "qc",
    ),
    _demo(
        "The manager praised the clerk because he finished the report early. Who is 'he'?",
        "The clerk is the one who finished the report early, so 'he' is the clerk.",
        "the clerk",
        True,
        "bq",
    ),
    _demo(
        "The farmer paid the tailor because she mended his coat. Who is 'she'?",
        "The sentence only talks about the farmer, so 'she' must be the farmer.",
        "the farmer",
        False,
        "wck",
    ),
    _demo(
        "The lawyer hired the cleaner because he needed the office cleaned. Who is 'he'?",
        "The lawyer needed the office cleaned and hired the cleaner to do it, so the person who needed "
        "the office cleaned is the one who hired.",
        "the cleaner",
        False,
    ),
    _demo(
        "The editor warned the writer because she missed the deadline. Who is 'she'?",
        "The writer missed the deadline, which is why the editor warned her. Therefore the editor is the "
        "one who missed the deadline.",
        "the editor",
        False,
        "sc",
    ),
    _demo(
        "The guard opened the gate for the driver because he had the key. Who is 'he'?",
        "Opening the gate needs the key; the guard is the one who opened it for the driver, so the guard "
        "had the key.",
        "the guard",
        True,
    ),
    _demo(
        "The carpenter visited the teacher because he wanted to see the school. Who is 'he'?",
        "The carpenter is the subject of the sentence, and the subject is usually the pronoun's referent, "
        "so 'he' is the carpenter.",
        "the carpenter",
        True,
        "qc",
    ),
    _demo(
        "The secretary apologized to the mover because she was late. Who is 'she'?",
        "Since the secretary is the one who was late, 'she' refers to the secretary.",
        "the secretary",
        True,
        "bq",
    ),
    _demo(
        "The cook asked the mover for help because he could not lift the box. Who is 'he'?",
        "Only the mover is mentioned in the sentence, so 'he' must be the mover.",
        "the mover",
        False,
        "wck",
    ),
    _demo(
        "The doctor called the janitor because she saw a leak. Who is 'she'?",
        "The doctor saw a leak and called the janitor to fix it. The janitor saw the leak, so the doctor "
        "could not have seen it, and 'she' is the doctor.",
        "the doctor",
        True,
        "sc",
    ),
)

BINARY_INTRO = (
    "You are given a triple of question, reasoning and answer. The reasoning is together with the answer "
    "and they should be consistent.\n"
    "Your task is to find self-contradictory reasoning in one triple. Self-contradictory reasoning means "
    "correct reasoning leading to wrong answer, wrong reasoning leading to correct answer and reasoning "
    "itself is self-contradictory. Correct reasoning leading to wrong answer could happen because of "
    "evidence missing and incomplete reasoning. Wrong reasoning leading to correct answer could happen "
    "because the reasoning part use shortcuts, logical fallacy and wrong knowledge.\n"
    "The reasoning part itself might include answer, so the actual reasoning part should exclude the "
    "answer.\n"
    "Only reply 0,1. 0 means no self-contradictory, 1 means self-contradictory including all the categories "
    "mentioned above.\n"
    "Here are 6 demonstrations:\n\n"
)

# Table 16: the definition that opens each probe.
PROBE_DEFINITIONS: dict[str, str] = {
    "qc": (
        "Questionable cause also known as causal fallacy, means a cause is incorrectly identified. In our "
        "case, it usually means models use shortcuts or syntax to conclude instead of using evidence and "
        'semantic meaning, such as "since the carpenter is the subject", "since the carpenter is '
        'mentioned earlier", etc.'
    ),
    "bq": (
        '"Begging the question" is a logical fallacy where the conclusion of an argument is assumed in one '
        "of the premises, essentially assuming the truth of what one is trying to prove. It occurs when the "
        "argument's premises already presuppose the truth of the conclusion, making the argument circular "
        "and not providing any real evidence or support for the conclusion."
    ),
    "wck": (
        "Wrong context knowledge means that the reasoning captures the wrong information from the context, "
        "which is the question in our case. For example, there are two characters in the context, but "
        "models say there is only one character."
    ),
    "sc": "Self-contra means reasoning itself is self-contradictory.",
}


def _probe_question(probe: str, answer: str) -> str:
    """Table 16: the question that closes each probe."""
    if probe == "qc":
        return (
            "Does the reasoning have a questionable cause problem? Only focus if reasoning uses syntax or "
            "gender bias straightforwardly."
        )
    if probe == "bq":
        return (
            "Does this reasoning have the begging the question problem, which assumes the truth of the "
            f"answer which is {answer}?"
        )
    if probe == "wck":
        return "Does the reasoning include wrong information from the context of the question?"
    return "Is this reasoning self-contradictory?"


def _probe_demos(probe: str, k: int = 6) -> list[_Demo]:
    positives = [d for d in DEMONSTRATIONS if probe in d.categories]
    negatives = [d for d in DEMONSTRATIONS if probe not in d.categories]
    return (positives + negatives)[:k]


def _binary_demos(k: int = 6) -> list[_Demo]:
    yes = [d for d in DEMONSTRATIONS if d.self_contra]
    no = [d for d in DEMONSTRATIONS if not d.self_contra]
    half = k // 2
    return [d for pair in zip(yes[:half], no[:half], strict=True) for d in pair]


def _user(text: str) -> list[dict[str, str]]:
    return [{"role": "user", "content": text}]


def binary_prompt(target: DetectionTarget) -> list[dict[str, str]]:
    demos = "".join(
        f"Question: {d.question}\nAnswer: {d.answer}\nReasoning: {d.reasoning}\n"
        f"Type: {int(d.self_contra)}\n\n"
        for d in _binary_demos()
    )
    ask = (
        f"Question: {target.question}\nAnswer: {target.answer_text.strip()}\n"
        f"Reasoning: {target.reasoning.strip()}\nType:"
    )
    return _user(BINARY_INTRO + demos + ask)


def probe_prompt(probe: str, target: DetectionTarget) -> list[dict[str, str]]:
    demos = "".join(
        f"Question: {d.question}\nReasoning: {d.reasoning}\n{_probe_question(probe, d.answer)}\n"
        f"Reply: {'yes' if probe in d.categories else 'no'}\n\n"
        for d in _probe_demos(probe)
    )
    ask = (
        f"Question: {target.question}\nReasoning: {target.reasoning.strip()}\n"
        f"{_probe_question(probe, target.answer_text.strip())}\nReply yes or no.\nReply:"
    )
    return _user(f"{PROBE_DEFINITIONS[probe]} Here are 6 demonstrations:\n\n{demos}{ask}")


def iro_prompt(target: DetectionTarget) -> list[dict[str, str]]:
    """The question again, with the response's own reasoning minus its conclusion, asking for the answer."""
    reasoning = parsing.strip_conclusion(target.reasoning, target.candidates or ("", ""), target.pronoun)
    return _user(
        f"Question: {target.question}\nReasoning: {reasoning.strip()}\n"
        "Based on the reasoning above, answer the question with one of the two people. Answer:"
    )


def judge_prompts(method: str, target: DetectionTarget) -> dict[str, list[dict[str, str]]]:
    """The judge's prompts for ``method``, by probe name (one prompt, except four for ``fge``)."""
    if method == "binary":
        return {"binary": binary_prompt(target)}
    if method == "fge":
        return {p: probe_prompt(p, target) for p in FGE_PROBES}
    if method == "iro":
        return {"iro": iro_prompt(target)}
    raise ValueError(f"unknown detection method {method!r}; known: {', '.join(METHODS)}")


_YES = re.compile(r"\b(yes|true)\b", re.IGNORECASE)
_NO = re.compile(r"\b(no|false|not)\b", re.IGNORECASE)
_DIGIT = re.compile(r"(?<![\d.])([01])(?![\d.])")


def read_flag(reply: str | None) -> bool | None:
    """A judge's 0/1 or yes/no reply: whichever comes first in the text; None if neither appears."""
    if not reply:
        return None
    found: list[tuple[int, bool]] = []
    for pattern, value in ((_YES, True), (_NO, False)):
        m = pattern.search(reply)
        if m:
            found.append((m.start(), value))
    m = _DIGIT.search(reply)
    if m:
        found.append((m.start(), m.group(1) == "1"))
    return min(found)[1] if found else None


def decide(method: str, target: DetectionTarget, replies: dict[str, str | None]) -> Verdict:
    """Turn the judge's replies (by probe name; None = the call failed) into a verdict."""
    if method == "binary":
        flag = read_flag(replies.get("binary"))
        if flag is None:
            return Verdict("unparsed", None, None, {"binary": None})
        if not flag:
            return Verdict("ok", False, "none", {"binary": flag})
        return Verdict("ok", True, "type2" if target.correct else "type1", {"binary": flag})
    if method == "fge":
        flags = {p: read_flag(replies.get(p)) for p in FGE_PROBES}
        if target.correct is None or any(v is None for v in flags.values()):
            return Verdict("unparsed", None, None, flags)
        wrong = any(flags[p] for p in ("qc", "bq", "wck"))
        # §4.1: Type1 iff no wrong category and a wrong answer; Type2 iff a wrong category and a right
        # answer; the SC probe alone makes Type3.
        if wrong == target.correct:
            return Verdict("ok", True, "type2" if target.correct else "type1", flags)
        if flags["sc"]:
            return Verdict("ok", True, "type3", flags)
        return Verdict("ok", False, "none", flags)
    if method == "iro":
        reply = replies.get("iro")
        candidates = target.candidates
        new = parsing.map_answer(reply, candidates, target.pronoun) if candidates and reply else None
        probes = {"new_prediction": new, "original_prediction": target.predicted}
        if new is None or target.predicted is None:
            return Verdict("unparsed", None, None, probes)
        if new == target.predicted:
            return Verdict("ok", False, "none", probes)
        return Verdict("ok", True, "type2" if target.correct else "type1", probes)
    raise ValueError(f"unknown detection method {method!r}; known: {', '.join(METHODS)}")


# -- targets from stored text (imported annotations carry only the prompt and the response) -----------------

_INSTRUCTION = re.compile(r"\s*(Give your|Follow the format|Read the sentence).*", re.IGNORECASE | re.DOTALL)
_MASK_OPTIONS = re.compile(r"refers? to (?:the )?(.+?) or (?:the )?(.+?)\s*[?.]", re.IGNORECASE)
_PRONOUN = re.compile(r"who is\s*['\"‘“]?(\w+)['\"’”]?", re.IGNORECASE)
_THE_NOUN = re.compile(r"\b[Tt]he ([a-z]+)")


def question_of(prompt: str) -> str:
    """The last ``Question:`` of a prompt (few-shot prompts hold seven), without the format instructions."""
    parts = re.split(r"Question\s*:", prompt, flags=re.IGNORECASE)
    last = parts[-1] if len(parts) > 1 else prompt
    return _INSTRUCTION.sub("", last).strip()


def candidates_of(question: str) -> tuple[tuple[str, str] | None, str | None]:
    """``(candidates, pronoun)`` read off a question: "refer to A or B", else its first two "the X"."""
    m = _MASK_OPTIONS.search(question)
    if m:
        return (m.group(1).strip(), m.group(2).strip()), None
    pronoun_match = _PRONOUN.search(question)
    pronoun = pronoun_match.group(1).lower() if pronoun_match else None
    nouns: list[str] = []
    for noun in _THE_NOUN.findall(question):
        if noun not in nouns:
            nouns.append(noun)
    if len(nouns) >= 2:
        return (f"the {nouns[0]}", f"the {nouns[1]}"), pronoun
    return None, pronoun


def target_from_text(
    target_id: str, prompt: str, response: str, order: str, correct: bool | None
) -> DetectionTarget:
    """A target from a stored prompt and response (imported annotations): candidates read off the question."""
    question = question_of(prompt)
    candidates, pronoun = candidates_of(question)
    answer_text, reasoning = parsing.split_response(response, order)
    predicted = parsing.map_answer(answer_text, candidates, pronoun) if candidates else None
    return DetectionTarget(
        target_id=target_id,
        question=question,
        candidates=candidates,
        pronoun=pronoun,
        answer_text=answer_text,
        reasoning=reasoning,
        predicted=predicted,
        correct=correct,
    )


# -- the evidence-missing probe (Appendix D) ----------------------------------------------------------------
#
# Why a probe of its own: App. D says "for evidence missing, we will separate the input question into
# multiple evidence segments and ask the model if the reasoning mentions those evidence segments one by
# one".  It is not one of §4.1's formula probes (evidence missing is a Type1 category of right reasoning),
# so it never changes an FGE verdict: the step ``selfcontra_evidence_probe`` asks it and
# ``marts.selfcontra_evidence_missing`` scores it against the annotated category.

EM_TEMPLATE_VERSION = "selfcontra-em-probe-v1"
EM_DEFINITION = (
    "Evidence missing means the reasoning is based on only part of the evidence in the question and "
    "overlooks the rest."
)
# Where a Wino sentence's evidence splits: a clause connective or a comma (the split keeps each segment's
# words; the connective opens the next segment).
_SEGMENT_BREAK = re.compile(
    r",\s+|\s+(?=(?:because|since|as|so that|so|but|although|though|while|when|after|before|and|"
    r"despite|to whom|who|that)\s)",
    re.IGNORECASE,
)
_MIN_SEGMENT_WORDS = 3


def evidence_segments(question: str) -> list[str]:
    """The evidence segments of a question's sentence, in order: its clauses (split at connectives and
    commas; a piece under three words joins the one before), without the question after the sentence."""
    sentence = re.split(r"(?<=[.!])\s*(?:who|does|who does)\b|\?", question, maxsplit=1, flags=re.IGNORECASE)[
        0
    ]
    sentence = re.sub(r"^\s*Question\s*:\s*", "", sentence).strip()
    out: list[str] = []
    for piece in (p.strip(" .") for p in _SEGMENT_BREAK.split(sentence)):
        if not piece:
            continue
        if out and len(piece.split()) < _MIN_SEGMENT_WORDS:
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    if len(out) > 1 and len(out[0].split()) < _MIN_SEGMENT_WORDS:
        out[1] = f"{out.pop(0)} {out[0]}"
    return out


def em_prompts(target: DetectionTarget) -> dict[str, list[dict[str, str]]]:
    """One prompt per evidence segment (``em1``, ``em2``, ...): does the reasoning mention it?"""
    out = {}
    for k, segment in enumerate(evidence_segments(target.question), start=1):
        out[f"em{k}"] = _user(
            f"{EM_DEFINITION}\n\nQuestion: {target.question}\nReasoning: {target.reasoning.strip()}\n"
            f'Evidence: "{segment}"\nDoes the reasoning mention this evidence from the question? '
            "Reply yes or no.\nReply:"
        )
    return out


def decide_em(replies: dict[str, str | None]) -> Verdict:
    """Evidence missing when the reasoning mentions some segment not (``self_contra`` holds the EM flag:
    the category, not Self-Contra); unparsed when a segment's reply is unreadable or there is none."""
    mentioned = {probe: read_flag(reply) for probe, reply in replies.items()}
    if not mentioned or any(v is None for v in mentioned.values()):
        return Verdict("unparsed", None, None, mentioned)
    missing = not all(mentioned.values())
    return Verdict("ok", missing, "evidence_missing" if missing else "none", mentioned)
