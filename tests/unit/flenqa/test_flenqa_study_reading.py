"""``reading: study`` and ``layout: study``: FLenQA read and asked as the study's own notebook does.

The rules come from the study's released analysis notebook, ``FLenQA analysis.ipynb`` in
alonj/Same-Task-More-Tokens (cells counted from 0 over every cell, markdown included): code cell 5
(``prompt_structures``, the prompt layout) and code cell 9 (``normalize_answer``, ``response_category``
and ``response_analysis``: the final answer, the early response and the CoT coverage).  Each test below
names the cell and the function its rule comes from; the expected values are the notebook's categories,
worked out by hand from those functions (no network here, no copy of the notebook's code).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from relreason_dagster.benchmarks.base import Profile, Sample
from relreason_dagster.benchmarks.flenqa import dataset, prompts, reading, steps, study_reading
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.flenqa.profile_schema import Knobs
from relreason_dagster.profiles import DEFAULT_SEED, get_profile, profile_names

FAMILY = FlenqaFamily()
PAPER = get_profile("paper", "flenqa")
KEYS = ["Ada Moss is older than Bo Reed.", "Bo Reed is older than Cy Lund."]


def _sample(rules: str, label: bool = True, task: str = "MonoRel") -> Sample:
    """A sample as the pipeline stores it, its variant carrying the profile's reading."""
    return Sample(
        benchmark="flenqa", task=task, sample_id=f"s-{rules}", split="test", n=250,
        variant={"length": 250, "padding": "different", "position": "random", "reading": rules},
        input={"key_sentences": KEYS, "question": "Is Ada Moss older than Cy Lund?", "paragraphs": ["x"]},
        gold=label, label=label, seed=0, generator_version="test",
    )  # fmt: skip


# ---------------------------------------------------------------------------------------- the rules


def test_not_false_reads_false_as_the_notebook_reads_it():
    """FLenQA analysis.ipynb, cell 9, ``response_category``: "not true" becomes "false", then the last of
    the substrings "true"/"false" decides, so "not false" is false (relreason reads it as True)."""
    text = "After checking both facts, the statement is not false."
    assert study_reading.category(text) == "false"
    assert reading.answer(text, "study") is False
    assert reading.answer(text, "relreason") is True  # relreason's rule, kept under reading: relreason
    assert study_reading.category("It is not true that Bo is older.") == "false"
    assert study_reading.category("Could be true, could be false... I say TRUE!") == "true"
    assert study_reading.category("The claim is untrue.") == "true"  # a substring, no word boundary
    assert study_reading.category("I cannot tell from the text.") == "other/refused"
    assert study_reading.category(None) == "other/refused"


def test_the_notebook_normalises_without_dropping_punctuation():
    """FLenQA analysis.ipynb, cell 9, ``normalize_answer``: lower case, the articles a/an/the out,
    whitespace collapsed; its punctuation ``replace`` looks for the whole punctuation alphabet as one
    run, so no punctuation is removed from a response."""
    # "An" becomes a space, so "(" and "easy" stay apart
    assert (
        study_reading.normalize("The answer is:   TRUE!\n(An easy one.)") == "answer is: true! ( easy one.)"
    )


def test_an_answer_within_the_first_10_characters_is_early():
    """FLenQA analysis.ipynb, cell 9, ``response_analysis``: ``early_response`` is the final answer's
    category found in the first 10 characters of the normalised response (CoT prompts)."""
    assert study_reading.answer_first("False. Bo Reed is older than Cy Lund, so no.")
    assert study_reading.answer_first("**True** since Ada is older.")  # "**true** s": within 10
    # the notebook's rule, not relreason's: relreason wants 15 words of reasoning after the answer
    assert reading.answer_first("False. Bo is older.", "study")
    assert not reading.answer_first("False. Bo is older.", "relreason")
    # "the" goes before counting: "answer: false" puts "false" past the 10th character
    assert not study_reading.answer_first("The answer: False, as Bo is older.")
    # the final answer, not any answer word: the first 10 characters say "true", the response says false
    assert not study_reading.answer_first("True or false? Bo is older than Cy, so: false.")
    assert not study_reading.answer_first("I cannot tell.")  # other/refused is never early
    assert study_reading.answer_first("   TRUE")  # leading whitespace goes in the normalisation


