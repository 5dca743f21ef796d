"""Symbolic self-contradiction checker for the relational family's chain-of-thought answers.

Liu et al. (self-contradictory reasoning, section 2.1) sort a reasoned answer into
Type1 (every step right, answer wrong), Type2 (some step wrong, answer right),
Type3 (two steps contradict each other), RR and WW.  Their labels come from
human annotators; for the relational benchmark we can do without them, because
every fact a reasoning step states about ``P0..P(n-1)`` is decidable from the
sample's knowledge base (the base predicates).  So this module

1. keeps only the reasoning: everything from the last answer marker
   (``Final answer:``, ``Answer:``, ``the answer is``, as ``relational/parsing.py``
   reads answers) and from a hallucinated next question on is dropped, so the
   answer list is judged as the answer, not again as reasoning;
2. splits it into steps (lines, then sentences) and extracts claims with a small
   hand-written matcher over tokens (``P5 is P2's mother``, ``P5 is the mother of
   P2 and P3``, ``P1's father is P7``, ``P2 and P3 are sisters``, ``P0 has 2
   sisters``, ``there is an edge between P1 and P2``, ``P3 has edges only to P1
   and P2``, ``P0 and P3 are joined by a path of 2 edges`` ...);
3. decides each claim from the base predicates: family relations from parent
   links and genders (male if someone's father or son, female if mother or
   daughter), uncle and maternal great uncle through ``FamilyTree.uncles`` /
   ``mg_uncles`` so they cannot drift from the generator's definition, graph
   relations through ``Graph``;
4. looks for contradictions between claims: a claim and its negation, one
   person stated male and female (the relational study's Figure 4), one pair
   stated with two kinship relations that cannot both hold, including an
   asymmetric relation in both directions (Figure 5), and incompatible counts.

Decisions, all in the direction of never calling a right statement wrong:

* A claim is only counted when it is asserted: claims in a question, or after
  ``if``/``whether``/``suppose``/``would``/``not``... in the same clause, are
  skipped.  Negated statements ("P3 is not P8's daughter") are claims.
* Relations the benchmark does not define (aunt, nephew, niece, cousin, great
  uncle) are extracted, so they take part in gender and kinship contradictions,
  but their truth is unchecked: a model may mean an aunt by marriage.  Spouses,
  ages and the like are not claims.  "maternal"/"paternal" before another word
  ("maternal grandfather") is dropped, i.e. read leniently.
* A claim that needs a gender the KB does not fix (someone with no parent or
  child links) is unchecked; people outside ``P0..P(n-1)`` do not exist, so every
  positive claim about them is false.
* Uncle-type relations are evaluated on the two gender completions of the KB
  (unknown people all male / all female); they agree whenever the KB fixes the
  genders that matter, which it always does for generated samples.
* "joined by a path of k edges" is read as "within k edges" (the gold CoT states
  the shortest distance); "P1 is connected to P2" is a direct edge, "P1 and P2 are
  connected" (no object, no qualifier) only says they are in one component.
* Two claims that the KB makes both true are never reported as contradicting:
  they evidently can both hold (a generated family may, rarely, contain marriages
  that the kinship rules treat as impossible).
* ``reasoning_correct`` is False when a checked claim is false or two claims
  contradict, True when at least one claim was checked and all are true, else None.

All regular expressions are linear and the reasoning is capped at
``MAX_CHARS`` characters, so a megabyte of model output costs milliseconds.
"""

from __future__ import annotations

import re
import string
from bisect import bisect_left
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from relreason_dagster.benchmarks.base import Sample
from relreason_dagster.benchmarks.relational.family_tree import DEFAULT_VARIANT, VARIANTS, FamilyTree
from relreason_dagster.benchmarks.relational.generate import sample_predicates
from relreason_dagster.benchmarks.relational.graph import Graph
from relreason_dagster.benchmarks.relational.prompts import FINAL_ANSWER
from relreason_dagster.benchmarks.relational.tasks import FAMILY, GRAPH, TASK_SPECS

