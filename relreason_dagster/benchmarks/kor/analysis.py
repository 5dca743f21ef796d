"""KOR-Bench §5's readings of a response: how it is written, which way an Operation question asks,
and what kind of mistake a wrong Cipher answer is.

§5 ("Reasoning Process Performance", "Single Task Analysis") describes three things the paper reads off
its models' responses without a table: larger models reason visibly (chain of thought) while smaller
ones answer with the bare answer, small models answer Cipher questions with a placeholder ("Hello
World") and no reasoning; models do worse on Operation questions with unknowns (inverse: "If X※14=5,
find X.") than on forward computation; Cipher errors concentrate in Position Mapping, Transpose
Writing, Mathematical Calculation, Split Connection and Multi-Step Execution.  These functions turn
each into a label per response, so the marts can count them per model and category (for a run's
models and for the study's own released responses alike).  Plain functions: no Dagster, linear in
the text, never raising on model output.

*Decided where the paper is silent:* §5 gives no rule for any of the three labels, so the rules are
ours and stated here; each is tested on scripted answers and measured on the released files (README).
"""

from __future__ import annotations

import re

from relreason_dagster.benchmarks.kor.data import KorItem
from relreason_dagster.benchmarks.kor.parsing import MAX_EXTRACT_CHARS, as_text, normalize_escapes

# Response styles (§5, "Reasoning Process Performance").
REASONING = "reasoning"  # the answer comes with visible reasoning (steps, explanations)
ANSWER_ONLY = "answer_only"  # the bare answer, at most a short phrase around it
PLACEHOLDER = "placeholder"  # a stand-in, not an attempt: "Hello World", the template's "[[your answer]]"
EMPTY = "empty"  # nothing at all
STYLES: tuple[str, ...] = (REASONING, ANSWER_ONLY, PLACEHOLDER, EMPTY)

# Words outside the answer brackets from which a response counts as reasoning visibly.  Measured on the
# 3,750 released responses (3 models x 5 categories): 1,197 have fewer than 5 such words ("The answer
# is [[X]]."), 32 have 5-19, and the rest 20 or more, so the cut sits in the sparse gap.
REASONING_MIN_WORDS = 20

# Answers that are a placeholder whatever the question (§5: small models answer Cipher questions with
# "Hello World"), compared on their letters only, lower-case: HELLO WORLD, HelloWorld, hello.
_PLACEHOLDER_WORDS = frozenset({"helloworld", "hello", "world"})
# The official templates' format examples ("like this: [[your answer]]"), as their letters.
_TEMPLATE_WORDS = frozenset(
    {"youranswer", "answer", "yourfinalanswer", "encryptedanswer", "decryptedanswer", "word1word2", "number"}
)
_WORD_RE = re.compile(r"\w+")
_LETTERS_RE = re.compile(r"[^a-z]")

# Operation directions (§5, "Single Task Analysis": unknowns vs forward computation).
FORWARD = "forward"
INVERSE = "inverse"
# "If X※14=5, find X.", "... Find Y", "solve x and y." -- a single-letter unknown asked for; "find the
# value of f△g when x=1" is a forward computation.  Generated inverse questions read "If ..., find X."
# (operations.py), so one rule serves both sources.
_INVERSE_RE = re.compile(
    r"\b(?:find|solve)\s+[A-Za-z](?:\s*(?:,|and)\s*[A-Za-z])*\s*(?:[.?,;:]|$)", re.IGNORECASE | re.MULTILINE
)

# Cipher error types of a wrong answer (§5, "Single Task Analysis"), each an observable relation between
# the answer and the gold; the §5 error each is evidence of is in the README's mart table.
CIPHER_ERRORS: tuple[str, ...] = (
    "no_answer",  # nothing extracted
    "placeholder",  # Hello World or the template's example
    "echo",  # the question's given text returned unchanged: no step executed
    "format",  # the right symbols written otherwise (case, spaces, separators)
    "transposed",  # the right symbols in another order: position mapping / transpose writing
    "substituted",  # as many symbols as the gold, some wrong: a mapping or calculation slip per symbol
    "length",  # symbols lost or added: a split / connection or a whole step gone wrong
)
# Numbers (RSA, XOR blocks) are one symbol each; letters and other marks one per character.
_SYMBOL_RE = re.compile(r"\d+|[^\W\d_]|[#*@$%&]")
_QUOTED_RE = re.compile(r"\"([^\"\n]{1,2000})\"|“([^”\n]{1,2000})”")