def test_a_fact_with_punctuation_is_covered_only_with_its_punctuation():
    """FLenQA analysis.ipynb, cell 9, ``response_analysis``: ``cot_coverage`` counts the key sentences
    (facts; the statement for Ruletaker) whose normalised form is a substring of the normalised
    response: the fact's full stop must be there too (relreason drops punctuation on both sides)."""
    comma = "Step 1: ada moss is older than bo reed, and bo reed is older than cy lund. So True."
    assert study_reading.coverage(comma, KEYS) == 1  # the first fact's "." is a "," here
    assert reading.coverage(comma, KEYS, "relreason") == 2
    both = "Step 1: Ada Moss is older than Bo Reed. Step 2: Bo Reed is older than Cy Lund. True."
    assert study_reading.coverage(both, KEYS) == 2
    assert study_reading.coverage("the Ada Moss is older than Bo Reed.", KEYS) == 1  # articles go first
    assert study_reading.coverage(None, KEYS) == 0


# ----------------------------------------------------------------------- the knob through the family


def test_parse_reads_by_the_samples_reading_and_says_which():
    """The parser follows ``variant.reading`` (the profile's knob) and records it in each row's detail;
    a sample stored before the knob reads by relreason's rules."""
    text = "False first. Ada Moss is older than Bo Reed. Bo Reed is older than Cy Lund. So: not false."
    study = FAMILY.parse(_sample("study", label=False), "cot", text)
    assert (study.parsed, study.correct, study.parse_status) == (False, True, "ok")
    assert study.detail == {"answer": "false", "reading": "study", "answer_first": True, "keys_covered": 2}
    ours = FAMILY.parse(_sample("relreason", label=False), "cot", text)
    assert (ours.parsed, ours.correct) == (True, False)
    assert ours.detail["reading"] == "relreason"
    old = _sample("relreason")
    old = Sample(**{**old.__dict__, "variant": {k: v for k, v in old.variant.items() if k != "reading"}})
    assert FAMILY.parse(old, "direct", "not false").detail == {"answer": "true", "reading": "relreason"}
    refused = FAMILY.parse(_sample("study"), "direct", "No idea.")
    assert (refused.parse_status, refused.correct, refused.detail["answer"]) == ("refused", False, "refused")


def test_the_trace_step_reads_as_the_parser_and_records_the_reading():
    """``flenqa_trace_reads`` takes the reading from the same sample row the parser reads."""
    content = "False. Ada Moss is older than Bo Reed, and Bo is older than Cy."
    responses = [
        {
            "prompt_id": f"p-{rules}",
            "setting": "cot",
            "content": content,
            "reasoning": None,
            "input": json.dumps({"key_sentences": KEYS}),
            "variant": json.dumps({"reading": rules}),
        }
        for rules in ("study", "relreason")
    ]
    rows = {r["prompt_id"]: r for r in steps.read_rows(responses, "answer", "m")}
    assert (rows["p-study"]["reading"], rows["p-study"]["answer_first"]) == ("study", True)
    assert rows["p-study"]["keys_covered"] == 0  # "Bo Reed," is no "Bo Reed."
    assert (rows["p-relreason"]["reading"], rows["p-relreason"]["answer_first"]) == ("relreason", False)
    assert rows["p-relreason"]["keys_covered"] == 1


