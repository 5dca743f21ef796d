"""Claim extraction for the relational chain-of-thought checker: response text to ``Claim``s.

1. Keep only the reasoning: everything from the last answer marker (``Final answer:``,
   ``Answer:``, ``the answer is``, as ``parsing.py`` reads answers) and from a hallucinated
   next question on is dropped, so the answer list is judged as the answer, not again as
   reasoning.
2. Split it into steps (lines, then sentences) and extract claims with a small hand-written
   matcher over tokens (``P5 is P2's mother``, ``P5 is the mother of P2 and P3``, ``P1's
   father is P7``, ``P2 and P3 are sisters``, ``P0 has 2 sisters``, ``there is an edge
   between P1 and P2``, ``P3 has edges only to P1 and P2``, ``P0 and P3 are joined by a path
   of 2 edges`` ...).

Decisions, all in the direction of never calling a right statement wrong:

* A claim is only counted when it is asserted: claims in a question, or after
  ``if``/``whether``/``suppose``/``would``/``not``... in the same clause, are skipped.
  Negated statements ("P3 is not P8's daughter") are claims.
* Spouses, ages and the like are not claims.  "maternal"/"paternal" before another word
  ("maternal grandfather") is dropped, i.e. read leniently.
* "joined by a path of k edges" is read as "within k edges" (the gold CoT states the shortest
  distance); "P1 is connected to P2" is a direct edge, "P1 and P2 are connected" (no object,
  no qualifier) only says they are in one component.

All regular expressions are linear and the reasoning is capped at ``MAX_CHARS`` characters,
so a megabyte of model output costs milliseconds.
"""

from __future__ import annotations

import functools
import re
import string
from bisect import bisect_left
from typing import Any

from relreason_dagster.benchmarks.relational.cot_relations import (
    FAMILY_RELATIONS,
    GRAPH_PAIR,
    Claim,
)
from relreason_dagster.benchmarks.relational.prompts import FINAL_ANSWER

MAX_CHARS = 200_000  # reasoning kept (its end, nearest the answer), like parsing.MAX_CHARS
MAX_SUBJECTS = 20  # names in one subject list ("P1, P2 and P3 are siblings" makes pairs: keep it small)
MAX_OBJECTS = 50  # names in one object list
MEMO_STEPS = 4096  # step texts whose claims are memoised (a pure function of the text) ...
MEMO_CHARS = 1000  # ... if no longer than this: a few MB at most

# -- text preparation ----------------------------------------------------------------------------------

# One character in, one character out, so token offsets index the original step text.
_NORMALISE = str.maketrans(
    {
        **{c: c.lower() for c in string.ascii_uppercase},
        "\u2019": "'",
        "\u2018": "'",
        "\u02bc": "'",
        **{c: " " for c in "*`$\\_{}#|~"},
    }
)
_FINAL = re.escape(FINAL_ANSWER.lower().rstrip(":").strip())
# parsing.py's answer marker, also taking a leading "final"/"the" so that no stray word is left behind:
# ``(?:FINAL|answers?)(?:\s*(?:is|are))?\s*:|(?:the\s+|final\s+)?answers?\s+(?:is|are)\b`` with each
# alternative spelled out, in the same order (the same matches), so that every one starts with a letter
# and the scan skips the other positions (~8x faster).
_COLON = r"(?:\s*(?:is|are))?\s*:"
_ANSWER_IS = r"answers?\s+(?:is|are)\b"
_ANSWER_MARKER = re.compile(
    rf"{_FINAL}{_COLON}|answers?{_COLON}|the\s+{_ANSWER_IS}|final\s+{_ANSWER_IS}|{_ANSWER_IS}"
)
_NOW_QUESTION = re.compile(r"now this is the question")
_LINE_QUESTION = re.compile(r"\n[ \t#>*-]*question[ \t]*:")
_LEAD_IN = " \t\r\n*#>-:"
_BULLET = re.compile(r"^[\s\-*\u2022>#+]*(?:\(?[0-9]{1,3}[.)]\s+)?")
_BULLET_FIRST = frozenset("-*\u2022>#+(0123456789")  # how a non-empty _BULLET match starts, or whitespace
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_HAS_TEXT = re.compile(r"[A-Za-z0-9]")


def reasoning_part(text: str) -> str:
    """The reasoning: text before a hallucinated next question and before the last answer marker.

    A marker with nothing before it ("Answer: <reasoning> ...") is not a cut point,
    or a response in the few-shot "Answer:" format would lose all its reasoning.
    """
    low = text.translate(_NORMALISE)
    first = len(low) - len(low.lstrip())
    cuts = [m.start() for m in (_NOW_QUESTION.search(low, first + 1), _LINE_QUESTION.search(low, first)) if m]
    end = min(cuts) if cuts else len(low)
    lead = len(low) - len(low.lstrip(_LEAD_IN))  # text before a marker: it starts after ``lead``
    for marker in reversed(list(_ANSWER_MARKER.finditer(low, 0, end))):
        if marker.start() > lead:
            end = marker.start()
            break
    reasoning = text[:end]
    return reasoning[-MAX_CHARS:] if len(reasoning) > MAX_CHARS else reasoning


