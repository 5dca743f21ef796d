"""Read a Wino-style response: split the answer from the reasoning, map the answer to a candidate.

Real model text is messy ("Answer: The janitor is 'he'.", "Answer:[Answer]:
The chief", "'He' refers to the accountant", a restated sentence, a refusal,
``</s>``), and the self-contradiction analysis needs the answer and the
reasoning as separate pieces: the answer is scored, the reasoning is judged
and probed (:func:`strip_conclusion` for the I+R->O probe).  Nothing here
raises on model text; an answer that names no candidate, hedges, or names
both without a cue is ``None`` / ``"unparsed"``.

Answer-mapping rule (:func:`map_answer`), first that applies wins:

1. Empty text -> None.  A hedge ("not possible to determine", "ambiguous",
   "could refer to either", ...) -> None unless it still says which one is
   "more/most likely".
2. Exactly one candidate named -> that one, or the *other* one when a
   mention of it is negated ("not the janitor", "cannot refer to the chief").
3. Both named:
   a. the text opens with a bare candidate ("The janitor, because ...",
      "Maria.") -> that one;
   b. an explicit referent statement, earliest in the text, not negated:
      "<pronoun> refers to X", "refers to X", "<pronoun> is X", "X is
      <pronoun>", "X is the one who", "the answer is X", "which is X",
      "most likely X";
   c. one candidate negated ("not X", "rather than X", "instead of X") ->
      the other;
   d. a restated sentence: the first candidate after the last clause opener
      ("because", "since", "so", "that", ...) - the sentence with its pronoun
      resolved ("... because the accountant made a mistake");
   e. otherwise None.
Copies of the item's own sentence are removed first (when given), because
"In the sentence 'The janitor reprimanded the accountant ...', 'he' refers to
the accountant" would otherwise name both for no reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from relreason_dagster.benchmarks.selfcontra.items import MASK, WinoItem

# The most characters of one response the readers look at (its start and its end); a Wino
# answer with its reasoning is a few hundred.
MAX_CHARS = 16_000

_SPECIAL_TOKENS_RE = re.compile(
    r"</?s>|\[/?INST\]|<\|[^|>]{0,40}\|>|<end_of_turn>|<start_of_turn>|<eos>|<bos>"
)
# A label at the start of a line: "Answer:", "**Answer:**", "Answer:[Answer]:", "Reasoning :", "Answer" alone.
_LINE_LABEL_RE = re.compile(
    r"^[ \t]*[*#>_\-]*[ \t]*(answer|reasoning|reason|explanation)[ \t]*\**[ \t]*(?::|(?=[ \t]*\n)|$)",
    re.IGNORECASE | re.MULTILINE,
)
# Fallback when no line-start label exists: a capitalised label anywhere ("... in the end. Answer: X").
_INLINE_LABEL_RE = re.compile(r"\b(Answer|ANSWER|Reasoning|REASONING)\s*:")
_PLACEHOLDER_RE = re.compile(r"^\s*\**\s*\[\s*(answer|reasoning)\s*\]\s*:?", re.IGNORECASE)
# Sentence ends: after . ! ? (optionally followed by a closing quote/bracket) plus space, or a newline.
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[.!?][\"')\]])\s+|(?<=[.!?])\s+|\n+")

_HEDGE_RE = re.compile(
    r"not possible to (?:determine|tell|know|say)|impossible to (?:determine|tell|know|say)"
    r"|(?:cannot|can ?not|can't|unable to) (?:be )?(?:determine|tell|know|say|be determined|decide)"
    r"|\bunclear\b|\bambiguous\b|\bambiguity\b|could (?:refer to|be) either|can (?:refer to|be) either"
    r"|either (?:one|of them|could)|not (?:clear|specified|enough information)|insufficient information"
    r"|without (?:further|more|additional) (?:context|information)|does not specify|doesn't specify"
    r"|^\W*both\b|^\W*(?:none|neither|unknown|n/?a)\W*$",
    re.IGNORECASE,
)
_NEGATION_BEFORE_RE = re.compile(r"(?:\bnot|n't|\bnever|\bno)\s*(?:\w+\s+){0,2}$", re.IGNORECASE)
_CLAUSE_OPENER_RE = re.compile(
    r"\b(because|since|so that|so|that|as|but|after|when|while|if|until|though|although)\b", re.IGNORECASE
)
_CONCLUSION_START_RE = re.compile(
    r"^\W*(therefore|thus|hence|so|consequently|in conclusion|in summary|overall|this means|"
    r"this suggests|this indicates|it can be inferred|we can infer|we can conclude|based on this)\b",
    re.IGNORECASE,
)
_REFERENCE_VERB_RE = re.compile(
    r"\b(refers? to|referred to|referring to|it can be inferred that)\b", re.IGNORECASE
)
_ARTICLE_RE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class WinoAnswer:
    """A parsed response: the candidate index it names (or None) and its two parts."""

    status: str  # "ok" | "unparsed"
    index: int | None
    answer_text: str
    reasoning: str
    source: str = "answer"  # answer | answer_other | reasoning | none: where the index came from


# --------------------------------------------------------------------------- splitting


def clean_text(text: str) -> str:
    """Model text without chat/special tokens (``</s>``, ``[/INST]``...) and with straight quotes.

    Text longer than ``MAX_CHARS`` keeps its first and last ``MAX_CHARS // 2``
    characters (an answer-first response answers at the start, a reason-first
    one at the end).  Every reader here starts from this function, so none
    ever sees more than that: the sentence-by-sentence mapping would
    otherwise take minutes on a megabyte of text.
    """
    text = text or ""
    if len(text) > MAX_CHARS:
        half = MAX_CHARS // 2
        text = text[:half] + "\n...\n" + text[-half:]
    text = _SPECIAL_TOKENS_RE.sub("", text)
    return (
        text.replace("\u2018", "'")
        .replace("\u2019", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
        .replace("\r\n", "\n")
    )


def _labels(text: str) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of answer/reasoning labels; line-start ones, else inline ones."""
    found = [
        ("answer" if m.group(1).lower() == "answer" else "reasoning", m.start(), m.end())
        for m in _LINE_LABEL_RE.finditer(text)
    ]
    kinds = {kind for kind, _, _ in found}
    for m in _INLINE_LABEL_RE.finditer(text):
        kind = "answer" if m.group(1).lower() == "answer" else "reasoning"
        if kind not in kinds and not any(s <= m.start() < e for _, s, e in found):
            found.append((kind, m.start(), m.end()))
    return sorted(found, key=lambda label: label[1])