def test_only_the_paper_profile_reads_and_asks_as_the_study():
    """The paper profile defaults to the study's notebook; every other built-in profile keeps
    relreason's reading and layout, so none of their stored prompts is asked again."""
    paper = PAPER.typed(Knobs)
    assert (paper.reading, paper.layout) == ("study", "study")
    for name in profile_names():
        if name == "paper":
            continue
        try:
            knobs = get_profile(name, "flenqa").typed(Knobs)
        except Exception:  # noqa: BLE001 - a profile without a flenqa section
            continue
        assert (knobs.reading, knobs.layout) == ("relreason", "relreason"), name


# -------------------------------------------------------------------------------- the study's layout

MIXIN = (
    "The ferry left at dawn and the gulls followed it out past the breakwater.\n"
    + "The harbour master logged the weather twice a day in a green ledger. " * 6
    + "Moss Yarrow is quiet.\nThe rain stopped before noon."
)
RULE_ROW = {
    "global_sample_id": 9001,
    "sample_id": 3,
    "label": "False",
    "dataset": "Simplified RuleTaker",
    "rule": ["If someone is quiet then they are kind."],
    "statement": ["Moss Yarrow is quiet."],
    "assertion/question": "Moss Yarrow is not kind.",
    "mixin": MIXIN,
    "padding_type": "books",
    "dispersion": "random",
    "ctx_size": 250,
}
PIR_ROW = {
    "global_sample_id": 5002,
    "sample_id": 4,
    "label": "True",
    "dataset": "PIR",
    "facts": ["Wren Halloway walked into the pantry.", "The pantry has a teal door."],
    "assertion/question": "Is Wren Halloway in a room with a teal door?",
    "mixin": MIXIN,
    "padding_type": "same",
    "dispersion": "first",
    "ctx_size": 250,
}
MONO_ROW = {
    "global_sample_id": 1003,
    "sample_id": 5,
    "label": "True",
    "dataset": "MonoRel",
    "facts": ["Ada is older than Bo.", "Bo is older than Cy."],
    "assertion/question": "Is Ada older than Cy?",
    "mixin": MIXIN,
    "padding_type": "books",
    "dispersion": "last",
    "ctx_size": 250,
}


def _released_prompts(tmp_path: Path, rows: list[dict[str, Any]], layout: str) -> dict[tuple[str, str], str]:
    path = tmp_path / "FLenQA.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    profile = Profile("paper", {**PAPER.params, "dataset_file": str(path), "layout": layout}, knobs=Knobs)
    every = FAMILY.generate(profile, DEFAULT_SEED)
    samples = [s for s in every if s.generator_version == dataset.RELEASED_VERSION]  # the rows, one a task
    built = FAMILY.build_prompts(samples, profile)
    task_of = {s.sample_id: s.task for s in samples}
    return {(task_of[p.sample_id], p.setting): p.messages[0]["content"] for p in built}


@pytest.fixture(scope="module")
def study_prompts(tmp_path_factory) -> dict[tuple[str, str], str]:
    return _released_prompts(tmp_path_factory.mktemp("layout"), [RULE_ROW, PIR_ROW, MONO_ROW], "study")


def test_the_study_layout_asks_a_released_ruletaker_row_as_the_notebook_builds_it(study_prompts):
    """FLenQA analysis.ipynb, cell 5, ``prompt_structures["Simplified RuleTaker"]`` and ``[..._cot]``:
    the statement unquoted, each part on its own line, the rule as the f-string prints the released
    list, "Let's" with a straight apostrophe, a final newline."""
    q, rule = RULE_ROW["assertion/question"], "['If someone is quiet then they are kind.']"
    assert study_prompts[("Ruletaker", "direct")] == (
        f"Answer whether the statement {q} can be derived from the rule and the facts. "
        'Answer with either "True" or "False".\n'
        f"Rule: {rule}\n"
        f"Facts: {MIXIN}\n"
        'Answer with either "True or "False".\n'
    )
    assert study_prompts[("Ruletaker", "cot")] == (
        f"Answer whether the statement {q} can be derived from the rule and the facts.\n"
        'Show your steps then answer with either "True" or "False".\n'
        f"Rule: {rule}\n"
        f"Facts: {MIXIN}\n"
        'Answer with either "True or "False". '
        "Let's work this out in a step by step way to be sure we have the right answer.\n"
    )


