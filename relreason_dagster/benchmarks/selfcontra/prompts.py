"""Prompts of the self-contradiction study: zero/few-shot x answer-first (A) / reason-first (R).

The wording follows the prompts actually sent in the study, as recorded in the
first column of its annotation CSVs (Appendix A.2's Table 7 is a loose
paraphrase of them).  For who-style items (WinoBias, WinoGender with a
pronoun, generated) the zero-shot answer-first prompt is, byte for byte::

    Question:The janitor reprimanded the accountant because he made a mistake filing paperwork.who is 'he'? \
Give your answer first, then reasoning. Follow the format: Answer:[Answer]:\\nReasoning:[Reasoning]\\n

(no space after the sentence, lower-case "who"; the study asks "who does 'his'
refer to?" for the possessive).  Mask-style items (WinoGrande, masked
WinoGender) ask "Does [MASK] refer to A or B?" with the same answer/reasoning
instruction, so one parser reads every dataset.

Few-shot prompts open with the study's header, typo included ("demontrations")
because the header is part of the stimulus, then six demonstrations and the
question.  The built-in demonstrations below were written for this project
(generated-style sentences, three pointing to each candidate); the study's own
can be loaded with :func:`load_study_demonstrations` from its JSON.

Two wordings (the profile knob ``prompts``): ``relreason`` asks every mask-style
item "Does [MASK] refer to A or B?" with the WinoBias instruction, so one
parser and one set of demonstrations fit all datasets; ``study`` asks each
dataset as the study's annotation files record it (:func:`study_question_text`;
per model, since the study worded WinoGender and WinoGrande per model: the
templates are the table ``study_wording.csv``, read off its released files):
WinoGender "Who does [MASK] refer to?A or B?" (no candidates in the few-shot
answer-first prompt, as the study's demonstrations and that file ask it) with
lower-case ``[answer]``/``[reasoning]`` slots, WinoGrande without the
"Question:" prefix and with the study's "Answer: [answer] ... :" format.  Who-style
items (WinoBias, generated) read the same in both wordings.
"""

from __future__ import annotations

import csv
import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.selfcontra.items import MASK, WinoItem
from relreason_dagster.errors import ConfigError

TEMPLATE_VERSION = "selfcontra-prompts-1"
SETTINGS = ("zero_answer", "zero_reason", "few_answer", "few_reason")
ORDERS = ("answer", "reason")
WORDINGS = ("relreason", "study")
FEWSHOT_HEADER = "Read the sentence and answer the question with reasoning. Here are the demontrations:"
MASK_TOKEN = "[MASK]"
# Pronouns the study asked about with "who does 'X' refer to?" rather than "who is 'X'?".
_POSSESSIVE = {"his", "their", "its"}
_SEPARATOR = "\n\n\n"

_INSTRUCTION = {
    "answer": "Give your answer first, then reasoning. Follow the format: "
    "Answer:[Answer]:\nReasoning:[Reasoning]\n",
    "reason": "Give your reasoning first, then answer. Follow the format: "
    "Reasoning:[Reasoning]\nAnswer:[Answer]:\n",
}


def setting_order(setting: str) -> str:
    """``answer`` or ``reason``: which part the setting asks for first."""
    _check_setting(setting)
    return setting.split("_", 1)[1]


def setting_shots(setting: str) -> str:
    """``zero`` or ``few``."""
    _check_setting(setting)
    return setting.split("_", 1)[0]


def _check_setting(setting: str) -> None:
    if setting not in SETTINGS:
        raise ValueError(f"unknown setting {setting!r}; choose from {SETTINGS}")


def _check_order(order: str) -> None:
    if order not in ORDERS:
        raise ValueError(f"order must be one of {ORDERS}, got {order!r}")


def ask_text(item: WinoItem) -> str:
    """The question about the referent, without the format instruction."""
    if item.style == "mask":
        return f"Does {MASK_TOKEN} refer to {item.candidates[0]} or {item.candidates[1]}?"
    pronoun = item.pronoun or ""
    if (
        pronoun.lower() in _POSSESSIVE or item.variant.get("ask") == "refer"
    ):  # "refer": a §3 item (study_items)
        return f"who does '{pronoun}' refer to?"
    return f"who is '{pronoun}'?"


# The study worded WinoGender and WinoGrande per model (its released files record each prompt): the
# templates, transcribed from those files, are the table study_wording.csv beside this module (wording
# only, each row naming the file it was read off).  WinoBias and generated items read the same for every
# model.  Keys are the release's model names; a model the study did not ask gets GPT-3.5's wording.
WORDING_FILE = Path(__file__).with_name("study_wording.csv")
STUDY_MODELS = ("gpt3.5", "mistral", "claude3")
DEFAULT_STUDY_MODEL = "gpt3.5"
# How a models.yaml entry is recognised as a study model: a fragment of its LiteLLM model string or name.
_STUDY_MODEL_FRAGMENTS = {"mistral-7b-instruct-v0.2": "mistral", "claude-3-opus": "claude3"}