MAX_CHARS = 200_000  # reasoning kept (its end, nearest the answer), like parsing.MAX_CHARS
MAX_LISTED = 20  # false claims / contradictions kept in ``detail()``
MAX_SUBJECTS = 20  # names in one subject list ("P1, P2 and P3 are siblings" makes pairs: keep it small)
MAX_OBJECTS = 50  # names in one object list
CATEGORIES = ("RR", "WW", "type1", "type2", "type3", "unchecked")

# -- public types --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Claim:
    """One asserted fact: ``P{subject} is P{obj}'s {relation}`` (or a unary fact when ``obj`` is None)."""

    subject: int
    relation: str
    obj: int | None
    negated: bool
    step: int
    text: str


@dataclass
class SymbolicVerdict:
    """What the checker found in one response, and its Liu et al. category."""

    n_steps: int
    claims: list[Claim]
    n_checked: int
    false_claims: list[str]
    contradictions: list[tuple[str, str]]
    reasoning_correct: bool | None
    category: str
    error: str | None = None  # set when checking failed; the verdict is then "unchecked"

    @property
    def self_contra(self) -> bool | None:
        """Type1/2/3 are self-contradictory, RR/WW are not, unchecked is unknown."""
        if self.category in ("type1", "type2", "type3"):
            return True
        if self.category in ("RR", "WW"):
            return False
        return None

    def detail(self) -> dict[str, Any]:
        """A JSON-serialisable summary; long lists are cut to ``MAX_LISTED`` (counts stay whole)."""
        out: dict[str, Any] = {
            "category": self.category,
            "self_contra": self.self_contra,
            "reasoning_correct": self.reasoning_correct,
            "n_steps": self.n_steps,
            "n_claims": len(self.claims),
            "n_checked": self.n_checked,
            "n_false": len(self.false_claims),
            "n_contradictions": len(self.contradictions),
            "false_claims": list(self.false_claims[:MAX_LISTED]),
            "contradictions": [list(pair) for pair in self.contradictions[:MAX_LISTED]],
        }
        if self.error:
            out["error"] = self.error
        return out


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
# parsing.py's answer marker, also taking a leading "final"/"the" so that no stray word is left behind.
_ANSWER_MARKER = re.compile(
    rf"(?:{_FINAL}|answers?)(?:\s*(?:is|are))?\s*:|(?:the\s+|final\s+)?answers?\s+(?:is|are)\b"
)
_NOW_QUESTION = re.compile(r"now this is the question")
_LINE_QUESTION = re.compile(r"\n[ \t#>*-]*question[ \t]*:")
_LEAD_IN = " \t\r\n*#>-:"
_BULLET = re.compile(r"^[\s\-*\u2022>#+]*(?:\(?[0-9]{1,3}[.)]\s+)?")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_HAS_TEXT = re.compile(r"[A-Za-z0-9]")


def _reasoning_part(text: str) -> str:
    """The reasoning: text before a hallucinated next question and before the last answer marker.

    A marker with nothing before it ("Answer: <reasoning> ...") is not a cut point,
    or a response in the few-shot "Answer:" format would lose all its reasoning.
    """
    low = text.translate(_NORMALISE)
    first = len(low) - len(low.lstrip())
    cuts = [m.start() for m in (_NOW_QUESTION.search(low, first + 1), _LINE_QUESTION.search(low, first)) if m]
    end = min(cuts) if cuts else len(low)
    for marker in reversed(list(_ANSWER_MARKER.finditer(low, 0, end))):
        if low[: marker.start()].strip(_LEAD_IN):
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