def split_steps(text: str) -> list[str]:
    """Reasoning steps: non-empty lines, each split into sentences, bullets and numbering dropped."""
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    steps: list[str] = []
    for line in text.splitlines():
        if line[:1].isspace() or line[:1] in _BULLET_FIRST:  # else _BULLET matches the empty string
            line = _BULLET.sub("", line, count=1)
        for piece in _SENTENCE_END.split(line):
            piece = piece.strip()
            if _HAS_TEXT.search(piece):
                steps.append(piece)
    return steps


# -- vocabulary ----------------------------------------------------------------------------------------


def _lexicon() -> dict[tuple[str, ...], str]:
    """Relation phrases (singular and plural) to their normalized relation word."""
    forms: dict[str, tuple[str, ...]] = {
        "father": ("father", "fathers", "dad", "daddy"),
        "mother": ("mother", "mothers", "mom", "mum", "mommy"),
        "parent": ("parent", "parents"),
        "son": ("son", "sons"),
        "daughter": ("daughter", "daughters"),
        "child": ("child", "children", "kid", "kids", "offspring"),
        "grandfather": ("grandfather", "grandfathers", "grand father", "grand fathers", "grandpa"),
        "grandmother": ("grandmother", "grandmothers", "grand mother", "grand mothers", "grandma"),
        "grandparent": ("grandparent", "grandparents", "grand parent", "grand parents"),
        "grandson": ("grandson", "grandsons", "grand son", "grand sons"),
        "granddaughter": ("granddaughter", "granddaughters", "grand daughter", "grand daughters"),
        "grandchild": ("grandchild", "grandchildren", "grand child", "grand children"),
        "brother": ("brother", "brothers"),
        "sister": ("sister", "sisters"),
        "sibling": ("sibling", "siblings"),
        "uncle": ("uncle", "uncles"),
        "aunt": ("aunt", "aunts", "auntie"),
        "nephew": ("nephew", "nephews"),
        "niece": ("niece", "nieces"),
        "cousin": ("cousin", "cousins"),
        "great uncle": (
            "great uncle",
            "great uncles",
            "granduncle",
            "granduncles",
            "grand uncle",
            "grand uncles",
        ),
        "great aunt": ("great aunt", "great aunts", "grandaunt", "grandaunts", "grand aunt", "grand aunts"),
        "maternal great uncle": (
            "maternal great uncle",
            "maternal great uncles",
            "maternal grand uncle",
            "maternal grand uncles",
            "maternal granduncle",
            "maternal granduncles",
        ),
        "great grandfather": ("great grandfather", "great grandfathers", "great grand father"),
        "great grandmother": ("great grandmother", "great grandmothers", "great grand mother"),
        "great grandparent": ("great grandparent", "great grandparents", "great grand parent"),
        "edge": ("neighbor", "neighbors", "neighbour", "neighbours"),
        "male": ("male", "man", "boy"),
        "female": ("female", "woman", "girl", "lady"),
    }
    return {tuple(form.split()): rel for rel, words in forms.items() for form in words}


_LEXICON = _lexicon()
_MAX_PHRASE = max(len(k) for k in _LEXICON)
# First and last words of the phrases: most words are neither, and skip the phrase look-ups.
_PHRASE_FIRST = frozenset(k[0] for k in _LEXICON)
_PHRASE_LAST = frozenset(k[-1] for k in _LEXICON)