@functools.cache
def study_templates(path: Path = WORDING_FILE) -> dict[tuple[str, str, str], str]:
    """``{(model, dataset, setting): template}`` of the study's wording table (``\\n`` read as a newline)."""
    if not path.is_file():
        raise ConfigError(f"study wording table not found: {path}; restore it from the repository")
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    out = {}
    for row in rows:
        if row["model"] not in STUDY_MODELS or row["setting"] not in SETTINGS or not row["source"]:
            raise ConfigError(f"{path}: bad row {row}; model one of {STUDY_MODELS}, a setting, a source")
        out[(row["model"], row["dataset"], row["setting"])] = row["template"].replace("\\n", "\n")
    return out


def study_model_key(entry: Mapping[str, Any] | str) -> str:
    """The release's name of the study model a models.yaml entry is (by its LiteLLM model string or its
    name), or GPT-3.5's for any other model: the wording it is asked under ``wording: study``."""
    if isinstance(entry, str):
        text = entry
    else:
        text = f"{entry.get('litellm_model') or ''} {entry.get('name') or ''}"
    lowered = text.lower()
    return next((key for part, key in _STUDY_MODEL_FRAGMENTS.items() if part in lowered), DEFAULT_STUDY_MODEL)


# The model names of the study's released file names (winogender_zero_answer_claude3.csv; its WinoBias
# files say ``claude``), as the wording table names them.
_RELEASE_NAMES = {"gpt3.5": "gpt3.5", "mistral": "mistral", "claude3": "claude3", "claude": "claude3"}


def release_model_key(name: str) -> str:
    """The wording table's model for a released file's model name, else :func:`study_model_key`'s."""
    return _RELEASE_NAMES.get(name.strip().lower()) or study_model_key(name)


def _bare(candidate: str) -> str:
    """``the technician`` -> ``technician``: the study lists WinoGender's candidates without the article."""
    return candidate[4:] if candidate.lower().startswith("the ") else candidate


def study_question_text(
    item: WinoItem, order: str, shots: str = "zero", model: str = DEFAULT_STUDY_MODEL
) -> str:
    """One item asked as the study asked it of ``model`` (the release's name: gpt3.5, mistral, claude3);
    ``shots`` zero|few.  WinoGender and WinoGrande follow study_wording.csv (a model and dataset the study
    released no prompts for, Claude's WinoGrande, take GPT-3.5's); other datasets read as
    :func:`question_text`.

    Checked against the prompts recorded in the study's released WinoGender and WinoGrande annotation
    files (every model and setting it released): every prompt matches byte for byte up to whitespace.
    """
    _check_order(order)
    if item.style == "mask" and item.dataset in ("winogender", "winogrande"):
        setting = f"{shots}_{order}"
        templates = study_templates()
        template = (
            templates.get((model, item.dataset, setting))
            or templates[(DEFAULT_STUDY_MODEL, item.dataset, setting)]
        )
        sentence = item.sentence.replace(MASK, MASK_TOKEN).strip()
        a, b = item.candidates
        if item.dataset == "winogender":
            # The study lists the occupation first, then the participant, whichever the sentence names first.
            a, b = _bare(a), _bare(b)
            occupation, participant = item.variant.get("occupation"), item.variant.get("participant")
            if occupation and participant and {a, b} == {occupation, participant}:
                a, b = occupation, participant
        return template.replace("{sentence}", sentence).replace("{a}", a).replace("{b}", b)
    return question_text(item, order)


def question_text(item: WinoItem, order: str) -> str:
    """The zero-shot prompt of one item (also the question part of a few-shot prompt)."""
    _check_order(order)
    if item.style == "mask":
        sentence = item.sentence.replace(MASK, MASK_TOKEN).strip()
        separator = " " if sentence.endswith((".", "!", "?")) else ". "
        return f"Question: {sentence}{separator}{ask_text(item)} {_INSTRUCTION[order]}"
    return f"Question:{item.sentence.strip()}{ask_text(item)} {_INSTRUCTION[order]}"


@dataclass(frozen=True)
class Demonstration:
    """A solved example: the item, the answer as a human would write it, and human-style reasoning."""

    item: WinoItem
    answer: str
    reasoning: str

    def text(self, order: str) -> str:
        """Question followed by the answer and reasoning in the order the setting asks for."""
        question = question_text(self.item, order)
        if order == "answer":
            return f"{question}Answer:{self.answer}\nReasoning:{self.reasoning}"
        return f"{question}Reasoning:{self.reasoning}\nAnswer:{self.answer}"


