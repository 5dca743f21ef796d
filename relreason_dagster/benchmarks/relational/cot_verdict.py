"""The relational chain-of-thought checker's verdict: ``check_reasoning`` is its entry point.

Liu et al. (self-contradictory reasoning, section 2.1) sort a reasoned answer into Type1
(every step right, answer wrong), Type2 (some step wrong, answer right), Type3 (two steps
contradict each other), RR and WW.  Their labels come from human annotators; for the
relational benchmark we can do without them, because every fact a reasoning step states
about ``P0..P(n-1)`` is decidable from the sample's knowledge base.  ``check_reasoning``
extracts the claims (``cot_claims``), decides each one (``cot_knowledge``) and looks for
contradictions between them: a claim and its negation, one person stated male and female
(the relational study's Figure 4), one pair stated with two kinship relations that cannot
both hold, including an asymmetric relation in both directions (Figure 5), and incompatible
counts.

* Two claims that the KB makes both true are never reported as contradicting: they evidently
  can both hold (a generated family may, rarely, contain marriages that the kinship rules
  treat as impossible).
* ``reasoning_correct`` is False when a checked claim is false or two claims contradict,
  True when at least one claim was checked and all are true, else None.
* A claim is *given* when it restates a base fact of the prompt (a positive father / mother / son /
  daughter statement, or an edge, that the sample's base predicates list); every other claim is
  *derived*: what the reasoning concluded rather than copied.  A derived claim the KB makes false is
  a *false derived fact*; one the base facts neither entail nor refute (an undefined relation such as
  aunt, a gender no base fact fixes) is an *unsupported derived fact*.  Counted for
  ``marts.relational_trace_claims``: a reasoning model's trace is mostly derivations.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from relreason_dagster.benchmarks.base import Sample
from relreason_dagster.benchmarks.relational.cot_claims import reasoning_part, split_steps, step_claims
from relreason_dagster.benchmarks.relational.cot_knowledge import knowledge_base
from relreason_dagster.benchmarks.relational.cot_relations import (
    FAMILY_RELATIONS,
    GENDER_OF,
    GRAPH_PAIR,
    INVERSE_CLASS,
    KIN_CLASS,
    SYMMETRIC,
    Claim,
    describe,
)
from relreason_dagster.benchmarks.relational.generate import sample_predicates

MAX_LISTED = 20  # false claims / contradictions kept in ``detail()``
CATEGORIES = ("RR", "WW", "type1", "type2", "type3", "unchecked")


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
    n_derived: int = 0  # claims that restate no base fact of the prompt (module docstring)
    n_false_derived: int = 0  # derived claims the KB makes false
    n_unsupported_derived: int = 0  # derived claims the base facts neither entail nor refute

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
            "n_derived": self.n_derived,
            "n_false_derived": self.n_false_derived,
            "n_unsupported_derived": self.n_unsupported_derived,
            "false_claims": list(self.false_claims[:MAX_LISTED]),
            "contradictions": [list(pair) for pair in self.contradictions[:MAX_LISTED]],
        }
        if self.error:
            out["error"] = self.error
        return out


# The base predicate a positive claim of each relation restates: "P1 is P0's father" is IsFather(P0, P1).
GIVEN_PREDICATE = {"father": "IsFather", "mother": "IsMother", "son": "IsSon", "daughter": "IsDaughter"}


def is_given(claim: Claim, preds: dict[str, set[tuple[int, int]]]) -> bool:
    """Whether ``claim`` restates a base fact the prompt lists (module docstring: given vs derived)."""
    if claim.negated or claim.obj is None:
        return False
    if claim.relation == "edge":
        edges = preds.get("HasEdge", set())
        return (claim.subject, claim.obj) in edges or (claim.obj, claim.subject) in edges
    name = GIVEN_PREDICATE.get(claim.relation)
    return name is not None and (claim.obj, claim.subject) in preds.get(name, set())


def _negation_key(claim: Claim) -> tuple[Any, ...]:
    a, b = claim.subject, claim.obj
    if b is not None and (claim.relation in SYMMETRIC or GRAPH_PAIR.match(claim.relation)) and b < a:
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
    if rel in FAMILY_RELATIONS and o is not None and o != s:
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
        gender = GENDER_OF.get(c.relation)
        if gender is not None:
            mine, theirs = (male, female) if gender else (female, male)
            mine.setdefault(c.subject, i)
            if c.subject in theirs:
                add(theirs[c.subject], i)
        kin_class = KIN_CLASS.get(c.relation)
        if kin_class is not None and c.obj is not None and c.obj != c.subject:
            if c.subject < c.obj:
                pair, cls = (c.subject, c.obj), kin_class
            else:
                pair, cls = (c.obj, c.subject), INVERSE_CLASS[kin_class]
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
        reasoning = reasoning_part(text)
        steps = split_steps(reasoning)
        claims = [c for index, step in enumerate(steps) for c in step_claims(step, index)]
        kb = knowledge_base(sample)
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
        preds = sample_predicates(sample)
        derived = [t for claim, t in zip(claims, truths, strict=True) if not is_given(claim, preds)]
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
            n_derived=len(derived),
            n_false_derived=sum(t is False for t in derived),
            n_unsupported_derived=sum(t is None for t in derived),
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