def test_the_study_layout_asks_released_pir_and_monorel_rows_as_the_notebook_builds_them(study_prompts):
    """FLenQA analysis.ipynb, cell 5, ``prompt_structures["PIR"]``, ``["PIR_cot"]``, ``["MonoRel"]`` and
    ``["MonoRel_cot"]``: single newlines, the PIR CoT closing sentence broken after "way to", the
    MonoRel text on a line of its own, a final newline."""
    pir_q, mono_q = PIR_ROW["assertion/question"], MONO_ROW["assertion/question"]
    assert study_prompts[("PIR", "direct")] == (
        f"{MIXIN}\nTrue/False Question: {pir_q}\nAnswer only True or False.\n"
    )
    assert study_prompts[("PIR", "cot")] == (
        "Show your steps then answer with ’true’ or ’false’.\n"
        f"{MIXIN}\n"
        f"True/False Question: {pir_q}\n"
        "Let’s work this out in a step by step way to\n"
        "be sure we have the right answer.\n"
    )
    intro = (
        f"Here are some facts. Answer the exact following question based on the text: {mono_q} "
        "Answer the question as it appears exactly.\n"
    )
    assert study_prompts[("MonoRel", "direct")] == f"{intro}{MIXIN}\n{mono_q}\nAnswer only True or False.\n"
    assert study_prompts[("MonoRel", "cot")] == (
        f"{intro}Show your steps then answer with ’true’ or ’false’.\n"
        f"{MIXIN}\n{mono_q}\n"
        "Let’s work this out in a step by step way to be sure we have the right answer. "
        "Show your work and finally answer with ’true’ or ’false’. "
        "The final step should include the exact text of the question and the answer.\n"
    )


def test_the_relreason_layout_is_unchanged_and_the_reading_asks_nothing_again(tmp_path):
    """``layout: relreason`` keeps today's prompts (blank lines, the statement quoted, the rule as one
    string), and ``reading`` changes no prompt: only the layout is in what is asked."""
    ours = _released_prompts(tmp_path, [RULE_ROW], "relreason")
    assert ours[("Ruletaker", "direct")] == (
        'Answer whether the statement "Moss Yarrow is not kind." can be derived from the rule and the '
        'facts. Answer with either "True" or "False".\n\nRule: If someone is quiet then they are kind.\n\n'
        f'Facts: {MIXIN}\n\nAnswer with either "True or "False".'
    )
    path = tmp_path / "FLenQA.jsonl"
    ids = {}
    for rules in ("study", "relreason"):
        profile = Profile("paper", {**PAPER.params, "dataset_file": str(path), "reading": rules}, knobs=Knobs)
        samples = FAMILY.generate(profile, DEFAULT_SEED)
        assert {s.variant["reading"] for s in samples} == {rules}
        ids[rules] = sorted(p.prompt_id for p in FAMILY.build_prompts(samples, profile))
    assert ids["study"] == ids["relreason"]


def test_a_released_rule_given_as_one_text_prints_as_that_text():
    """The notebook's f-string prints a text as itself (cell 5), a list as Python prints a list."""
    facts, _, problems = dataset.check_row({**RULE_ROW, "rule": "If someone is quiet then they are kind."})
    assert not problems and facts is not None
    assert facts["study_rule"] == "If someone is quiet then they are kind."
    facts, _, _ = dataset.check_row({**RULE_ROW, "rule": ["It's so.", 'He said "so".']})
    assert facts is not None and facts["study_rule"] == str(["It's so.", 'He said "so".'])
    assert prompts.template_version("study") != prompts.template_version("relreason")
