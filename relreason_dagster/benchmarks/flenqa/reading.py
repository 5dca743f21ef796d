"""The profile knob ``reading``: which rules read a FLenQA response, the study's notebook's or relreason's.

``study`` (the ``paper`` profile's): ``study_reading.py``, the rules of the study's released analysis
notebook, so the §7 numbers (answer first, Figure 8; coverage, Figure 9) and the accuracies are read as
the study read them.  ``relreason`` (every other profile's default, and what relreason read before the
knob existed): ``parsing.py``, whose rules each differ for a stated reason (the family README).

The knob's value rides in every sample's ``variant.reading`` (the samples are rebuilt per profile), so
the parser, which sees only the sample, reads as the run's profile says, and a changed reading re-parses
the stored answers (the sample row is part of each parse key) without asking any model again.
"""

from __future__ import annotations

from typing import Any, Literal

from relreason_dagster.benchmarks.flenqa import parsing, study_reading

Reading = Literal["study", "relreason"]
STUDY: Reading = "study"
RELREASON: Reading = "relreason"
READINGS: tuple[str, ...] = (STUDY, RELREASON)
DEFAULT: Reading = RELREASON  # a sample without the key was read by relreason's rules


def of_sample(variant: dict[str, Any]) -> str:
    """The reading a sample's variant names (relreason's for one stored before the knob)."""
    value = variant.get("reading") or DEFAULT
    return value if value in READINGS else DEFAULT


def answer(text: Any, reading: str) -> bool | None:
    """True, False, or None (refused: the notebook's other/refused)."""
    if reading == STUDY:
        found = study_reading.category(text)
        return None if found == study_reading.OTHER else found == study_reading.TRUE
    return parsing.read_answer(text).value


def answer_first(text: Any, reading: str) -> bool:
    """A CoT response that gives its answer before its reasoning, by ``reading``'s rule."""
    return study_reading.answer_first(text) if reading == STUDY else parsing.answer_first(text)


def coverage(text: Any, key_sentences: list[str], reading: str) -> int:
    """How many key sentences the response reproduces, by ``reading``'s rule."""
    if reading == STUDY:
        return study_reading.coverage(text, key_sentences)
    return parsing.coverage(text, key_sentences)