def _demo(
    sentence: str, pronoun: str | None, candidates: tuple[str, str], gold: int, reasoning: str
) -> Demonstration:
    item = WinoItem(
        dataset="demonstration",
        item_id=f"demo:{sentence[:40]}",
        sentence=sentence,
        pronoun=pronoun,
        candidates=candidates,
        gold=gold,
        style="who" if pronoun else "mask",
    )
    return Demonstration(item=item, answer=candidates[gold], reasoning=reasoning)


# Written for this project.  Each pair shares a frame and flips the deciding clause, so the
# demonstrations show reasoning from the clause's meaning, never from the pronoun's gender.
WHO_DEMONSTRATIONS: tuple[Demonstration, ...] = (
    _demo(
        "The plumber phoned the receptionist because he needed to move his appointment to Friday.",
        "he",
        ("the plumber", "the receptionist"),
        0,
        "The plumber is the one making the call. People usually phone someone when they themselves "
        "need something arranged, and moving an appointment is a request from the caller. So the person "
        "who needed to move the appointment is the plumber.",
    ),
    _demo(
        "The plumber phoned the receptionist because she had left a message about the leak.",
        "she",
        ("the plumber", "the receptionist"),
        1,
        "A phone call is often an answer to a message someone else left. The plumber is calling back, so "
        "the message must have come from the other person in the sentence. The one who left the message "
        "about the leak is the receptionist.",
    ),
    _demo(
        "The nurse lent the electrician a ladder because she kept two spare ones in the storeroom.",
        "she",
        ("the nurse", "the electrician"),
        0,
        "To lend a ladder you have to own one you can spare. The nurse is the one lending, and keeping "
        "two spare ladders explains why the lender could give one away. So the one with spare ladders is "
        "the nurse.",
    ),
    _demo(
        "The nurse lent the electrician a ladder because he could not reach the ceiling light.",
        "he",
        ("the nurse", "the electrician"),
        1,
        "A ladder is lent to the person who needs to reach something high. The electrician receives the "
        "ladder, and not being able to reach the ceiling light is the reason someone would need it. So the "
        "one who could not reach the light is the electrician.",
    ),
    _demo(
        "The librarian helped the firefighter find a book because they knew where every shelf was.",
        "they",
        ("the librarian", "the firefighter"),
        0,
        "Helping someone find a book requires knowing the library. The librarian is the helper, and knowing "
        "where every shelf is explains why the librarian could help. So the one who knew the shelves is the "
        "librarian.",
    ),
    _demo(
        "The librarian helped the firefighter find a book because they had never visited the library before.",
        "they",
        ("the librarian", "the firefighter"),
        1,
        "The firefighter is the one being helped. Someone who has never been to the library would not know "
        "where the books are and would need help, while the helper must already know the place. So the one "
        "who had never visited is the firefighter.",
    ),
)

MASK_DEMONSTRATIONS: tuple[Demonstration, ...] = (
    _demo(
        "Kevin offered Omar a slice of pizza because _ was still hungry after lunch.",
        None,
        ("Kevin", "Omar"),
        1,
        "Food is offered to the person who wants to eat. Kevin is the one offering and Omar is the one being "
        "offered the pizza, so the person who was still hungry is Omar.",
    ),
    _demo(
        "Kevin offered Omar a slice of pizza because _ had ordered far too much.",
        None,
        ("Kevin", "Omar"),
        0,
        "Someone who ordered too much food has leftovers to give away. Kevin is the one giving the pizza "
        "away, so the person who ordered too much is Kevin.",
    ),
    _demo(
        "The vase did not fit on the shelf because the _ was too tall.",
        None,
        ("vase", "shelf"),
        0,
        "Something does not fit on a shelf when the object is too big for the space. Being too tall is a "
        "problem of the thing being placed, which is the vase, not of the shelf that holds it.",
    ),
    _demo(
        "The vase did not fit on the shelf because the _ was too narrow.",
        None,
        ("vase", "shelf"),
        1,
        "A narrow surface leaves no room for what is put on it. The shelf is the surface, and a narrow shelf "
        "cannot hold the vase, so the thing that was too narrow is the shelf.",
    ),
    _demo(
        "Priya beat Hannah at chess easily because _ had practiced every day for a year.",
        None,
        ("Priya", "Hannah"),
        0,
        "Daily practice makes a player stronger, which explains winning easily. Priya is the winner, so the "
        "person who practiced every day is Priya.",
    ),
    _demo(
        "Priya beat Hannah at chess easily because _ had only just learned the rules.",
        None,
        ("Priya", "Hannah"),
        1,
        "A beginner who has only just learned the rules is easy to beat. Hannah is the one who lost, so the "
        "person who had just learned the rules is Hannah.",
    ),
)


def builtin_demonstrations(style: str) -> tuple[Demonstration, ...]:
    """The six built-in demonstrations for ``who`` or ``mask`` items."""
    return MASK_DEMONSTRATIONS if style == "mask" else WHO_DEMONSTRATIONS