_COPULAS = frozenset({"is", "are", "was", "were"})
_HAVE = frozenset({"has", "have", "had"})
_CLAUSE_VERBS = _COPULAS | _HAVE | {"does", "do", "did", "cannot", "must"}
_ANCHORS = _COPULAS | _HAVE | {"be", "edge", "edges"}  # the words ``_StepParser.run`` acts on
# Where an anchor word can be a token: a word token is a whole run of letters, or a negated verb ("isn't")
# less its "n't"; so a step this does not find in has no anchor.
_ANCHOR_WORD = re.compile(rf"(?<![a-z])(?:{'|'.join(sorted(_ANCHORS))})(?:n't)?(?![a-z])")
_NEGATORS = frozenset({"not", "never", "no", "neither"})
_ADVERBS = frozenset(
    {
        "also",
        "both",
        "indeed",
        "actually",
        "clearly",
        "therefore",
        "thus",
        "hence",
        "then",
        "still",
        "definitely",
        "certainly",
        "obviously",
        "again",
        "likewise",
        "evidently",
        "necessarily",
        "really",
        "simply",
        "just",
        "all",
        "each",
        "correctly",
        "truly",
        "now",
        "too",
    }
)
_PRE_VERB = frozenset(
    {"also", "both", "all", "clearly", "indeed", "therefore", "thus", "then", "still", "each"}
)
_DETERMINERS = frozenset({"the", "a", "an"})
_ADJECTIVES = frozenset(
    {
        "only",
        "biological",
        "elder",
        "older",
        "younger",
        "eldest",
        "oldest",
        "youngest",
        "full",
        "half",
        "own",
        "real",
        "direct",
        "actual",
        "other",
        "another",
        "maternal",
        "paternal",
        "natural",
        "blood",
        "immediate",
    }
)
_PREPOSITIONS = frozenset(
    {"of", "to", "between", "from", "with", "for", "by", "than", "through", "via", "about", "among", "except"}
)
_HEDGES = frozenset(
    {
        "if",
        "whether",
        "suppose",
        "supposing",
        "assume",
        "assuming",
        "assumed",
        "hypothetically",
        "unless",
        "maybe",
        "perhaps",
        "possibly",
        "would",
        "could",
        "might",
        "may",
        "should",
        "not",
        "cannot",
        "never",
        "unclear",
        "unknown",
        "false",
        "incorrect",
        "wrong",
        "untrue",
        "doubt",
        "wonder",
        "ask",
        "asks",
        "asking",
    }
)
_CLAUSE_BOUNDARY_WORDS = frozenset(
    {
        "then",
        "so",
        "therefore",
        "thus",
        "hence",
        "since",
        "because",
        "but",
        "however",
        "which",
        "who",
        "while",
    }
)
_CLAUSE_BOUNDARY_PUNCT = frozenset(".,;:!?()[]")
_NUMBER_WORDS = {
    "zero": 0,
    "one": 1,
    "single": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_EDGE_NOUNS = frozenset(
    {"edge", "edges", "connection", "connections", "neighbor", "neighbors", "neighbour", "neighbours"}
)
_EDGE_LEAD_IN = frozenset(
    {"there", "is", "are", "was", "were", "exists", "exist", "an", "a", "no", "not", "also"}
    | {"one", "direct", "never", "any", "single"}
)
_NAMING_WORDS = frozenset({"namely", "named", "called", "who", "which"})
_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}

# Patterns run on normalised (lower-case) text; names are P followed by at most 6 digits.
# For speed, a name's "p" comes before its look-behind ("p(?<![a-z0-9]p)" is "(?<![a-z0-9])p"), and a
# negated verb is first told by its run of letters ending in "'t"; neither changes a match.
_TOKEN = re.compile(
    r"p(?<![a-z0-9]p) {0,2}([0-9]{1,6})(?![0-9])"  # 1 name
    r"|('s)(?![a-z])"  # 2 possessive
    r"|(?=[a-z]++'t)([a-z]+)n't(?![a-z])"  # 3 negated verb
    r"|([0-9]+)"  # 4 number
    r"|([a-z]+)"  # 5 word
    r"|([.,;:!?()\[\]\"/&])"  # 6 punctuation
)
_ARROW_CHAIN = re.compile(
    r"p(?<![a-z0-9]p) ?[0-9]{1,6}(?![0-9])"
    r"(?:[ \t]*(?:<-->|<->|-->|->|--|=>|\u2192|\u2194|\u2014|\u2013|-)[ \t]*p ?[0-9]{1,6}(?![0-9]))+"
)
_ARROW_NAME = re.compile(r"p ?([0-9]{1,6})")
_RANGE_WORDS = frozenset(
    {"node", "nodes", "member", "members", "people", "persons", "from", "range", "between"}
)


# -- claim extraction ----------------------------------------------------------------------------------

# Token kinds: the ``_TOKEN`` group that matched (``Match.lastindex``: one group per alternative, none
# nested), a negated verb (group 3) being two words.
NAME, POSS, NUM, WORD, PUNCT = 1, 2, 4, 5, 6

# A step's tokens: the match each comes from (for its offsets), kinds, values (a name's or number's
# int, else the text) and words (None where the token is no word).
_Tokens = tuple[list[re.Match[str]], list[int], list[Any], list[str | None]]


def _tokenise(norm: str) -> _Tokens:
    """The tokens of ``norm``.

    Built with list comprehensions over the matches (the extractor's hottest loop); a negated
    verb ("isn't", one match, two tokens) is rare and takes the explicit loop.
    """
    matches = list(_TOKEN.finditer(norm))
    kinds: list[int] = [m.lastindex for m in matches]  # type: ignore[misc]
    if 3 in kinds:
        return _tokenise_negated(matches, kinds)
    vals: list[Any] = [  # _value inlined
        m[5] if g == 5 else m[6] if g == 6 else int(m[1]) if g == 1 else "'s" if g == 2 else int(m[4][:9])
        for m, g in zip(matches, kinds, strict=True)
    ]
    words = [m[5] for m in matches]  # None where group 5 (a word) did not match
    return matches, kinds, vals, words