def _outside_answers(text: str) -> str:
    """``text`` without its ``[[...]]`` and ``\\boxed{...}`` spans (linear: one pass per kind)."""
    text = normalize_escapes(text)
    out: list[str] = []
    pos = 0
    while True:
        start = text.find("[[", pos)
        end = text.find("]]", start + 2) if start >= 0 else -1
        if start < 0 or end < 0:
            out.append(text[pos:])
            break
        out.append(text[pos:start])
        pos = end + 2
    return re.sub(r"\\boxed\s*\{[^{}]{0,500}\}", " ", "".join(out))


def reasoning_words(text: object) -> int:
    """Words of the response outside its answer brackets (on at most the last ``MAX_EXTRACT_CHARS``)."""
    return len(_WORD_RE.findall(_outside_answers(as_text(text)[-MAX_EXTRACT_CHARS:])))


def _letters(text: str) -> str:
    return _LETTERS_RE.sub("", text.lower())


def is_placeholder(text: object, answer: str | None, gold: str) -> bool:
    """The response answers with a stand-in: a "Hello World" answer that is not the gold, or no answer
    but the template's own example (``[[your answer]]``, which extraction skips)."""
    if answer is not None:
        return _letters(answer) in _PLACEHOLDER_WORDS and _letters(answer) != _letters(gold)
    spans = re.findall(r"\[\[([^\[\]]{0,60})\]\]", normalize_escapes(as_text(text)[-MAX_EXTRACT_CHARS:]))
    return any(_letters(s) in _TEMPLATE_WORDS | _PLACEHOLDER_WORDS for s in spans)


def response_style(text: object, answer: str | None, gold: str) -> str:
    """One of :data:`STYLES` for a response whose extracted final answer is ``answer`` (None: none).

    In order: ``empty`` (nothing but whitespace), ``placeholder`` (:func:`is_placeholder`, whether or
    not reasoning came before it), ``reasoning`` (at least :data:`REASONING_MIN_WORDS` words outside the
    answer brackets), else ``answer_only`` (including a short reply with no bracketed answer).
    """
    raw = as_text(text)
    if not raw.strip():
        return EMPTY
    if is_placeholder(raw, answer, gold):
        return PLACEHOLDER
    return REASONING if reasoning_words(raw) >= REASONING_MIN_WORDS else ANSWER_ONLY


def operation_direction(question: str) -> str:
    """``inverse`` when an Operation question asks for an unknown (a letter), else ``forward``."""
    return INVERSE if _INVERSE_RE.search(question) else FORWARD


def _symbols(text: str) -> list[str]:
    return _SYMBOL_RE.findall(text.upper())


def _gold_text(gold: str) -> str:
    gold = gold.strip()
    return gold[2:-2] if gold.startswith("[[") and gold.endswith("]]") else gold


def cipher_error(item: KorItem, text: object, answer: str | None, correct: bool) -> str | None:
    """The :data:`CIPHER_ERRORS` type of a wrong Cipher answer; None for a right one or another category.

    ``answer`` is the extracted final answer (None: none).  Checked in the tuple's order, the first
    that holds wins: a placeholder, the question's own quoted text echoed (compared as symbols), the
    gold's symbols exactly (written differently), the gold's symbols as a multiset (reordered), as many
    symbols as the gold, else a different number of them.
    """
    if item.category != "cipher" or correct:
        return None
    gold = _gold_text(item.answer)
    if is_placeholder(text, answer, gold):
        return "placeholder"
    if answer is None:
        return "no_answer"
    ours, theirs = _symbols(answer), _symbols(gold)
    given = [_symbols(a or b) for a, b in _QUOTED_RE.findall(item.question)]
    if ours and any(ours == g for g in given) and ours != theirs:
        return "echo"
    if ours == theirs:
        return "format"
    if sorted(ours) == sorted(theirs):
        return "transposed"
    return "substituted" if len(ours) == len(theirs) else "length"