# relation: (structural base, gender the relation gives its subject); decided from the KB.
_FAMILY_BINARY: dict[str, tuple[str, bool | None]] = {
    "father": ("parent", True),
    "mother": ("parent", False),
    "parent": ("parent", None),
    "son": ("child", True),
    "daughter": ("child", False),
    "child": ("child", None),
    "grandfather": ("grandparent", True),
    "grandmother": ("grandparent", False),
    "grandparent": ("grandparent", None),
    "grandson": ("grandchild", True),
    "granddaughter": ("grandchild", False),
    "grandchild": ("grandchild", None),
    "brother": ("sibling", True),
    "sister": ("sibling", False),
    "sibling": ("sibling", None),
    "uncle": ("uncle", True),
    "maternal great uncle": ("mg_uncle", True),
}
# Recognised (gender, kinship class) but never decided: the benchmark does not define them.
_FAMILY_UNCHECKED = frozenset(
    {
        "aunt",
        "nephew",
        "niece",
        "cousin",
        "great uncle",
        "great aunt",
        "great grandfather",
        "great grandmother",
        "great grandparent",
    }
)
_FAMILY_RELATIONS = frozenset(_FAMILY_BINARY) | _FAMILY_UNCHECKED
_GENDER_OF: dict[str, bool] = {
    **{rel: g for rel, (_, g) in _FAMILY_BINARY.items() if g is not None},
    "aunt": False,
    "nephew": True,
    "niece": False,
    "great uncle": True,
    "great aunt": False,
    "great grandfather": True,
    "great grandmother": False,
    "male": True,
    "female": False,
}
# Kinship class of "subject is obj's <relation>" and the class of the reverse statement.
_KIN_CLASS: dict[str, str] = {
    "father": "parent",
    "mother": "parent",
    "parent": "parent",
    "son": "child",
    "daughter": "child",
    "child": "child",
    "grandfather": "grandparent",
    "grandmother": "grandparent",
    "grandparent": "grandparent",
    "grandson": "grandchild",
    "granddaughter": "grandchild",
    "grandchild": "grandchild",
    "brother": "sibling",
    "sister": "sibling",
    "sibling": "sibling",
    "cousin": "cousin",
    "uncle": "pibling",
    "aunt": "pibling",
    "nephew": "nibling",
    "niece": "nibling",
    "great uncle": "great-pibling",
    "great aunt": "great-pibling",
    "maternal great uncle": "great-pibling",
    "great grandfather": "great-grandparent",
    "great grandmother": "great-grandparent",
    "great grandparent": "great-grandparent",
}
_INVERSE_CLASS = {
    "parent": "child",
    "child": "parent",
    "grandparent": "grandchild",
    "grandchild": "grandparent",
    "sibling": "sibling",
    "cousin": "cousin",
    "pibling": "nibling",
    "nibling": "pibling",
    "great-pibling": "great-nibling",
    "great-nibling": "great-pibling",
    "great-grandparent": "great-grandchild",
    "great-grandchild": "great-grandparent",
}
_SYMMETRIC = frozenset({"sibling", "cousin", "edge", "reachable"})
_GRAPH_PAIR = re.compile(r"^(?:edge|reachable|[0-9]+-connected|path:[0-9]+)$")

_COPULAS = frozenset({"is", "are", "was", "were"})
_HAVE = frozenset({"has", "have", "had"})
_CLAUSE_VERBS = _COPULAS | _HAVE | {"does", "do", "did", "cannot", "must"}
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
_NAMING_WORDS = frozenset({"namely", "named", "called", "who", "which"})
_CONTRACTED = {"ca": "can", "wo": "will", "sha": "shall"}

# Patterns run on normalised (lower-case) text; names are P followed by at most 6 digits.
_TOKEN = re.compile(
    r"(?<![a-z0-9])p {0,2}([0-9]{1,6})(?![0-9])"  # 1 name
    r"|('s)(?![a-z])"  # 2 possessive
    r"|([a-z]+)n't(?![a-z])"  # 3 negated verb
    r"|([0-9]+)"  # 4 number
    r"|([a-z]+)"  # 5 word
    r"|([.,;:!?()\[\]\"/&])"  # 6 punctuation
)
_ARROW_CHAIN = re.compile(
    r"(?<![a-z0-9])p ?[0-9]{1,6}(?![0-9])"
    r"(?:[ \t]*(?:<-->|<->|-->|->|--|=>|\u2192|\u2194|\u2014|\u2013|-)[ \t]*p ?[0-9]{1,6}(?![0-9]))+"
)
_ARROW_NAME = re.compile(r"p ?([0-9]{1,6})")
_RANGE_WORDS = frozenset(
    {"node", "nodes", "member", "members", "people", "persons", "from", "range", "between"}
)