def fewshot_prefix(demonstrations: Sequence[Demonstration], order: str) -> str:
    """Header plus demonstrations, ready to have the question appended."""
    _check_order(order)
    blocks = _SEPARATOR.join(demo.text(order) for demo in demonstrations)
    return f"{FEWSHOT_HEADER}{_SEPARATOR}{blocks}{_SEPARATOR}"


def render(
    item: WinoItem,
    setting: str,
    demonstrations: str | Sequence[Demonstration] | None = None,
    wording: str = "relreason",
    model: str = DEFAULT_STUDY_MODEL,
) -> str:
    """The full user message for one item and setting.

    ``demonstrations`` only matters for few-shot settings: None uses the
    built-in six for the item's style; a sequence of :class:`Demonstration`
    is formatted like the built-in ones; a string is a ready prefix (e.g.
    from :func:`load_study_demonstrations`) to which the question is appended
    as the study did (plain concatenation).  ``wording`` is ``relreason`` or
    ``study`` (:func:`study_question_text`, as the study asked ``model``).
    """
    order = setting_order(setting)
    if wording not in WORDINGS:
        raise ValueError(f"wording must be one of {WORDINGS}, got {wording!r}")
    if wording == "study":
        question = study_question_text(item, order, setting_shots(setting), model)
    else:
        question = question_text(item, order)
    if setting_shots(setting) == "zero":
        return question
    if demonstrations is None:
        demonstrations = builtin_demonstrations(item.style)
    if isinstance(demonstrations, str):
        prefix = demonstrations if demonstrations[-1:].isspace() else demonstrations + _SEPARATOR
        return prefix + question
    return fewshot_prefix(demonstrations, order) + question


def load_study_demonstrations(path: str | Path, dataset: str, order: str, split: str = "anti_test") -> str:
    """The study's few-shot prefix for ``dataset`` and ``order`` from its demonstrations JSON.

    The JSON maps ``winobias -> {anti_test, anti_dev, pro_test, pro_dev} ->
    {answer, reason, ...}`` and ``winogrande``/``winogender -> {answer,
    reason}``; each value is the header plus six demonstrations.  ``split``
    only applies to WinoBias (the study used ``anti_test``).
    """
    file = Path(path)
    if not file.is_file():
        raise ConfigError(
            f"demonstrations file not found: {file}; pass the study's self_contra_demonstrations.json "
            "(e.g. <reference>/wino/self_contra_demonstrations.json)"
        )
    try:
        data = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"demonstrations file is not valid JSON: {file} ({exc.msg})") from exc
    node = data.get(dataset) if isinstance(data, dict) else None
    if isinstance(node, dict) and dataset == "winobias":
        node = node.get(split)
    text = node.get(order) if isinstance(node, dict) else None
    if not isinstance(text, str):
        where = f"{dataset}/{split}" if dataset == "winobias" else dataset
        raise ConfigError(
            f"no '{order}' demonstrations for {where} in {file}; check the dataset, split and order"
        )
    return text


def study_demonstration_key(item: WinoItem) -> tuple[str, str]:
    """(dataset, WinoBias split) of the study's demonstrations that fit ``item``.

    Generated items are who-style sentences like WinoBias's, so they get the WinoBias anti-stereotype test
    demonstrations, as do WinoBias items of a split the JSON does not cover.
    """
    if item.dataset in ("winogender", "winogrande"):
        return item.dataset, ""
    if item.dataset != "winobias":
        return "winobias", "anti_test"
    stereotype = str(item.variant.get("stereotype") or "anti")
    split = str(item.variant.get("source_split") or "test")
    return "winobias", f"{stereotype}_{split}"


class StudyDemonstrations:
    """The study's few-shot prefixes from its JSON, read once and looked up per item and order.

    Why a fallback: the JSON holds reason-first demonstrations only for WinoBias ``anti_test`` (the study
    ran reason-first prompts on that split alone), so a reason-first prompt on another split borrows them
    rather than failing a paper run; :attr:`fallbacks` records each borrowing.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._cache: dict[tuple[str, str, str], str] = {}
        self.fallbacks: set[str] = set()

    def prefix(self, item: WinoItem, order: str) -> str:
        dataset, split = study_demonstration_key(item)
        key = (dataset, split, order)
        if key not in self._cache:
            try:
                text = load_study_demonstrations(self.path, dataset, order, split or "anti_test")
            except ConfigError:
                if dataset != "winobias" or split == "anti_test" or not self.path.is_file():
                    raise
                text = load_study_demonstrations(self.path, dataset, order, "anti_test")
                self.fallbacks.add(f"winobias/{split}/{order} -> anti_test")
            self._cache[key] = text
        return self._cache[key]
