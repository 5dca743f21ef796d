"""What a claim in a relational chain of thought can state, and what each relation means.

Shared by the three jobs of the chain-of-thought checker (``cot_claims`` extracts claims,
``cot_knowledge`` decides them, ``cot_verdict`` finds contradictions and categorises a
response), so that the extractor and the judges read one vocabulary.

Relations the benchmark does not define (aunt, nephew, niece, cousin, great uncle) are
recognised, so they take part in gender and kinship contradictions, but their truth is never
decided: a model may mean an aunt by marriage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    """One asserted fact: ``P{subject} is P{obj}'s {relation}`` (or a unary fact when ``obj`` is None)."""

    subject: int
    relation: str
    obj: int | None
    negated: bool
    step: int
    text: str


# relation: (structural base, gender the relation gives its subject); decided from the KB.
FAMILY_BINARY: dict[str, tuple[str, bool | None]] = {
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
FAMILY_UNCHECKED = frozenset(
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
FAMILY_RELATIONS = frozenset(FAMILY_BINARY) | FAMILY_UNCHECKED
GENDER_OF: dict[str, bool] = {
    **{rel: g for rel, (_, g) in FAMILY_BINARY.items() if g is not None},
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
KIN_CLASS: dict[str, str] = {
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
INVERSE_CLASS = {
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
SYMMETRIC = frozenset({"sibling", "cousin", "edge", "reachable"})
GRAPH_PAIR = re.compile(r"^(?:edge|reachable|[0-9]+-connected|path:[0-9]+)$")


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