def _tidy(part: str) -> str:
    """A part without its format placeholder ("[Answer]:"), markdown stars and outer whitespace."""
    part = _PLACEHOLDER_RE.sub("", part)
    return part.strip().strip("*").strip()


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_SPLIT_RE.split(text) if s and s.strip()]


def _first_line(text: str) -> tuple[str, str]:
    stripped = text.strip()
    if "\n" in stripped:
        head, rest = stripped.split("\n", 1)
        return head, rest
    return stripped, ""


def split_response(text: str, order: str) -> tuple[str, str]:
    """``(answer part, reasoning part)`` of a response to an answer-first or reason-first prompt.

    Labels ("Answer:", "Reasoning:") are trusted when present.  Answer-first
    takes the *first* answer label (later ones are usually restatements);
    reason-first takes the *last* (the study's format puts it at the end).
    Without an answer label, answer-first reads the text before the
    reasoning label (or, with no labels at all, the first sentence) and
    reason-first the last sentence; the reasoning is the rest.  ``order`` is
    ``answer`` or ``reason`` (anything else reads as reason-first).
    """
    text = clean_text(text).strip()
    if not text:
        return "", ""
    labels = _labels(text)
    answers = [label for label in labels if label[0] == "answer"]
    reasons = [label for label in labels if label[0] == "reasoning"]

    def segment(label: tuple[str, int, int]) -> str:
        following = [other for other in labels if other[1] > label[1]]
        end = following[0][1] if following else len(text)
        return text[label[2] : end]

    if order == "answer":
        if answers:
            first = answers[0]
            answer_part = segment(first)
            after = [r for r in reasons if r[1] > first[1]]
            if after:
                later_answers = [a for a in answers if a[1] > after[0][1]]
                end = later_answers[0][1] if later_answers else len(text)
                reasoning = text[after[0][2] : end]
            elif reasons:
                reasoning = segment(reasons[0])
            else:
                # No reasoning label: the answer is its first line, the reasoning what follows.
                answer_part, reasoning = _first_line(_tidy(answer_part))
            return _tidy(answer_part), _tidy(reasoning)
        if reasons:
            return _tidy(text[: reasons[0][1]]), _tidy(text[reasons[0][2] :])
        # No labels at all: the answer is the first sentence.
        parts = _SENTENCE_SPLIT_RE.split(text, maxsplit=1)
        return _tidy(parts[0]), _tidy(parts[1] if len(parts) > 1 else "")

    if answers:
        last = answers[-1]
        answer_part = segment(last)
        before = [r for r in reasons if r[1] < last[1]]
        if before:
            reasoning = text[before[0][2] : last[1]]
        else:
            reasoning = text[: last[1]]
        return _tidy(answer_part), _tidy(reasoning)
    body = text[reasons[0][2] :] if reasons else text
    sentences = _sentences(body)
    if not sentences:
        return "", ""
    answer_part = sentences[-1]
    reasoning = body[: body.rfind(answer_part)] if answer_part in body else " ".join(sentences[:-1])
    return _tidy(answer_part), _tidy(reasoning)


