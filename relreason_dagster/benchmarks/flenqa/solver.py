"""A small symbolic solver: reads facts from any text and answers an instance's question.

It is the independent check on the generator: every instance must be solvable
from its two key sentences alone, and the full padded text (padding included)
must give the same answer, i.e. padding never adds, removes or contradicts a
fact about the question's entities.  It reads sentence shapes, not the
generator's data structures: "A is younger than B.", "X is in R.",
"R has marble floors.", "N is big." and the rule "If X is A and X is B then X is C.".
"""

from __future__ import annotations

import re
from collections import defaultdict

from relreason_dagster.benchmarks.flenqa.instances import INVERSE, MONOREL, PIR, PROPERTY_GROUPS, RULETAKER

_SPLIT = re.compile(r"(?<=[.?!])\s+|\n+")
_NAME = r"[A-Z][\w'-]*(?: [A-Z][\w'-]*)*"
_REL = "|".join(sorted((re.escape(r) for r in INVERSE), key=len, reverse=True))
_COMPARE = re.compile(rf"^({_NAME}) is ({_REL}) ({_NAME})[.?]$")
_QUESTION_COMPARE = re.compile(rf"^Is ({_NAME}) ({_REL}) ({_NAME})\?$")
_IN_ROOM = re.compile(rf"^({_NAME}) is in ({_NAME}'s [a-z ]+)\.$")
_PREDICATES = {
    pred: (group, value) for group, vals in PROPERTY_GROUPS.items() for value, (pred, _) in vals.items()
}
_ADJECTIVES = {
    adj: (group, value) for group, vals in PROPERTY_GROUPS.items() for value, (_, adj) in vals.items()
}
_HAS = re.compile(rf"^({_NAME}'s [a-z ]+?) ({'|'.join(re.escape(p) for p in _PREDICATES)})\.$")
_QUESTION_ROOM = re.compile(rf"^Is ({_NAME}) in an? (.+) room\?$")
_ATTRIBUTE = re.compile(rf"^({_NAME}) is ([a-z]+)\.$")
_RULE = re.compile(r"^If X is ([a-z]+) and X is ([a-z]+) then X is ([a-z]+)\.$")
_STATEMENT = re.compile(rf"^\"?({_NAME}) is ([a-z]+)\"?$")


def sentences(text: str) -> list[str]:
    return [s.strip() for s in _SPLIT.split(text) if s.strip()]


def solve_monorel(text: str, question: str) -> bool | None:
    """Transitive closure of the comparisons in ``text``; None if the question is undecided."""
    q = _QUESTION_COMPARE.match(question)
    if not q:
        return None
    x, relation, y = q.groups()
    forward = relation  # "a R b" is an edge a -> b; "a R' b" (R' the inverse of R) an edge b -> a
    edges: dict[str, set[str]] = defaultdict(set)
    for s in sentences(text):
        m = _COMPARE.match(s)
        if not m:
            continue
        a, rel, b = m.groups()
        if rel == forward:
            edges[a].add(b)
        elif rel == INVERSE[forward]:
            edges[b].add(a)

    def reaches(src: str, dst: str) -> bool:
        seen, todo = {src}, [src]
        while todo:
            for nxt in edges[todo.pop()]:
                if nxt == dst:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    if reaches(x, y):
        return True
    if reaches(y, x):
        return False
    return None


def solve_pir(text: str, question: str) -> bool | None:
    """Where the person is and what that room is like; None if either is not stated."""
    q = _QUESTION_ROOM.match(question)
    if not q or q.group(2) not in _ADJECTIVES:
        return None
    person, (group, value) = q.group(1), _ADJECTIVES[q.group(2)]
    rooms: set[str] = set()
    properties: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for s in sentences(text):
        if m := _IN_ROOM.match(s):
            if m.group(1) == person:
                rooms.add(m.group(2))
        elif m := _HAS.match(s):
            properties[m.group(1)].add(_PREDICATES[m.group(2)])
    if len(rooms) != 1:
        return None
    stated = {v for g, v in properties[rooms.pop()] if g == group}
    if len(stated) != 1:
        return None
    return value in stated


def solve_ruletaker(text: str, rule: str, statement: str) -> bool:
    """Closed-world derivation: the statement holds iff stated or both rule premises are stated."""
    r, st = _RULE.match(rule), _STATEMENT.match(statement)
    if not r or not st:
        return False
    name, goal = st.groups()
    facts = {m.group(2) for s in sentences(text) if (m := _ATTRIBUTE.match(s)) and m.group(1) == name}
    a, b, c = r.groups()
    return goal in facts or (goal == c and a in facts and b in facts)


def solve(task: str, text: str, question: str, rule: str = "") -> bool | None:
    """The answer to ``question`` from ``text`` alone (None: the text does not decide it)."""
    if task == MONOREL:
        return solve_monorel(text, question)
    if task == PIR:
        return solve_pir(text, question)
    if task == RULETAKER:
        return solve_ruletaker(text, rule, question)
    raise ValueError(f"unknown FLenQA task {task!r}")
