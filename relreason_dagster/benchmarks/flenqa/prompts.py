"""The study's prompts (Appendix D.1), normal and CoT per task, and the §5 next-word prompt.

Texts are reproduced as printed, including the unbalanced quote in the
Ruletaker prompts (``"True or "False"``) and the typographic quotes around
’true’ / ’false’, so that results stay comparable with the study's.

Two layouts (profile knob ``layout``):

- ``relreason`` (the default; every stored prompt's): the paper's wording with a blank line between
  its parts, the Ruletaker statement in double quotes.
- ``study`` (the ``paper`` profile's): the layout of the study's analysis notebook
  (alonj/Same-Task-More-Tokens, ``FLenQA analysis.ipynb``, code cell 5, ``prompt_structures``): its
  parts on single lines, the statement unquoted, the MonoRel text on a line of its own, the PIR CoT
  closing sentence broken after "way to", "Let's" with a straight apostrophe in the Ruletaker CoT prompt,
  and a final newline.  A released row's prompt is then the notebook's byte for byte: its rule goes in
  as the notebook's f-string prints the released value (``study_rule``: a list prints as Python prints
  a list).
"""

from __future__ import annotations

import re
from typing import Literal

from relreason_dagster.benchmarks.flenqa.instances import MONOREL, PIR, RULETAKER

TEMPLATE_VERSION = "flenqa-appD-1"
STUDY_TEMPLATE_VERSION = "flenqa-notebook-1"
Layout = Literal["study", "relreason"]
STUDY_LAYOUT: Layout = "study"
RELREASON_LAYOUT: Layout = "relreason"
LAYOUTS: tuple[str, ...] = (STUDY_LAYOUT, RELREASON_LAYOUT)
DIRECT, COT, NEXT_WORD = "direct", "cot", "next_word"
SETTINGS: tuple[str, ...] = (DIRECT, COT, NEXT_WORD)
REASONING_SETTINGS: tuple[str, ...] = (DIRECT, COT)

_STEP = "Let’s work this out in a step by step way to be sure we have the right answer."

_TEMPLATES: dict[tuple[str, str], str] = {
    (RULETAKER, DIRECT): (
        "Answer whether the statement {statement} can be derived from the rule and the facts. "
        'Answer with either "True" or "False".\n\nRule: {rule}\n\nFacts: {text}\n\n'
        'Answer with either "True or "False".'
    ),
    (RULETAKER, COT): (
        "Answer whether the statement {statement} can be derived from the rule and the facts.\n\n"
        'Show your steps then answer with either "True" or "False".\n\nRule: {rule}\n\nFacts: {text}\n\n'
        'Answer with either "True or "False". ' + _STEP
    ),
    (PIR, DIRECT): "{text}\n\nTrue/False Question: {question}\n\nAnswer only True or False.",
    (PIR, COT): (
        "Show your steps then answer with ’true’ or ’false’.\n\n{text}\n\n"
        "True/False Question: {question}\n\n" + _STEP
    ),
    (MONOREL, DIRECT): (
        "Here are some facts. Answer the exact following question based on the text: {question} "
        "Answer the question as it appears exactly. {text}\n\n{question}\n\nAnswer only True or False."
    ),
    (MONOREL, COT): (
        "Here are some facts. Answer the exact following question based on the text: {question} "
        "Answer the question as it appears exactly.\n\n"
        "Show your steps then answer with ’true’ or ’false’.\n\n"
        "{text}\n\n{question}\n\n" + _STEP + " Show your work and finally answer with ’true’ or ’false’. "
        "The final step should include the exact text of the question and the answer."
    ),
}

# The notebook's layout (code cell 5): single newlines, no quotes around the statement, a final newline.
_STUDY_TEMPLATES: dict[tuple[str, str], str] = {
    (RULETAKER, DIRECT): (
        "Answer whether the statement {statement} can be derived from the rule and the facts. "
        'Answer with either "True" or "False".\nRule: {rule}\nFacts: {text}\n'
        'Answer with either "True or "False".\n'
    ),
    (RULETAKER, COT): (
        "Answer whether the statement {statement} can be derived from the rule and the facts.\n"
        'Show your steps then answer with either "True" or "False".\nRule: {rule}\nFacts: {text}\n'
        'Answer with either "True or "False". '
        "Let's work this out in a step by step way to be sure we have the right answer.\n"
    ),
    (PIR, DIRECT): "{text}\nTrue/False Question: {question}\nAnswer only True or False.\n",
    (PIR, COT): (
        "Show your steps then answer with ’true’ or ’false’.\n{text}\n"
        "True/False Question: {question}\n"
        "Let’s work this out in a step by step way to\nbe sure we have the right answer.\n"
    ),
    (MONOREL, DIRECT): (
        "Here are some facts. Answer the exact following question based on the text: {question} "
        "Answer the question as it appears exactly.\n{text}\n{question}\nAnswer only True or False.\n"
    ),
    (MONOREL, COT): (
        "Here are some facts. Answer the exact following question based on the text: {question} "
        "Answer the question as it appears exactly.\n"
        "Show your steps then answer with ’true’ or ’false’.\n"
        "{text}\n{question}\n" + _STEP + " Show your work and finally answer with ’true’ or ’false’. "
        "The final step should include the exact text of the question and the answer.\n"
    ),
}

# §5: the same texts without the question; the answer is the text's next (here: last) word.
NEXT_WORD_TEMPLATE = (
    "Continue the following text with its next word. Reply with that one word only.\n\n{text}"
)


def template_version(layout: str) -> str:
    """The prompts' ``template_version`` in ``layout``."""
    return STUDY_TEMPLATE_VERSION if layout == STUDY_LAYOUT else TEMPLATE_VERSION


def render(
    task: str, setting: str, text: str, question: str, rule: str = "", layout: str = RELREASON_LAYOUT
) -> str:
    """The user message of ``setting`` for one instance whose padded facts are ``text``, in ``layout``
    (the next-word prompt, not the notebook's, is the same in both)."""
    if setting == NEXT_WORD:
        return NEXT_WORD_TEMPLATE.format(text=text)
    if layout == STUDY_LAYOUT:
        template = _STUDY_TEMPLATES[(task, setting)]
        return template.format(text=text, question=question, statement=question, rule=rule)
    template = _TEMPLATES[(task, setting)]
    return template.format(text=text, question=question, statement=f'"{question}"', rule=rule)


_LAST_WORD = re.compile(r"\w+(?:['’-]\w+)*")


def split_last_word(text: str) -> tuple[str, str]:
    """``text`` up to its last word, and that word (the next-word gold; trailing punctuation dropped).

    Only the text's tail is scanned (a 128k-token text is half a megabyte): once the tail holds two
    words, the scan of the tail and of the whole text agree from the tail's second word on (the first
    may be the end of a longer word), so its last word is the whole text's.
    """
    window = 256
    while True:
        start = max(0, len(text) - window)
        matches = list(_LAST_WORD.finditer(text, start))
        if len(matches) >= 2 or start == 0:
            break
        window *= 4
    if not matches:
        return text, ""
    last = matches[-1]
    return text[: last.start()].rstrip(), last.group(0)
