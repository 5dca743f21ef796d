"""The nine relational-reasoning tasks of the study (section 3.1) and how each is worded.

One table drives generation, prompting and parsing, so the relation word a
prompt asks about and the statement the parser looks for cannot drift apart.
Statement templates use ``{x}``/``{y}`` for the target's arguments, in the
study's argument order: ``IsUncle(x, y)`` is true iff ``y`` is ``x``'s uncle,
so its statement is ``P{y} is P{x}'s uncle``.
"""

from __future__ import annotations

from dataclasses import dataclass

from relreason_dagster.errors import ConfigError

FAMILY = "family"
GRAPH = "graph"

FAMILY_BASE = ("IsFather", "IsMother", "IsSon", "IsDaughter")
GRAPH_BASE = ("HasEdge",)

# Base-predicate sentences, Figure 3 style: "P{y} is P{x}'s father" for IsFather(x, y).
BASE_STATEMENTS: dict[str, str] = {
    "IsFather": "P{y} is P{x}'s father",
    "IsMother": "P{y} is P{x}'s mother",
    "IsSon": "P{y} is P{x}'s son",
    "IsDaughter": "P{y} is P{x}'s daughter",
    "HasEdge": "there is an edge between P{x} and P{y}",
}

# What a 1 in a truth-value matrix of a base predicate means (tv prompts).
BASE_TV_MEANING: dict[str, str] = {
    "IsFather": "IsFather[x][y] = 1 if Py is Px's father",
    "IsMother": "IsMother[x][y] = 1 if Py is Px's mother",
    "IsSon": "IsSon[x][y] = 1 if Py is Px's son",
    "IsDaughter": "IsDaughter[x][y] = 1 if Py is Px's daughter",
    "HasEdge": "HasEdge[x][y] = 1 if there is an edge between Px and Py",
}


@dataclass(frozen=True)
class TaskSpec:
    """Everything task-specific that prompts and parsers need."""

    name: str
    domain: str  # family | graph
    arity: int  # 1: unary target HasX(x); 2: binary target IsX(x, y)
    base_predicates: tuple[str, ...]
    word: str  # the nl relation word ("sister", "uncle", "4-connected", ...)
    statement: str  # one answer statement, e.g. "P{y} is P{x}'s uncle"
    answer_format: str  # the format line the prompt demands, e.g. "Who is Whose uncle"
    question: str  # the nl question, e.g. "who is whose uncle?"
    tv_meaning: str  # what a 1 in the target truth-value list means
    symmetric: bool = False  # binary and symmetric: the answer lists each unordered pair once
    hops: int = 0  # connectivity bound (graph)
    degree: int = 0  # exact outdegree (graph)

    @property
    def is_binary(self) -> bool:
        return self.arity == 2


def _family_unary(name: str, word: str) -> TaskSpec:
    return TaskSpec(
        name=name,
        domain=FAMILY,
        arity=1,
        base_predicates=FAMILY_BASE,
        word=word,
        statement="P{x} has " + word,
        answer_format=f"Who has {word}",
        question=f"who has the relation {word}?",
        tv_meaning=f"{name}[x] = 1 if Px has a {word}",
    )


def _family_binary(name: str, word: str) -> TaskSpec:
    return TaskSpec(
        name=name,
        domain=FAMILY,
        arity=2,
        base_predicates=FAMILY_BASE,
        word=word,
        statement="P{y} is P{x}'s " + word,
        answer_format=f"Who is Whose {word}",
        question=f"who is whose {word}? Please answer by listing all the pairs that satisfied.",
        tv_meaning=f"{name}[x][y] = 1 if Py is Px's {word}",
    )


def _connectivity(hops: int) -> TaskSpec:
    word = f"{hops}-connected"
    return TaskSpec(
        name=f"{hops}-Connectivity",
        domain=GRAPH,
        arity=2,
        base_predicates=GRAPH_BASE,
        word=word,
        statement="P{x} and P{y} are " + word,
        answer_format=f"Who and Who are {word}",
        question=(
            f"which pairs of different nodes are {word} (joined by a path of at most {hops} edges)? "
            "Please answer by listing all the pairs that satisfied."
        ),
        tv_meaning=(
            f"{hops}-Connectivity[x][y] = 1 if Px and Py are different nodes joined by a path "
            f"of at most {hops} edges"
        ),
        symmetric=True,
        hops=hops,
    )


def _outdegree(degree: int) -> TaskSpec:
    word = f"outdegree {degree}"
    return TaskSpec(
        name=f"{degree}-Outdegree",
        domain=GRAPH,
        arity=1,
        base_predicates=GRAPH_BASE,
        word=word,
        statement="P{x} has " + word,
        answer_format=f"Who has {word}",
        question=f"which nodes have {word} (exactly {degree} edge{'s' if degree != 1 else ''})?",
        tv_meaning=f"{degree}-Outdegree[x] = 1 if Px has exactly {degree} edge{'s' if degree != 1 else ''}",
        degree=degree,
    )


TASK_SPECS: dict[str, TaskSpec] = {
    spec.name: spec
    for spec in (
        _family_unary("HasFather", "father"),
        _family_unary("HasSister", "sister"),
        _family_binary("IsGrandparent", "grandparent"),
        _family_binary("IsUncle", "uncle"),
        _family_binary("IsMGUncle", "maternal great uncle"),
        _connectivity(4),
        _connectivity(6),
        _outdegree(1),
        _outdegree(2),
    )
}

TASKS: tuple[str, ...] = tuple(TASK_SPECS)
FAMILY_TASKS: tuple[str, ...] = tuple(t for t, s in TASK_SPECS.items() if s.domain == FAMILY)
GRAPH_TASKS: tuple[str, ...] = tuple(t for t, s in TASK_SPECS.items() if s.domain == GRAPH)


def task_spec(task: str) -> TaskSpec:
    """The spec of ``task``; an unknown name is a one-line ConfigError."""
    try:
        return TASK_SPECS[task]
    except KeyError:
        raise ConfigError(f"unknown relational task {task!r}; known: {', '.join(TASKS)}") from None
