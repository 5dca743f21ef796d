"""Judge-based Self-Contra detection: prompts, reply reading and the §4.1 verdict rules."""

from __future__ import annotations

import pytest

from relreason_dagster.benchmarks.selfcontra import detection
from relreason_dagster.benchmarks.selfcontra.detection import DetectionTarget, decide, read_flag

STUDY_PROMPT = (
    "Question:The janitor reprimanded the accountant because he made a mistake filing paperwork.who is 'he'? "
    "Give your answer first, then reasoning. Follow the format: Answer:[Answer]:\nReasoning:[Reasoning]\n "
)


def _target(correct: bool | None = True, predicted: int | None = 1) -> DetectionTarget:
    return DetectionTarget(
        target_id="t1",
        question="The janitor reprimanded the accountant because he made a mistake filing paperwork. "
        "who is 'he'?",
        candidates=("the janitor", "the accountant"),
        pronoun="he",
        answer_text="the accountant",
        reasoning="The accountant made the mistake, so the janitor reprimanded him. 'He' is the accountant.",
        predicted=predicted,
        correct=correct,
    )


@pytest.mark.parametrize(
    ("reply", "flag"),
    [
        ("1", True),
        ("0", False),
        (" Yes, it assumes the answer.", True),
        ("No.", False),
        ("Type: 1", True),
        ("The reasoning is not self-contradictory", False),
        ("0.5", None),
        ("", None),
        (None, None),
        ("I am unsure", None),
    ],
)
def test_read_flag(reply, flag):
    assert read_flag(reply) is flag


def test_binary_prompt_has_six_balanced_demonstrations_and_the_target():
    messages = detection.judge_prompts("binary", _target())["binary"]
    text = messages[0]["content"]
    assert text.count("Type: 1") == 3 and text.count("Type: 0") == 3
    assert text.rstrip().endswith("Type:")
    assert "filing paperwork" in text


@pytest.mark.parametrize("probe", detection.FGE_PROBES)
def test_fge_probes_have_six_demonstrations_with_positives(probe):
    text = detection.judge_prompts("fge", _target())[probe][0]["content"]
    assert text.startswith(detection.PROBE_DEFINITIONS[probe])
    assert text.count("Reply: yes") >= 2
    assert text.count("Reply: yes") + text.count("Reply: no") == 6


def test_binary_demonstrations_are_labelled_by_the_study_definition():
    by_question = {d.question.split(" because")[0]: d.self_contra for d in detection.DEMONSTRATIONS}
    assert by_question["The baker thanked the plumber"] is False  # RR
    assert by_question["The nurse called the driver"] is True  # QC + right answer: Type2
    assert by_question["The lawyer hired the cleaner"] is True  # sound reasoning, wrong answer: Type1
    assert by_question["The farmer paid the tailor"] is False  # WCK + wrong answer: WW


def test_fge_formula_type1_type2_type3_and_none():
    no = {"qc": "no", "bq": "no", "wck": "no", "sc": "no"}
    assert decide("fge", _target(correct=False), no).type == "type1"  # nothing wrong, wrong answer
    assert decide("fge", _target(correct=True), {**no, "bq": "yes"}).type == "type2"
    assert decide("fge", _target(correct=True), {**no, "sc": "yes"}).type == "type3"
    verdict = decide("fge", _target(correct=True), no)
    assert (verdict.status, verdict.self_contra, verdict.type) == ("ok", False, "none")
    ww = decide("fge", _target(correct=False), {**no, "wck": "yes"})
    assert ww.self_contra is False  # wrong reasoning, wrong answer: WW is not Self-Contra


def test_fge_unparsed_when_a_probe_has_no_verdict_or_the_answer_is_unreadable():
    no = {"qc": "no", "bq": "no", "wck": "no", "sc": "no"}
    assert decide("fge", _target(), {**no, "bq": "maybe"}).status == "unparsed"
    assert decide("fge", _target(), {**no, "sc": None}).status == "unparsed"  # the call failed
    assert decide("fge", _target(correct=None), no).status == "unparsed"


def test_binary_verdicts():
    assert decide("binary", _target(correct=True), {"binary": "1"}).type == "type2"
    assert decide("binary", _target(correct=False), {"binary": "1"}).type == "type1"
    assert decide("binary", _target(), {"binary": "0"}).self_contra is False
    assert decide("binary", _target(), {"binary": "banana"}).status == "unparsed"


def test_iro_flags_a_changed_answer_and_strips_the_conclusion():
    prompt = detection.judge_prompts("iro", _target())["iro"][0]["content"]
    assert "'He' is the accountant" not in prompt  # the conclusion is removed
    assert "made the mistake" in prompt
    same = decide("iro", _target(predicted=1), {"iro": "The accountant."})
    changed = decide("iro", _target(predicted=1), {"iro": "The janitor."})
    assert (same.self_contra, changed.self_contra) == (False, True)
    assert changed.probes == {"new_prediction": 0, "original_prediction": 1}
    assert decide("iro", _target(predicted=None), {"iro": "The janitor."}).status == "unparsed"
    assert decide("iro", _target(), {"iro": None}).status == "unparsed"


def test_unknown_method_is_an_error():
    with pytest.raises(ValueError, match="unknown detection method"):
        detection.judge_prompts("vibes", _target())


def test_target_from_a_study_prompt_and_response():
    target = detection.target_from_text(
        "a1",
        STUDY_PROMPT,
        "Answer: the accountant\nReasoning: The janitor reprimanded the accountant, so the accountant erred.",
        "answer",
        True,
    )
    assert target.question.startswith("The janitor reprimanded the accountant")
    assert "Give your" not in target.question
    assert target.candidates == ("the janitor", "the accountant")
    assert target.pronoun == "he"
    assert target.predicted == 1
    assert "erred" in target.reasoning


def test_candidates_of_a_mask_question():
    question = "Sarah was a much better surgeon than Maria so [MASK] always got the easier cases. "
    candidates, pronoun = detection.candidates_of(question + "Does [MASK] refer to Sarah or Maria?")
    assert candidates == ("Sarah", "Maria") and pronoun is None


def test_few_shot_prompt_uses_the_last_question():
    demo = "Question:The lawyer yelled at the hairdresser because she was mad. "
    few = "Read the sentence ... " + demo + STUDY_PROMPT
    assert detection.question_of(few).startswith("The janitor reprimanded")
