"""The study's own reading of a response, as its released analysis notebook does it (``reading: study``).

Source: ``FLenQA analysis.ipynb`` in alonj/Same-Task-More-Tokens, code cell 9 (0-based over all cells;
the cell defining ``normalize_answer``, ``response_category`` and ``response_analysis``).  Its rules,
restated here in our own code (``parsing.py`` keeps relreason's, ``reading: relreason``):

- Normalisation: lower case, the articles a/an/the (whole words) replaced by a space, whitespace
  collapsed.  Punctuation stays: the notebook's ``replace`` removes the whole punctuation alphabet only
  where it occurs as one 32-character run, which no response holds, so nothing is removed.
- Final answer: in the normalised text "not true" becomes "false"; then whichever of the substrings
  "true" / "false" occurs last decides ("not false" is therefore false, "untrue" true); neither is
  "other/refused".
- Answer first (CoT): the final answer's word occurs within the first 10 characters of the normalised
  response.
- Coverage (CoT): a key sentence counts when its normalised form is a substring of the normalised
  response (no word boundary, punctuation kept).

Linear-time string searches over at most ``MAX_CHARS`` characters, as ``parsing.py``.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from relreason_dagster.benchmarks.flenqa.parsing import MAX_CHARS

TRUE, FALSE, OTHER = "true", "false", "other/refused"
Category = Literal["true", "false", "other/refused"]
EARLY_CHARS = 10  # the notebook's answer-first window, in characters of the normalised response

_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize(text: Any) -> str:
    """The notebook's ``normalize_answer``: lower case, articles out, whitespace collapsed."""
    return " ".join(_ARTICLES.sub(" ", str(text).lower()).split())


def category(text: Any) -> Category:
    """The notebook's ``response_category`` of a response: true, false or other/refused."""
    if not isinstance(text, str):
        return OTHER
    answer = normalize(text[-MAX_CHARS:]).replace("not true", "false")
    last_true, last_false = answer.rfind(TRUE), answer.rfind(FALSE)
    if last_true > last_false:
        return TRUE
    if last_false > last_true:
        return FALSE
    return OTHER


def answer_first(text: Any) -> bool:
    """The notebook's ``early_response``: the final answer's word in the first 10 normalised characters."""
    if not isinstance(text, str):
        return False
    found = category(text)
    return found != OTHER and found in normalize(text[:MAX_CHARS])[:EARLY_CHARS]


def coverage(text: Any, key_sentences: list[str]) -> int:
    """The notebook's ``cot_coverage``: key sentences whose normalised form is in the normalised response."""
    if not isinstance(text, str):
        return 0
    haystack = normalize(text[:MAX_CHARS])
    return sum(1 for s in key_sentences if normalize(s) in haystack)