def _value(m: re.Match[str], group: int) -> Any:
    """A token's value: a name's or number's int (a number's first 9 digits), else its text."""
    if group == 5:
        return m[5]
    if group == 6:
        return m[6]
    if group == 1:
        return int(m[1])
    if group == 2:
        return "'s"
    return int(m[4][:9])


def _tokenise_negated(matches: list[re.Match[str]], groups: list[int]) -> _Tokens:
    tokens: list[re.Match[str]] = []
    kinds: list[int] = []
    vals: list[Any] = []
    for m, g in zip(matches, groups, strict=True):
        if g == 3:
            verb = m[3]
            tokens += (m, m)  # both words span the whole "isn't"
            kinds += (WORD, WORD)
            vals += (_CONTRACTED.get(verb, verb), "not")
            continue
        tokens.append(m)
        kinds.append(g)
        vals.append(_value(m, g))
    words = [v if k == WORD else None for k, v in zip(kinds, vals, strict=True)]
    return tokens, kinds, vals, words


# A claim without its step: ``(subject, relation, obj, negated, text)``.
_Fact = tuple[int, str, int | None, bool, str]


class _StepParser:
    """Claims of one step, found by anchoring on verbs ("is", "has", "be") and edge phrases."""

    def __init__(self, text: str, norm: str) -> None:
        self.text = text
        self.norm = norm  # text.translate(_NORMALISE)
        # ``words``: each token's word, None for other kinds (``word`` is the most called helper)
        self.tokens, self.kinds, self.vals, self.words = _tokenise(self.norm)
        self.size = len(self.kinds)
        self.facts: list[_Fact] = []
        self._seen: set[tuple[Any, ...]] = set()
        self._hedged: dict[int, bool] = {}

    # token helpers -------------------------------------------------------------------------------------

    def word(self, i: int) -> str | None:
        return self.words[i] if 0 <= i < self.size else None

    def punct(self, i: int) -> str | None:
        return self.vals[i] if 0 <= i < self.size and self.kinds[i] == PUNCT else None

    def is_name(self, i: int) -> bool:
        return 0 <= i < self.size and self.kinds[i] == NAME

    def is_poss(self, i: int) -> bool:
        return 0 <= i < self.size and self.kinds[i] == POSS

    def number(self, i: int) -> int | None:
        if 0 <= i < self.size:
            if self.kinds[i] == NUM:
                return int(self.vals[i])
            if self.kinds[i] == WORD:
                return _NUMBER_WORDS.get(self.vals[i])
        return None

    def sep(self, i: int) -> int | None:
        """Index after a list separator ("," / "and" / ", and" / "&") at ``i``, else None."""
        if self.punct(i) in (",", "&"):
            return i + 2 if self.word(i + 1) == "and" else i + 1
        if self.word(i) == "and":
            return i + 1
        if self.word(i) == "as" and self.word(i + 1) == "well" and self.word(i + 2) == "as":
            return i + 3
        return None

    # building blocks -----------------------------------------------------------------------------------

    def rel_at(self, k: int) -> tuple[str, int] | None:
        """The relation phrase at ``k`` (adjectives before it skipped): ``(relation, index after it)``."""
        words, size = self.words, self.size
        for _ in range(4):
            w = words[k] if 0 <= k < size else None
            if w == "step":
                return None
            if w in _PHRASE_FIRST:  # so 0 <= k < size; a phrase past the last token cannot match
                for length in range(_MAX_PHRASE, 0, -1):
                    end = k + length
                    relation = _LEXICON.get(tuple(words[k:end])) if end <= size else None
                    if relation is not None:
                        if self.word(end) == "in" and self.word(end + 1) == "law":
                            return None
                        return relation, end
            if w in _ADJECTIVES:
                k += 1
                continue
            return None
        return None

    def rel_ending_at(self, i: int) -> tuple[str, int] | None:
        """The relation phrase that ends just before ``i``: ``(relation, its first index)``."""
        if self.word(i - 1) in ("outdegree", "degree"):
            start = i - 2 if self.word(i - 1) == "degree" and self.word(i - 2) == "out" else i - 1
            return "degree", start
        if self.word(i - 1) in _PHRASE_LAST:  # so 0 < i <= size; a phrase before token 0 cannot match
            words = self.words
            for length in range(_MAX_PHRASE, 0, -1):
                first = i - length
                relation = _LEXICON.get(tuple(words[first:i])) if first >= 0 else None
                if relation is not None:
                    return relation, first
        return None

    def name_list(self, k: int) -> tuple[list[int], int]:
        """Names at ``k`` ("P1", "P1 and P2", "P1, P2, and P3"); a last name that starts a new clause
        ("... of P2 and P3 is ...") or is a possessor ("P3's") is not part of the list."""
        while self.word(k) in ("both", "either", "all"):
            k += 1
        if not self.is_name(k):
            return [], k
        idx = [k]
        k += 1
        while len(idx) < MAX_OBJECTS:
            nxt = self.sep(k)
            if nxt is None or not self.is_name(nxt):
                break
            idx.append(nxt)
            k = nxt + 1
        if self.is_poss(k) or self.word(k) in _CLAUSE_VERBS:
            idx.pop()
            if not idx:
                return [], k
            k = idx[-1] + 1
        return [self.vals[j] for j in idx], k

    def possessors(self, j: int) -> tuple[list[int], int] | None:
        """``P2's`` / ``P2's and P3's`` / ``P1 and P2's`` at ``j``: the owners and the index after."""
        owners: list[int] = []
        best: tuple[list[int], int] | None = None
        k = j
        while self.is_name(k):
            owners.append(self.vals[k])
            k += 1
            if self.is_poss(k):
                k += 1
                best = (list(owners), k)
            nxt = self.sep(k)
            if nxt is not None and self.is_name(nxt):
                k = nxt
                continue
            break
        return best

    def subjects_before(self, i: int) -> tuple[list[int], int] | None:
        """The subject names ending just before ``i`` and the index of the first one.

        "P2, P3 and P4" is one subject; in "an edge between P5 and P3, P0 and P3 are"
        the comma does not extend the list (an "and" cannot come twice), and a list
        after a preposition ("the father of P2 and P3 is") is no subject, though its
        last name may be ("the son of P1 and P2 is the daughter of P1").
        """
        j = i - 1
        while self.word(j) in _PRE_VERB:
            j -= 1
        if self.punct(j) == ")":
            depth, m = 0, j
            while m >= 0 and j - m < 40:
                if self.punct(m) == ")":
                    depth += 1
                elif self.punct(m) == "(":
                    depth -= 1
                    if depth == 0:
                        break
                m -= 1
            j = m - 1
        if self.word(j) in ("who", "which") and self.punct(j - 1) == "," and self.is_name(j - 2):
            return [self.vals[j - 2]], j - 2
        if not self.is_name(j):
            return None
        idx = [j]
        seen_and = False
        while len(idx) < MAX_SUBJECTS:
            k = idx[0] - 1
            if self.word(k) == "and" and not seen_and:
                m = k - 1
                if self.punct(m) == ",":
                    m -= 1
                if self.is_name(m):
                    idx.insert(0, m)
                    seen_and = True
                    continue
                break
            if self.punct(k) == "," and self.is_name(k - 1):
                before = k - 2
                if self.word(before) == "and" or self.word(before) in _PREPOSITIONS:
                    break
                idx.insert(0, k - 1)
                continue
            break
        while idx:
            prev = idx[0] - 1
            if self.word(prev) in _PREPOSITIONS or self.is_poss(prev):
                idx.pop(0)
                continue
            break
        if not idx:
            return None
        return [self.vals[m] for m in idx], idx[0]

    def modifiers(self, j: int) -> tuple[int, bool, bool]:
        """Skip negation and adverbs after a verb: ``(index after, negated, "only" seen)``."""
        neg = only = False
        while True:
            w = self.word(j)
            if w == "not" and self.word(j + 1) == "only":
                j += 2
            elif w in _NEGATORS:
                neg = True
                j += 1
            elif w in _ADVERBS:
                j += 1
            elif w == "only":
                only = True
                j += 1
            elif w == "in" and self.word(j + 1) == "fact":
                j += 2
            elif w == "one" and self.word(j + 1) == "of":
                j += 2
            else:
                return j, neg, only

    # complements ---------------------------------------------------------------------------------------

    def complement(self, j: int) -> tuple[str, list[int] | None, int] | None:
        """What follows a copula: ``(relation, objects or None for a bare relation, index after)``."""
        owned = self.possessors(j)
        if owned is not None:
            owners, k = owned
            rel = self.rel_at(k)
            if rel is None:
                return None
            return rel[0], owners, rel[1]
        k = j
        while self.word(k) in _DETERMINERS:
            k += 1
        rel = self.rel_at(k)
        if rel is not None:
            name, k2 = rel
            if self.word(k2) in ("of", "to", "for"):
                objs, k3 = self.name_list(k2 + 1)
                return (name, objs, k3) if objs else None
            return name, None, k2
        return self.graph_complement(k)

    def graph_complement(self, k: int) -> tuple[str, list[int] | None, int] | None:
        """``connected to P2``, ``4-connected``, ``adjacent to P2``, ``joined by a path of 2 edges``."""
        direct = indirect = False
        hops: int | None = None
        path: int | None = None
        if self.word(k) == "directly":
            direct = True
            k += 1
        num = self.number(k)
        if num is not None and self.word(k + 1) == "connected":
            hops = num
            k += 1
        w = self.word(k)
        if w not in ("connected", "linked", "joined", "adjacent"):
            return None
        k += 1
        if self.word(k) == "directly":
            direct = True
            k += 1
        objs: list[int] | None = None
        if self.word(k) in ("to", "with"):
            objs, k = self.name_list(k + 1)
            if not objs:
                return None
        if self.word(k) in ("by", "via", "through"):
            window = [self.word(k + d) for d in range(1, 6)]
            if "path" in window:
                m = k + 1 + window.index("path") + 1
                if self.word(m) == "of":
                    m += 1
                while self.word(m) in ("length", "at", "most", "exactly", "only", "just"):
                    m += 1
                path = self.number(m)
                if path is None:
                    indirect = True
                else:
                    k = m + 1
                    if self.word(k) in ("edge", "edges", "hop", "hops", "step", "steps"):
                        k += 1
            elif "edge" in window[:3]:
                direct = True
                k += 1 + window.index("edge") + 1
            else:
                indirect = True
        if hops is not None:
            rel = f"{hops}-connected"
        elif path is not None:
            rel = f"path:{path}"
        elif indirect:
            rel = "reachable"
        elif direct or w == "adjacent" or objs is not None:
            rel = "edge"
        else:
            rel = "reachable"
        return rel, objs, k

    def complements(self, j: int, neg0: bool = False) -> list[tuple[str, list[int] | None, bool, bool, int]]:
        """Complements joined by "and"/","/"nor": "the father of P3 and also the mother of P3"."""
        items: list[tuple[str, list[int] | None, bool, bool, int]] = []
        carry = False
        first = True
        while True:
            j, neg, only = self.modifiers(j)
            if first and self.word(j - 1) == "neither":
                carry = True
            got = self.complement(j)
            if got is None:
                break
            rel, objs, end = got
            if not first and self.word(end) in _CLAUSE_VERBS:
                break
            items.append((rel, objs, neg or neg0 or carry, only, end))
            k = end
            joined = nor = False
            while True:
                nxt = self.sep(k)
                if nxt is not None:
                    k, joined = nxt, True
                elif self.word(k) in ("but", "nor", "while"):
                    nor = nor or self.word(k) == "nor"
                    k, joined = k + 1, True
                else:
                    break
            if not joined:
                break
            if self.word(k) in _COPULAS:
                k += 1
            carry = carry and nor
            j = k
            first = False
        return items

    # emitting ------------------------------------------------------------------------------------------

    def hedged(self, start: int) -> bool:
        """Whether the clause before token ``start`` makes the claim hypothetical or disputed."""
        m = start - 1
        while m >= 0 and start - m <= 40:
            kind, val = self.kinds[m], self.vals[m]
            if kind == PUNCT and val in _CLAUSE_BOUNDARY_PUNCT:
                return False
            if kind == WORD:
                if val in _HEDGES:
                    return True
                if val in _CLAUSE_BOUNDARY_WORDS:
                    return False
            m -= 1
        return False

    def emit(self, subject: int, relation: str, obj: int | None, negated: bool, start: int, end: int) -> None:
        hedged = self._hedged.get(start)
        if hedged is None:  # a clause's claims share their start: decide it once
            hedged = self._hedged[start] = self.hedged(start)
        if hedged:
            return
        s, e = self.tokens[start].start(), self.tokens[max(end - 1, start)].end()
        key = (subject, relation, obj, negated, s, e)
        if key in self._seen:
            return
        self._seen.add(key)
        self.facts.append((subject, relation, obj, negated, self.text[s:e]))

    def emit_complement(
        self, names: list[int], item: tuple[str, list[int] | None, bool, bool, int], start: int
    ) -> None:
        rel, objs, neg, only, end = item
        if objs is None:
            if rel in ("male", "female"):
                for s in names:
                    self.emit(s, rel, None, neg, start, end)
            elif len(names) >= 2 and (
                rel in ("sibling", "brother", "sister", "cousin") or GRAPH_PAIR.match(rel)
            ):
                for a_i, a in enumerate(names):
                    for b in names[a_i + 1 :]:
                        self.emit(a, rel, b, neg, start, end)
                        if rel in ("brother", "sister"):
                            self.emit(b, rel, a, neg, start, end)
            return
        if rel in ("male", "female"):
            return
        for s in names:
            for o in objs:
                self.emit(s, rel, o, neg, start, end)
            if only and rel == "edge" and not neg:
                self.emit(s, f"degree:{len(objs)}", None, False, start, end)

    # anchors -------------------------------------------------------------------------------------------

    def at_copula(self, i: int, neg0: bool = False, subject_end: int | None = None) -> None:
        subject = self.subjects_before(i if subject_end is None else subject_end)
        if subject is not None:
            names, start = subject
            for item in self.complements(i + 1, neg0):
                self.emit_complement(names, item, start)
        if subject_end is None:
            self.possessive_first(i)

    def at_be(self, i: int) -> None:
        """``must be`` (asserted), ``cannot be`` / ``can not be`` / ``must not be`` (negated)."""
        k = i - 1
        neg = False
        if self.word(k) == "not":
            neg = True
            k -= 1
        modal = self.word(k)
        if modal == "cannot" and not neg:
            neg = True
        elif modal == "must" or (modal in ("can", "could") and neg):
            pass
        else:
            return
        self.at_copula(i, neg0=neg, subject_end=k)

    def possessive_first(self, i: int) -> None:
        """``P1's father is P7``, ``the parents of P1 are P7 and P8``, ``P3's outdegree is 2``."""
        owner: int | None = None
        start = 0
        found = self.rel_ending_at(i)
        if found is not None:
            rel, rs = found
            k = rs - 1
            while self.word(k) in _ADJECTIVES:
                k -= 1
            if self.is_poss(k) and self.is_name(k - 1):
                owner, start = self.vals[k - 1], k - 1
        if owner is None and self.is_name(i - 1) and self.word(i - 2) == "of":
            found = self.rel_ending_at(i - 2)
            if found is not None:
                rel, start = found
                owner = self.vals[i - 1]
                while self.word(start - 1) in _ADJECTIVES or self.word(start - 1) in _DETERMINERS:
                    start -= 1
        if owner is None or found is None:
            return
        if self.word(start - 1) in _PREPOSITIONS or self.is_poss(start - 1):
            return
        j, neg, only = self.modifiers(i + 1)
        if rel == "degree":
            value = self.number(j)
            if value is not None:
                self.emit(owner, f"degree:{value}", None, neg, start, j + 1)
            return
        if rel in ("male", "female"):
            return
        objs, end = self.name_list(j)
        for o in objs:
            self.emit(o, rel, owner, neg, start, end)
        if objs and only and rel == "edge" and not neg:
            self.emit(owner, f"degree:{len(objs)}", None, False, start, end)

    def at_have(self, i: int) -> None:
        """``P0 has father``, ``P0 has 2 sisters``, ``P0 has no sister``, ``P3 has outdegree 2``,
        ``P3 has 2 edges``, ``P3 has edges only to P1 and P2``, ``P5 has two daughters, P2 and P3``."""
        k = i
        neg = False
        if self.word(k - 1) == "not" and self.word(k - 2) in ("does", "do", "did"):
            neg = True
            k -= 2
        subject = self.subjects_before(k)
        if subject is None:
            return
        names, start = subject
        j = i + 1
        if self.word(j) == "not":
            neg = True
            j += 1
        none = False
        if self.word(j) == "no":
            none = True
            j += 1
        only = False
        while self.word(j) in ("exactly", "only", "just", "precisely"):
            only = only or self.word(j) == "only"
            j += 1
        count = self.number(j)
        if count is not None and not (self.word(j) == "one" and self.word(j + 1) == "of"):
            j += 1
        else:
            count = None
        while self.word(j) in ("a", "an", "the", "relation", "any", "some"):
            j += 1
        if self.word(j) in ("outdegree", "degree") or (
            self.word(j) == "out" and self.word(j + 1) == "degree"
        ):
            j += 2 if self.word(j) == "out" else 1
            if self.word(j) == "of":
                j += 1
            while self.word(j) in ("exactly", "only", "just"):
                j += 1
            value = self.number(j)
            if value is not None:
                for s in names:
                    self.emit(s, f"degree:{value}", None, neg, start, j + 1)
            return
        if self.word(j) in _EDGE_NOUNS:
            j += 1
            degree = 0 if none else count
            if degree is not None:
                for s in names:
                    self.emit(s, f"degree:{degree}", None, neg, start, j)
            if self.word(j) == "only":
                only, j = True, j + 1
            if self.word(j) in ("to", "with", "namely") or self.punct(j) in (":", ","):
                j += 1
            if self.word(j) == "only":
                only, j = True, j + 1
            objs, end = self.name_list(j)
            if objs and not neg and not none:
                only = only or self.word(end) == "only"
                for s in names:
                    for o in objs:
                        self.emit(s, "edge", o, False, start, end)
                    if only and degree is None:
                        self.emit(s, f"degree:{len(objs)}", None, False, start, end)
            return
        if self.is_name(j):  # "P5 has P2 as a daughter"
            objs, end = self.name_list(j)
            if objs and self.word(end) == "as":
                m = end + 1
                while self.word(m) in ("a", "an", "the", "his", "her", "their"):
                    m += 1
                rel = self.rel_at(m)
                if rel is not None and rel[0] in FAMILY_RELATIONS:
                    for s in names:
                        for o in objs:
                            self.emit(o, rel[0], s, neg or none, start, rel[1])
            return
        rel = self.rel_at(j)
        if rel is None or rel[0] not in FAMILY_RELATIONS:
            return
        word, j = rel
        for s in names:
            if count is not None:
                self.emit(s, f"count:{word}:{count}", None, neg, start, j)
            else:
                self.emit(s, f"has:{word}", None, neg or none, start, j)
        if neg or none:
            return
        while self.punct(j) in (",", ":", "(") or self.word(j) in _NAMING_WORDS:
            j += 1
        if self.word(j) in ("are", "is") and self.word(j - 1) in ("who", "which"):
            j += 1
        objs, end = self.name_list(j)
        for s in names:
            for o in objs:
                self.emit(o, word, s, False, start, end)

    def at_edge(self, i: int) -> None:
        """``there is an edge between P1 and P2`` / ``no edge between`` / ``an edge from P1 to P2``."""
        k = i + 1
        if not (self.is_name(k + 1) and self.is_name(k + 3)):  # every phrasing below names two people
            return
        a = b = None
        end = 0
        if self.word(k) == "between" and self.is_name(k + 1) and self.is_name(k + 3):
            if self.word(k + 2) == "and" or self.punct(k + 2) == ",":
                a, b, end = self.vals[k + 1], self.vals[k + 3], k + 4
        elif (
            self.word(k) == "from"
            and self.is_name(k + 1)
            and self.word(k + 2) == "to"
            and self.is_name(k + 3)
        ):
            a, b, end = self.vals[k + 1], self.vals[k + 3], k + 4
        elif (
            self.word(k) in ("connecting", "joining", "linking")
            and self.is_name(k + 1)
            and self.is_name(k + 3)
        ):
            if self.word(k + 2) in ("and", "with", "to"):
                a, b, end = self.vals[k + 1], self.vals[k + 3], k + 4
        elif (
            self.punct(k) == "(" and self.is_name(k + 1) and self.punct(k + 2) == "," and self.is_name(k + 3)
        ):
            a, b, end = self.vals[k + 1], self.vals[k + 3], k + 4
        if a is None or b is None:
            return
        neg = False
        start = i
        while start - 1 >= 0 and i - start < 5 and self.word(start - 1) in _EDGE_LEAD_IN:
            start -= 1
            neg = neg or self.word(start) in ("no", "not", "never")
        self.emit(a, "edge", b, neg, start, end)

    def arrows(self) -> None:
        """``P0 -> P5 -> P3`` / ``P1-P2``: an edge per consecutive pair (graph samples only decide them)."""
        starts: list[int] | None = None
        for m in _ARROW_CHAIN.finditer(self.norm):
            before = self.norm[max(0, m.start() - 12) : m.start()].split()
            if before and before[-1] in _RANGE_WORDS:
                continue
            ids = [int(x) for x in _ARROW_NAME.findall(m.group())]
            if starts is None:
                starts = [t.start() for t in self.tokens]
            start = bisect_left(starts, m.start())
            end = bisect_left(starts, m.end())
            for a, b in zip(ids, ids[1:], strict=False):
                self.emit(a, "edge", b, False, start, end)

    def run(self) -> list[_Fact]:
        words = self.words
        for i in [i for i, w in enumerate(words) if w in _ANCHORS]:  # the anchors never change tokens
            w = words[i]
            if w in _COPULAS:
                self.at_copula(i)
            elif w in _HAVE:
                self.at_have(i)
            elif w == "be":
                self.at_be(i)
            elif w in ("edge", "edges"):
                self.at_edge(i)
        self.arrows()
        return self.facts