# -- claim extraction ----------------------------------------------------------------------------------

NAME, POSS, NUM, WORD, PUNCT = "name", "poss", "num", "word", "punct"


def _tokenise(norm: str) -> tuple[list[str], list[Any], list[int], list[int]]:
    kinds: list[str] = []
    vals: list[Any] = []
    starts: list[int] = []
    ends: list[int] = []

    def add(kind: str, val: Any, start: int, end: int) -> None:
        kinds.append(kind)
        vals.append(val)
        starts.append(start)
        ends.append(end)

    for m in _TOKEN.finditer(norm):
        s, e = m.start(), m.end()
        if m.group(1) is not None:
            add(NAME, int(m.group(1)), s, e)
        elif m.group(2) is not None:
            add(POSS, "'s", s, e)
        elif m.group(3) is not None:
            verb = m.group(3)
            add(WORD, _CONTRACTED.get(verb, verb), s, e)
            add(WORD, "not", s, e)
        elif m.group(4) is not None:
            add(NUM, int(m.group(4)[:9]), s, e)
        elif m.group(5) is not None:
            add(WORD, m.group(5), s, e)
        else:
            add(PUNCT, m.group(6), s, e)
    return kinds, vals, starts, ends


class _StepParser:
    """Claims of one step, found by anchoring on verbs ("is", "has", "be") and edge phrases."""

    def __init__(self, text: str, step: int) -> None:
        self.text = text
        self.step = step
        self.norm = text.translate(_NORMALISE)
        self.kinds, self.vals, self.starts, self.ends = _tokenise(self.norm)
        self.size = len(self.kinds)
        self.claims: list[Claim] = []
        self._seen: set[tuple[Any, ...]] = set()

    # token helpers -------------------------------------------------------------------------------------

    def kind(self, i: int) -> str | None:
        return self.kinds[i] if 0 <= i < self.size else None

    def word(self, i: int) -> str | None:
        return self.vals[i] if 0 <= i < self.size and self.kinds[i] == WORD else None

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
        for _ in range(4):
            if self.word(k) == "step":
                return None
            for length in range(_MAX_PHRASE, 0, -1):
                words = tuple(self.word(k + d) for d in range(length))
                if None not in words and words in _LEXICON:
                    end = k + length
                    if self.word(end) == "in" and self.word(end + 1) == "law":
                        return None
                    return _LEXICON[words], end  # type: ignore[index]
            if self.word(k) in _ADJECTIVES:
                k += 1
                continue
            return None
        return None

    def rel_ending_at(self, i: int) -> tuple[str, int] | None:
        """The relation phrase that ends just before ``i``: ``(relation, its first index)``."""
        if self.word(i - 1) in ("outdegree", "degree"):
            start = i - 2 if self.word(i - 1) == "degree" and self.word(i - 2) == "out" else i - 1
            return "degree", start
        for length in range(_MAX_PHRASE, 0, -1):
            words = tuple(self.word(i - length + d) for d in range(length))
            if None not in words and words in _LEXICON:
                return _LEXICON[words], i - length  # type: ignore[index]
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
        if self.hedged(start):
            return
        s, e = self.starts[start], self.ends[max(end - 1, start)]
        key = (subject, relation, obj, negated, s, e)
        if key in self._seen:
            return
        self._seen.add(key)
        self.claims.append(Claim(subject, relation, obj, negated, self.step, self.text[s:e]))

    def emit_complement(
        self, names: list[int], item: tuple[str, list[int] | None, bool, bool, int], start: int
    ) -> None:
        rel, objs, neg, only, end = item
        if objs is None:
            if rel in ("male", "female"):
                for s in names:
                    self.emit(s, rel, None, neg, start, end)
            elif len(names) >= 2 and (
                rel in ("sibling", "brother", "sister", "cousin") or _GRAPH_PAIR.match(rel)
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
                if rel is not None and rel[0] in _FAMILY_RELATIONS:
                    for s in names:
                        for o in objs:
                            self.emit(o, rel[0], s, neg or none, start, rel[1])
            return
        rel = self.rel_at(j)
        if rel is None or rel[0] not in _FAMILY_RELATIONS:
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
        lead_in = {"there", "is", "are", "was", "were", "exists", "exist", "an", "a", "no", "not", "also"}
        lead_in |= {"one", "direct", "never", "any", "single"}
        while start - 1 >= 0 and i - start < 5 and self.word(start - 1) in lead_in:
            start -= 1
            neg = neg or self.word(start) in ("no", "not", "never")
        self.emit(a, "edge", b, neg, start, end)

    def arrows(self) -> None:
        """``P0 -> P5 -> P3`` / ``P1-P2``: an edge per consecutive pair (graph samples only decide them)."""
        for m in _ARROW_CHAIN.finditer(self.norm):
            before = self.norm[max(0, m.start() - 12) : m.start()].split()
            if before and before[-1] in _RANGE_WORDS:
                continue
            ids = [int(x) for x in _ARROW_NAME.findall(m.group())]
            start = bisect_left(self.starts, m.start())
            end = bisect_left(self.starts, m.end())
            for a, b in zip(ids, ids[1:], strict=False):
                self.emit(a, "edge", b, False, start, end)

    def run(self) -> list[Claim]:
        for i in range(self.size):
            w = self.word(i)
            if w is None:
                continue
            if w in _COPULAS:
                self.at_copula(i)
            elif w in _HAVE:
                self.at_have(i)
            elif w == "be":
                self.at_be(i)
            elif w in ("edge", "edges"):
                self.at_edge(i)
        self.arrows()
        return self.claims


def _step_claims(text: str, step: int) -> list[Claim]:
    if text.rstrip().endswith("?"):  # a question asserts nothing
        return []
    return _StepParser(text, step).run()


def extract_claims(text: str) -> list[Claim]:
    """Every asserted claim of ``text`` (no answer cut here: see ``check_reasoning``), in text order."""
    claims: list[Claim] = []
    for index, step in enumerate(split_steps(text)):
        claims.extend(_step_claims(step, index))
    return claims


# -- knowledge bases -----------------------------------------------------------------------------------


class _FamilyKB:
    """Parent links and genders read from IsFather/IsMother/IsSon/IsDaughter."""

    def __init__(self, preds: dict[str, set[tuple[int, int]]], n: int, variant: str) -> None:
        self.n = n
        self.variant = variant
        self.parents: dict[int, set[int]] = defaultdict(set)
        self.male: set[int] = set()
        self.female: set[int] = set()
        for name, gendered, parent_second in (
            ("IsFather", self.male, True),
            ("IsMother", self.female, True),
            ("IsSon", self.male, False),
            ("IsDaughter", self.female, False),
        ):
            for x, y in preds.get(name, set()):
                if parent_second:  # IsFather(x, y): y is x's father
                    self.parents[x].add(y)
                else:  # IsSon(x, y): y is x's son
                    self.parents[y].add(x)
                gendered.add(y)
        self._trees: tuple[FamilyTree, FamilyTree] | None = None
        self._kin_cache: dict[tuple[int, str, int], set[int]] = {}

    def exists(self, p: int) -> bool:
        return 0 <= p < self.n

    def gender(self, p: int) -> bool | None:
        is_male, is_female = p in self.male, p in self.female
        if is_male != is_female:
            return is_male
        return None

    def grandparents(self, x: int) -> set[int]:
        return {g for p in self.parents.get(x, ()) for g in self.parents.get(p, ())}

    def trees(self) -> tuple[FamilyTree, FamilyTree]:
        """The KB as ``FamilyTree``s, unknown genders completed as male, then as female."""
        if self._trees is None:
            built = []
            for default in (True, False):
                male = tuple(default if (g := self.gender(p)) is None else g for p in range(self.n))
                father: list[int | None] = [None] * self.n
                mother: list[int | None] = [None] * self.n
                for x in range(self.n):
                    for p in sorted(q for q in self.parents.get(x, ()) if self.exists(q)):
                        if male[p] and father[x] is None:
                            father[x] = p
                        elif not male[p] and mother[x] is None:
                            mother[x] = p
                built.append(FamilyTree(n=self.n, male=male, father=tuple(father), mother=tuple(mother)))
            self._trees = (built[0], built[1])
        return self._trees

    def _tree_kin(self, s: int, o: int, base: str) -> bool | None:
        """Uncle / maternal great uncle by the generator's own definition, on both gender completions."""
        if base == "mg_uncle" and self.variant not in VARIANTS:
            return None
        answers = set()
        for index, tree in enumerate(self.trees()):
            key = (index, base, o)
            if key not in self._kin_cache:
                self._kin_cache[key] = tree.uncles(o) if base == "uncle" else tree.mg_uncles(o, self.variant)
            answers.add(s in self._kin_cache[key])
        return answers.pop() if len(answers) == 1 else None

    def binary(self, rel: str, s: int, o: int) -> bool | None:
        if rel not in _FAMILY_BINARY:
            return None
        if not (self.exists(s) and self.exists(o)):
            return False
        base, wanted = _FAMILY_BINARY[rel]
        if base in ("uncle", "mg_uncle"):
            return self._tree_kin(s, o, base)
        if base == "parent":
            holds = s in self.parents.get(o, ())
        elif base == "child":
            holds = o in self.parents.get(s, ())
        elif base == "grandparent":
            holds = s in self.grandparents(o)
        elif base == "grandchild":
            holds = o in self.grandparents(s)
        else:  # sibling: a shared parent
            holds = s != o and bool(self.parents.get(s, set()) & self.parents.get(o, set()))
        if not holds or wanted is None:
            return holds
        g = self.gender(s)
        return None if g is None else g == wanted

    def truth(self, claim: Claim) -> bool | None:
        rel, s, o = claim.relation, claim.subject, claim.obj
        if rel in ("male", "female"):
            if not self.exists(s):
                return False
            g = self.gender(s)
            return None if g is None else g == (rel == "male")
        if rel.startswith("has:") or rel.startswith("count:"):
            parts = rel.split(":")
            word = parts[1]
            if word not in _FAMILY_BINARY:
                return None
            if not self.exists(s):
                return False
            values = [self.binary(word, y, s) for y in range(self.n)]
            true, unknown = values.count(True), values.count(None)
            if rel.startswith("has:"):
                return True if true else (None if unknown else False)
            k = int(parts[2])
            if true > k or true + unknown < k:
                return False
            return True if unknown == 0 else None
        if o is None:
            return None
        return self.binary(rel, s, o)


class _GraphKB:
    """The HasEdge graph, queried through ``relational.graph.Graph``."""

    def __init__(self, preds: dict[str, set[tuple[int, int]]], n: int) -> None:
        self.n = n
        edges = frozenset(
            (min(a, b), max(a, b))
            for a, b in preds.get("HasEdge", set())
            if a != b and 0 <= a < n and 0 <= b < n
        )
        self.graph = Graph(n=n, edges=edges)
        self.adj = self.graph.neighbours()
        self._dist: dict[tuple[int, int], dict[int, int]] = {}

    def exists(self, p: int) -> bool:
        return 0 <= p < self.n

    def within(self, a: int, b: int, hops: int) -> bool:
        key = (a, hops)
        if key not in self._dist:
            self._dist[key] = self.graph.distances_from(a, hops)
        return a != b and b in self._dist[key]

    def truth(self, claim: Claim) -> bool | None:
        rel, a, b = claim.relation, claim.subject, claim.obj
        if rel.startswith("degree:"):
            return self.exists(a) and len(self.adj[a]) == int(rel.split(":")[1])
        if b is None or not _GRAPH_PAIR.match(rel):
            return None
        if not (self.exists(a) and self.exists(b)):
            return False
        if rel == "edge":
            return a != b and b in self.adj[a]
        if rel == "reachable":
            return self.within(a, b, self.n)
        hops = int(rel.split(":")[1]) if rel.startswith("path:") else int(rel.split("-")[0])
        return self.within(a, b, min(hops, self.n))


def _knowledge_base(sample: Sample) -> _FamilyKB | _GraphKB:
    preds = sample_predicates(sample)
    n = int(sample.input["n"])
    spec = TASK_SPECS.get(sample.task)
    domain = spec.domain if spec is not None else (GRAPH if "HasEdge" in preds else FAMILY)
    if domain == GRAPH:
        return _GraphKB(preds, n)
    variant = str((sample.variant or {}).get("family_tree_variant", DEFAULT_VARIANT))
    return _FamilyKB(preds, n, variant)


# -- verdicts ------------------------------------------------------------------------------------------


def _plural(word: str, k: int) -> str:
    if k == 1:
        return word
    return "children" if word == "child" else ("grandchildren" if word == "grandchild" else word + "s")


def describe(claim: Claim) -> str:
    """A claim in the benchmark's own wording, e.g. ``P8 is P3's father`` / ``P0 has 2 sisters``."""
    s, rel, neg = f"P{claim.subject}", claim.relation, claim.negated
    o = f"P{claim.obj}"
    not_ = "not " if neg else ""
    if rel == "edge":
        return f"there is {'no' if neg else 'an'} edge between {s} and {o}"
    if rel == "reachable":
        return f"{s} and {o} are {not_}connected"
    if rel.endswith("-connected"):
        return f"{s} and {o} are {not_}{rel}"
    if rel.startswith("path:"):
        hops = int(rel.split(":")[1])
        return f"{s} and {o} are {not_}joined by a path of at most {hops} {_plural('edge', hops)}"
    if rel.startswith("degree:"):
        return f"{s} {'does not have' if neg else 'has'} outdegree {rel.split(':')[1]}"
    if rel.startswith("has:"):
        return f"{s} {'has no' if neg else 'has'} {rel.split(':')[1]}"
    if rel.startswith("count:"):
        _, word, k = rel.split(":")
        return f"{s} {'does not have' if neg else 'has'} {k} {_plural(word, int(k))}"
    if claim.obj is None:
        return f"{s} is {not_}{rel}"
    return f"{s} is {not_}{o}'s {rel}"


def _negation_key(claim: Claim) -> tuple[Any, ...]:
    a, b = claim.subject, claim.obj
    if b is not None and (claim.relation in _SYMMETRIC or _GRAPH_PAIR.match(claim.relation)) and b < a:
        a, b = b, a
    return (claim.relation, a, b)


def _quantity(claim: Claim) -> list[tuple[tuple[int, str], int, float]]:
    """What a claim says about a count: ``((person, relation), low, high)`` items."""
    rel, s, o = claim.relation, claim.subject, claim.obj
    inf = float("inf")
    if rel.startswith("has:"):
        return [((s, rel[4:]), 0, 0) if claim.negated else ((s, rel[4:]), 1, inf)]
    if claim.negated:
        return []
    if rel.startswith("count:"):
        _, word, k = rel.split(":")
        return [((s, word), int(k), int(k))]
    if rel.startswith("degree:"):
        k = int(rel.split(":")[1])
        return [((s, "degree"), k, k)]
    if rel == "edge" and o is not None and o != s:
        return [((s, "degree"), 1, inf), ((o, "degree"), 1, inf)]
    if rel in _FAMILY_RELATIONS and o is not None and o != s:
        return [((o, rel), 1, inf)]
    return []


def _contradictions(claims: list[Claim], truths: list[bool | None]) -> list[tuple[str, str]]:
    """Pairs of claims that cannot both hold; linear in the number of claims."""
    found: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()

    def add(i: int, j: int) -> None:
        if i == j or truths[i] is True and truths[j] is True:  # both true in the KB: evidently compatible
            return
        first, second = min(i, j), max(i, j)
        pair = (claims[first].text, claims[second].text)
        if pair not in seen:  # a repeated sentence repeats its contradiction: report it once
            seen.add(pair)
            found.append(pair)

    first_pos: dict[tuple[Any, ...], int] = {}
    first_neg: dict[tuple[Any, ...], int] = {}
    male: dict[int, int] = {}
    female: dict[int, int] = {}
    kin: dict[tuple[int, int], dict[str, int]] = defaultdict(dict)
    counts: dict[tuple[int, str], list[tuple[int, float, int]]] = defaultdict(list)
    for i, c in enumerate(claims):
        key = _negation_key(c)
        (first_neg if c.negated else first_pos).setdefault(key, i)
        other = (first_pos if c.negated else first_neg).get(key)
        if other is not None:
            add(other, i)
        for person, low, high in _quantity(c):
            intervals = counts[person]
            for lo, hi, j in intervals:
                if high < lo or low > hi:
                    add(j, i)
                    break
            if len(intervals) < 8 and all((lo, hi) != (low, high) for lo, hi, _ in intervals):
                intervals.append((low, high, i))
        if c.negated:
            continue
        gender = _GENDER_OF.get(c.relation)
        if gender is not None:
            mine, theirs = (male, female) if gender else (female, male)
            mine.setdefault(c.subject, i)
            if c.subject in theirs:
                add(theirs[c.subject], i)
        kin_class = _KIN_CLASS.get(c.relation)
        if kin_class is not None and c.obj is not None and c.obj != c.subject:
            if c.subject < c.obj:
                pair, cls = (c.subject, c.obj), kin_class
            else:
                pair, cls = (c.obj, c.subject), _INVERSE_CLASS[kin_class]
            for other_cls, j in kin[pair].items():
                if other_cls != cls:
                    add(j, i)
                    break
            kin[pair].setdefault(cls, i)
    return found


def _classify(n_checked: int, n_false: int, n_contra: int, answer_correct: bool | None) -> str:
    if n_contra:
        return "type3"
    if answer_correct is None:
        return "unchecked"
    if n_false:
        return "type2" if answer_correct else "WW"
    if n_checked:
        return "RR" if answer_correct else "type1"
    return "unchecked"


def check_reasoning(sample: Sample, text: str, answer_correct: bool | None) -> SymbolicVerdict:
    """Check every claim of the reasoning part of ``text`` against ``sample``'s base predicates.

    ``answer_correct`` is whether the final answer was right (None: unreadable).
    Never raises: a failure gives an "unchecked" verdict with ``error`` set.
    """
    try:
        if not isinstance(text, str):
            text = "" if text is None else str(text)
        reasoning = _reasoning_part(text)
        steps = split_steps(reasoning)
        claims = [c for index, step in enumerate(steps) for c in _step_claims(step, index)]
        kb = _knowledge_base(sample)
        truths: list[bool | None] = []
        false_claims: list[str] = []
        for claim in claims:
            value = kb.truth(claim)
            truth = None if value is None else value != claim.negated
            truths.append(truth)
            if truth is False:
                message = f"{describe(claim)} (KB: false)"
                if message not in false_claims:
                    false_claims.append(message)
        n_checked = sum(t is not None for t in truths)
        n_false = sum(t is False for t in truths)
        contradictions = _contradictions(claims, truths)
        if n_false or contradictions:
            reasoning_correct: bool | None = False
        else:
            reasoning_correct = True if n_checked else None
        return SymbolicVerdict(
            n_steps=len(steps),
            claims=claims,
            n_checked=n_checked,
            false_claims=false_claims,
            contradictions=contradictions,
            reasoning_correct=reasoning_correct,
            category=_classify(n_checked, n_false, len(contradictions), answer_correct),
        )
    except Exception as exc:  # model text must never crash a run
        return SymbolicVerdict(
            n_steps=0,
            claims=[],
            n_checked=0,
            false_claims=[],
            contradictions=[],
            reasoning_correct=None,
            category="unchecked",
            error=f"{type(exc).__name__}: {exc}"[:200],
        )


__all__ = [
    "CATEGORIES",
    "Claim",
    "SymbolicVerdict",
    "check_reasoning",
    "describe",
    "extract_claims",
    "split_steps",
]