# --------------------------------------------------------------------------- mapping


def _head(candidate: str) -> str:
    return _ARTICLE_RE.sub("", candidate.strip()).lower()


def _normalise(text: str) -> str:
    text = clean_text(text).lower()
    text = re.sub(r"\[\s*(answer|reasoning)\s*\]\s*:?", " ", text)
    text = text.replace("*", " ").replace("`", " ")
    # "[Ian]" -> "Ian": the study's placeholder taught some models to keep the brackets.
    text = re.sub(r"\[(?!mask\])([^\[\]]{1,60})\]", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


def _mentions(text: str, candidates: tuple[str, str]) -> list[tuple[int, int, int]]:
    """``(start, end, index)`` of every candidate mention.

    Longer heads are matched first so "worker" never matches inside "construction worker".
    """
    heads = [_head(c) for c in candidates]
    claimed: list[tuple[int, int]] = []
    found: list[tuple[int, int, int]] = []
    for index in sorted(range(2), key=lambda i: len(heads[i]), reverse=True):
        if not heads[index]:
            continue
        pattern = re.compile(rf"(?<![\w-])(?:(?:the|a|an)\s+)?{re.escape(heads[index])}(?![\w-])")
        for m in pattern.finditer(text):
            if any(s < m.end() and m.start() < e for s, e in claimed):
                continue
            claimed.append((m.start(), m.end()))
            found.append((m.start(), m.end(), index))
    return sorted(found)


def _pronoun_pattern(pronoun: str | None) -> str:
    forms = [r"\[mask\]", r"mask", r"_", r"the blank", r"the pronoun", r"the word"]
    if pronoun:
        forms.insert(0, rf"(?:the pronoun\s+)?['\"]?{re.escape(pronoun.lower())}['\"]?")
    return "(?<![\\w'\"])(?:" + "|".join(forms) + ")"


def _explicit_templates(pronoun: str | None) -> list[str]:
    """Regex sources whose group ``x`` is the referent a statement asserts; ``{X}`` becomes a candidate."""
    pron = _pronoun_pattern(pronoun)
    art = r"(?:the\s+|a\s+|an\s+)?"
    hedge = r"(?:most\s+likely\s+|more\s+likely\s+|likely\s+|probably\s+|clearly\s+|actually\s+)?"
    return [
        rf"(?:refers?|referring|referred|refer)\s+(?:back\s+)?to\s+{hedge}(?P<x>{art}{{X}})",
        rf"{pron}\W{{0,2}}\s+(?:is|was|would be|must be|should be|could be|=)\s+{hedge}(?P<x>{art}{{X}})",
        rf"(?P<x>{art}{{X}})\W{{0,2}}\s+(?:is|was)\s+(?:the one\s+)?(?:referred to as\s+)?{pron}(?!\w)",
        rf"(?P<x>{art}{{X}})\s+(?:is|was)\s+(?:the one|the person|the individual|the only one)\s+who",
        rf"(?:answer|it)\s+(?:is|would be)\s+{hedge}(?P<x>{art}{{X}})",
        rf"(?:which|who|that)\s+(?:is|would be)\s+{hedge}(?P<x>{art}{{X}})",
        rf"(?:most|more)\s+likely\s+(?:to be\s+|refers to\s+|referring to\s+)?(?P<x>{art}{{X}})",
    ]


def _explicit_referent(text: str, candidates: tuple[str, str], pronoun: str | None) -> int | None:
    """The candidate of the earliest non-negated explicit referent statement in ``text``."""
    best: tuple[int, int] | None = None
    heads = [_head(c) for c in candidates]
    for template in _explicit_templates(pronoun):
        for index in (0, 1):
            if not heads[index]:
                continue
            # Not followed by a word character or a possessive: "he is the janitor's colleague" names no one.
            pattern = re.compile(template.replace("{X}", re.escape(heads[index])) + r"(?![\w-]|'s\b)")
            for m in pattern.finditer(text):
                # "does not refer to the janitor": a negated statement asserts nothing.
                if _NEGATION_BEFORE_RE.search(text[max(0, m.start() - 30) : m.start()]):
                    continue
                # The other candidate's longer head ("construction worker" vs "worker").
                other = heads[1 - index]
                if (
                    other != heads[index]
                    and heads[index] in other
                    and other in text[m.start("x") - 20 : m.end()]
                ):
                    continue
                if best is None or m.start() < best[0]:
                    best = (m.start(), index)
                break
    return best[1] if best else None


def _negated(text: str, start: int) -> bool:
    """Whether the mention at ``start`` is denied: "not the janitor", "cannot refer to the chief"..."""
    before = text[max(0, start - 40) : start]
    return bool(
        re.search(
            r"(?:(?:\bnot|n't|\bcannot|\bnever)\s+(?:be\s+|refer\s+to\s+|referring\s+to\s+|mean\s+)?"
            r"|rather than\s+|instead of\s+|\bthan\s+)$",
            before,
        )
    )


def _remove_sentence(text: str, sentence: str | None) -> str:
    if not sentence:
        return text
    core = _normalise(sentence.replace(MASK, "[mask]")).rstrip(".!? ")
    if len(core) < 12:
        return text
    return text.replace(core, " ")


def map_answer(
    answer_text: str, candidates: tuple[str, str], pronoun: str | None = None, *, sentence: str | None = None
) -> int | None:
    """Candidate index the answer names, or None when undecidable (see the module docstring for the rule)."""
    try:
        return _map_answer(answer_text, candidates, pronoun, sentence)
    except Exception:  # model text must never crash a run; undecidable is the honest result
        return None


def _map_answer(
    answer_text: str, candidates: tuple[str, str], pronoun: str | None, sentence: str | None
) -> int | None:
    text = _remove_sentence(_normalise(answer_text or ""), sentence)
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return None
    if _HEDGE_RE.search(text):
        likely = re.search(r"(?:most|more) likely", text)
        if not likely:
            return None
        found = _mentions(text[likely.start() :], candidates)
        return found[0][2] if found else None
    found = _mentions(text, candidates)
    named = {index for _, _, index in found}
    if not named:
        return None
    if len(named) == 1:
        index = next(iter(named))
        # A denial anywhere ("the chief is a male title, so 'she' cannot refer to the chief") names the other.
        if any(_negated(text, start) for start, _, _ in found):
            return 1 - index
        return index
    # (a) a bare candidate opening the answer: "The janitor, because ..." / "Maria."
    first_start, first_end, first_index = found[0]
    opening = not text[:first_start].strip(" \"'([:-")
    if opening and re.match(r"\s*(?:$|[,.;:!)(\"'\-]|(?:-|because|since|as|who)\b)", text[first_end:]):
        return first_index
    # (b) explicit referent statement.
    explicit = _explicit_referent(text, candidates, pronoun)
    if explicit is not None:
        return explicit
    # (c) negation of one candidate.
    negated = {index for start, _, index in found if _negated(text, start)}
    if len(negated) == 1:
        return 1 - next(iter(negated))
    # (d) restated sentence: first candidate after the last clause opener that is followed by one.
    for opener in reversed(list(_CLAUSE_OPENER_RE.finditer(text))):
        after = [m for m in found if m[0] >= opener.end()]
        if after:
            return after[0][2]
    return None


def _answer_segments(text: str) -> list[str]:
    """Every answer-labelled segment of a response, in order."""
    text = clean_text(text)
    labels = _labels(text)
    segments = []
    for position, (kind, _start, end) in enumerate(labels):
        if kind == "answer":
            stop = labels[position + 1][1] if position + 1 < len(labels) else len(text)
            segments.append(_tidy(text[end:stop]))
    return segments


def _concluded_in(reasoning: str, item: WinoItem) -> int | None:
    """The referent the reasoning's last explicit statement asserts ("so 'he' refers to the hairdresser")."""
    for sentence in reversed(_sentences(clean_text(reasoning))):
        text = _remove_sentence(_normalise(sentence), item.sentence)
        if _HEDGE_RE.search(text):
            continue
        index = _explicit_referent(text, item.candidates, item.pronoun)
        if index is not None:
            return index
    return None


def trace_referent(trace: str | None, item: WinoItem) -> int | None:
    """The candidate a reasoning trace reaches: its last explicit referent statement, or None.

    Read for ``marts.selfcontra_trace_vs_answer`` only, never for scoring (an answer is never taken
    from the thinking).  The rule is the one :func:`read_answer` applies to a response's reasoning:
    sentences from the end, hedged ones skipped, the first that asserts a referent ("so 'he' refers
    to the accountant", "the answer is the janitor", "the janitor is 'he'") wins; a negated one
    asserts nothing.  Why the last: a trace explores ("maybe he is the janitor? no, ...") before it
    settles, and what it settles on is where it stands when the answer is written.  A mere mention
    of a candidate is no statement, so a trace that never states a referent reaches none.
    """
    try:
        return _concluded_in(trace or "", item)
    except Exception:  # see map_answer
        return None


def read_answer(text: str, item: WinoItem, order: str) -> WinoAnswer:
    """Split, map and package one response to ``item`` (``order``: ``answer`` | ``reason``).

    When the answer part names no candidate without hedging (it restates the
    sentence, or the label is empty), the other answer-labelled segments are
    tried, then the reasoning's last explicit referent statement - what a
    human reader takes as the answer (``source`` says which was used).  A
    hedged answer stays unparsed: the model declined to choose.
    """
    if order not in ("answer", "reason"):
        raise ValueError(f"order must be 'answer' or 'reason', got {order!r}")
    try:
        answer_part, reasoning = split_response(text or "", order)
        index = map_answer(answer_part, item.candidates, item.pronoun, sentence=item.sentence)
        source = "answer" if index is not None else "none"
        if index is None and not _HEDGE_RE.search(_normalise(answer_part)):
            segments = _answer_segments(text or "")
            for segment in segments if order == "answer" else reversed(segments):
                if segment == answer_part:
                    continue
                index = map_answer(segment, item.candidates, item.pronoun, sentence=item.sentence)
                if index is not None:
                    source = "answer_other"
                    break
            if index is None:
                index = _concluded_in(reasoning, item)
                source = "reasoning" if index is not None else "none"
    except Exception:  # see map_answer
        answer_part, reasoning, index, source = "", clean_text(text or "").strip(), None, "none"
    return WinoAnswer(
        status="ok" if index is not None else "unparsed",
        index=index,
        answer_text=answer_part,
        reasoning=reasoning,
        source=source,
    )


# --------------------------------------------------------------------------- conclusion stripping


def _states_referent(sentence: str, candidates: tuple[str, str], pronoun: str | None) -> bool:
    text = _normalise(sentence)
    if not _mentions(text, candidates):
        return False
    if _explicit_referent(text, candidates, pronoun) is not None:
        return True
    return bool(_REFERENCE_VERB_RE.search(text))


def strip_conclusion(reasoning: str, candidates: tuple[str, str], pronoun: str | None) -> str:
    """The reasoning without the sentences that state which candidate the pronoun is.

    For the I+R->O probe (re-ask with the question and the reasoning, see
    whether the answer follows): the reasoning must not simply hand over the
    answer.  Removed: every sentence that asserts the referent ("'he' refers
    to the accountant", "the janitor is 'he'", "it can be inferred that ...
    the accountant"), wherever it stands - the study removed every clause
    containing "refers to" / "it can be inferred that" - and a final sentence
    that opens with a conclusion marker ("Therefore", "Thus", "So", ...) and
    names a candidate.  Premises and inferences stay.
    """
    try:
        kept = [s for s in _sentences(clean_text(reasoning)) if not _states_referent(s, candidates, pronoun)]
        while kept and _CONCLUSION_START_RE.search(kept[-1]) and _mentions(_normalise(kept[-1]), candidates):
            kept.pop()
        return " ".join(kept)
    except Exception:  # see map_answer
        return clean_text(reasoning or "").strip()