def _facts(text: str) -> list[_Fact]:
    """A step's claims; a step with no anchor word and no arrow chain has none, and is not tokenised."""
    norm = text.translate(_NORMALISE)
    if _ANCHOR_WORD.search(norm) is None and _ARROW_CHAIN.search(norm) is None:
        return []
    return _StepParser(text, norm).run()


@functools.lru_cache(maxsize=MEMO_STEPS)
def _step_facts(text: str) -> tuple[_Fact, ...]:
    """A step's claims, memoised: steps recur across responses ("For P1: Since P0 is P1's father, ...")."""
    return tuple(_facts(text))


def step_claims(text: str, step: int) -> list[Claim]:
    """The asserted claims of one reasoning step; ``step`` is its index, kept on each claim."""
    if text.rstrip().endswith("?"):  # a question asserts nothing
        return []
    facts = _step_facts(text) if len(text) <= MEMO_CHARS else _facts(text)
    return [
        Claim(subject, relation, obj, negated, step, said) for subject, relation, obj, negated, said in facts
    ]


def extract_claims(text: str) -> list[Claim]:
    """Every asserted claim of ``text`` (no answer cut here: see ``check_reasoning``), in text order."""
    claims: list[Claim] = []
    for index, step in enumerate(split_steps(text)):
        claims.extend(step_claims(step, index))
    return claims
