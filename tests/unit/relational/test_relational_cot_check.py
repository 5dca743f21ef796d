"""The relational chain-of-thought checker (``relational/cot_*.py``) on gold CoT, the relational
study's Figures 4 and 5, crafted Type1/Type2/Type3/RR/WW responses and hostile text.

The gold checks are the honest baseline: the benchmark's own CoT exemplars (``prompts.cot_answer``)
state only true facts, so any false claim or contradiction found there is a checker bug.  The
truth-table check states every cell of every target and compares the checker's verdict with the
generator's gold, so the checker's uncle / maternal great uncle / connectivity semantics cannot
drift from the benchmark's.
"""

from __future__ import annotations

import json
import random
import re

import pytest

from relreason_dagster.benchmarks.base import Sample
from relreason_dagster.benchmarks.relational import cot_claims, prompts
from relreason_dagster.benchmarks.relational.cot_claims import extract_claims, split_steps
from relreason_dagster.benchmarks.relational.cot_relations import Claim, describe
from relreason_dagster.benchmarks.relational.cot_verdict import SymbolicVerdict, check_reasoning
from relreason_dagster.benchmarks.relational.generate import decode_gold, make_sample
from relreason_dagster.benchmarks.relational.tasks import TASKS, task_spec

SEEDS = (0, 1, 2)


def _variants(task: str) -> tuple[str, ...]:
    return ("study", "nlm") if task == "IsMGUncle" else ("study",)


def _generated(task: str, seeds: tuple[int, ...], per_seed: int) -> list[Sample]:
    return [
        make_sample(task, "iid", index, n, seed, variant=variant)
        for n in (10, 20)
        for seed in seeds
        for index in range(per_seed)
        for variant in _variants(task)
    ]


def family_sample(
    n: int, families: dict[tuple[int, int], list[int]], males: set[int], task: str = "IsUncle"
) -> Sample:
    """A hand-built family: ``{(father, mother): children}``; children in ``males`` are sons."""
    preds: dict[str, list[list[int]]] = {name: [] for name in ("IsFather", "IsMother", "IsSon", "IsDaughter")}
    for (father, mother), children in families.items():
        for child in children:
            preds["IsFather"].append([child, father])
            preds["IsMother"].append([child, mother])
            for parent in (father, mother):
                preds["IsSon" if child in males else "IsDaughter"].append([parent, child])
    return _sample(task, n, preds, {"family_tree_variant": "study"})


def graph_sample(n: int, edges: list[tuple[int, int]], task: str = "2-Outdegree") -> Sample:
    pairs = [[a, b] for a, b in edges] + [[b, a] for a, b in edges]
    return _sample(task, n, {"HasEdge": pairs}, {})


def _sample(task: str, n: int, preds: dict[str, list[list[int]]], variant: dict[str, str]) -> Sample:
    return Sample(
        benchmark="relational",
        task=task,
        sample_id=f"hand-{task}-{n}",
        split="iid",
        n=n,
        variant=variant,
        input={"n": n, "index": 0, "predicates": preds},
        gold=[],
        label=None,
        seed=0,
        generator_version="test",
    )


# A small family: P0 (m) + P1 (f) -> P2 (f), P3 (m), P4 (m); P4 + P5 (f) -> P6 (m), P7 (f).
# P8 and P9 have no links, so the KB does not know their gender.
FAMILY = family_sample(10, {(0, 1): [2, 3, 4], (4, 5): [6, 7]}, males={0, 3, 4, 6})
# A path P0 - P1 - P2 - P3 and an isolated P4.
GRAPH = graph_sample(5, [(0, 1), (1, 2), (2, 3)])


# -- 1. gold CoT ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", TASKS)
def test_gold_cot_is_right_reasoning(task: str) -> None:
    """Every claim of the gold CoT is true, none contradicts another, and the verdict is RR."""
    checked_samples = 0
    for sample in _generated(task, SEEDS, per_seed=2):
        verdict = check_reasoning(sample, prompts.cot_answer(sample), answer_correct=True)
        assert verdict.error is None
        assert verdict.false_claims == [], (sample.sample_id, verdict.false_claims)
        assert verdict.contradictions == [], (sample.sample_id, verdict.contradictions)
        if sample.gold:
            checked_samples += 1
            # one deduction per listed cell, each with at least the conclusion as a checked claim
            listed = len(
                prompts.answer_cells(task_spec(task), decode_gold(sample.gold, task_spec(task).arity))
            )
            assert verdict.n_checked >= listed >= 1
            assert verdict.n_checked == len(verdict.claims)
            assert verdict.reasoning_correct is True
            assert verdict.category == "RR" and verdict.self_contra is False
        else:
            assert verdict.category == "unchecked"
    assert checked_samples > 0


@pytest.mark.parametrize("task", TASKS)
def test_answer_statements_agree_with_generator_gold(task: str) -> None:
    """Each cell's answer statement is true exactly when the cell is in the generator's gold."""
    spec = task_spec(task)
    for sample in _generated(task, (0, 1), per_seed=1):
        n = sample.input["n"]
        gold = decode_gold(sample.gold, spec.arity)
        cells = [(x,) for x in range(n)] if spec.arity == 1 else [(x, y) for x in range(n) for y in range(n)]
        positive = [c for c in cells if c in gold]
        negative = [c for c in cells if c not in gold]
        true_text = "\n".join(prompts.statement(spec, c) + "." for c in positive)
        false_text = "\n".join(prompts.statement(spec, c) + "." for c in negative)
        yes = check_reasoning(sample, true_text, answer_correct=True)
        no = check_reasoning(sample, false_text, answer_correct=True)
        assert len(yes.claims) == yes.n_checked == len(positive) and yes.false_claims == []
        assert len(no.claims) == no.n_checked == len(negative)
        assert sorted(no.false_claims) == sorted(
            f"{prompts.statement(spec, c)} (KB: false)" for c in negative
        )


# -- 2./3. the relational study's Figures 4 and 5 -------------------------------------------------------

FIGURE4 = """To determine the uncle relationships, we must find males who have siblings with children. \
An uncle is a brother to one of the parents.
First, we analyze the relations to establish sibling and parent-child relationships:
- - P8 is the father of P3 and also the mother of P3, which raise a contradiction (P8 holds two different \
and incompatible genders according to the relations).
- - P5 is the mother of P4, P7, and P8; P5 doesn't have any siblings mentioned.
Hence, the uncle relationship is:
- P0 is P4's uncle
- P0 is P7's uncle"""

_SHARING = "since he is a brother to their parents (sharing P13 and P19 as common parents)."
FIGURE5 = f"""Using this information, we can list the uncles and nieces/nephews:
- - P0 is the uncle of P5 and P16 {_SHARING}
- - P5 is the uncle of P0 and P2 {_SHARING}
Now, let's list the uncle-nephew/niece relationships:
- P4 is P1's uncle"""


def test_figure4_input_conflicting_genders_is_type3() -> None:
    # KB: "P8 is P3's mother; P3 is P8's daughter" (P9 the father), P5 + P6 the parents of P4, P7, P8.
    sample = family_sample(10, {(6, 5): [4, 7, 8], (9, 8): [3], (2, 1): [0]}, males={6, 9, 4, 7, 2, 0})
    verdict = check_reasoning(sample, FIGURE4, answer_correct=False)
    assert verdict.category == "type3" and verdict.self_contra is True
    assert "P8 is P3's father (KB: false)" in verdict.false_claims
    assert "P8 is P3's mother (KB: false)" not in verdict.false_claims
    assert (
        "P8 is the father of P3",
        "P8 is the father of P3 and also the mother of P3",
    ) in verdict.contradictions
    relations = {(c.subject, c.relation, c.obj) for c in verdict.claims}
    assert {
        (8, "father", 3),
        (8, "mother", 3),
        (5, "mother", 4),
        (5, "mother", 7),
        (5, "mother", 8),
    } <= relations
    # the same sentence without the mother half is a plain false step, not a contradiction
    single = check_reasoning(sample, "P8 is the father of P3. P5 is the mother of P8.", answer_correct=True)
    assert single.category == "type2" and single.contradictions == []


def test_figure5_uncle_in_both_directions_is_type3() -> None:
    # P13 + P19 are the parents of P0, P2, P5 and P16, so these are siblings, not uncles.
    sample = family_sample(20, {(13, 19): [0, 2, 5, 16], (8, 7): [1, 3]}, males={13, 8, 0, 5, 1})
    verdict = check_reasoning(sample, FIGURE5, answer_correct=False)
    assert verdict.category == "type3"
    assert ("P0 is the uncle of P5 and P16", "P5 is the uncle of P0 and P2") in verdict.contradictions
    uncles = {(c.subject, c.obj) for c in verdict.claims if c.relation == "uncle"}
    assert {(0, 5), (0, 16), (5, 0), (5, 2), (4, 1)} == uncles
    # either direction alone is only false
    alone = check_reasoning(sample, FIGURE5.splitlines()[1], answer_correct=False)
    assert alone.category == "WW" and alone.contradictions == []


# -- 4. crafted categories -----------------------------------------------------------------------------

RIGHT = "P4 is P6's father. P3 is P4's brother, so P3 is P6's uncle.\nFinal answer: P3 is P6's uncle."
WRONG_STEP = (
    "P0 is P6's father, and P3 is P4's brother, so P3 is P6's uncle.\nFinal answer: P3 is P6's uncle."
)


def test_rr_and_type1_differ_only_in_the_answer() -> None:
    rr = check_reasoning(FAMILY, RIGHT, answer_correct=True)
    assert (rr.category, rr.self_contra, rr.reasoning_correct) == ("RR", False, True)
    assert rr.n_checked == 3 and rr.n_steps == 2
    type1 = check_reasoning(FAMILY, RIGHT, answer_correct=False)
    assert (type1.category, type1.self_contra) == ("type1", True)


def test_type2_and_ww_name_the_false_step() -> None:
    type2 = check_reasoning(FAMILY, WRONG_STEP, answer_correct=True)
    assert (type2.category, type2.self_contra, type2.reasoning_correct) == ("type2", True, False)
    assert type2.false_claims == ["P0 is P6's father (KB: false)"]
    ww = check_reasoning(FAMILY, WRONG_STEP, answer_correct=False)
    assert (ww.category, ww.self_contra) == ("WW", False)


def test_final_answer_is_not_reasoning() -> None:
    """A wrong answer list after the marker does not make the reasoning wrong (Type1, not WW)."""
    text = "P4 is P6's father and P7 is P4's daughter.\nFinal answer: P9 is P6's uncle; P8 is P6's uncle."
    verdict = check_reasoning(FAMILY, text, answer_correct=False)
    assert verdict.category == "type1" and verdict.false_claims == []
    assert all(c.subject not in (8, 9) for c in verdict.claims)
    # a hallucinated next question is cut as well
    cont = "P4 is P6's father.\nQuestion: P9 is P6's father.\nFinal answer: None."
    assert check_reasoning(FAMILY, cont, answer_correct=True).category == "RR"
    # "Answer:" opening the response is not a cut point
    assert check_reasoning(FAMILY, "Answer: P4 is P6's father.", answer_correct=True).category == "RR"


def test_no_claims_is_unchecked() -> None:
    text = "Let me think about the family step by step. The wife of someone is not a relation here."
    for answer in (True, False, None):
        verdict = check_reasoning(FAMILY, text, answer_correct=answer)
        assert verdict.category == "unchecked" and verdict.self_contra is None
        assert verdict.reasoning_correct is None and verdict.n_checked == 0
    assert check_reasoning(FAMILY, RIGHT, answer_correct=None).category == "unchecked"


@pytest.mark.parametrize(
    "text",
    [
        "P3 is P4's brother. Later: P3 is not P4's brother.",  # a claim and its negation
        "P6 has no sister. P7 is P6's sister.",  # "no sister" against a named sister
        "P6 has 1 sister, and P6 has 2 sisters.",  # two counts
        "P4 is P6's father and P4 is P6's uncle.",  # one pair, two kinship relations
        "P0 is P4's parent. P4 is P0's parent.",  # asymmetric relation in both directions
        "P2 is P0's daughter. P2 is P3's brother.",  # female, then male
        "P3 has outdegree 2; P3 has outdegree 1.",  # two degrees (unchecked in a family, still a conflict)
    ],
)
def test_contradictions_are_type3_whatever_the_answer(text: str) -> None:
    for answer in (True, False, None):
        verdict = check_reasoning(FAMILY, text, answer_correct=answer)
        assert verdict.category == "type3", (text, verdict.claims)
        assert verdict.reasoning_correct is False and len(verdict.contradictions) == 1


def test_compatible_statements_are_not_contradictions() -> None:
    text = (
        "P4 is P6's father, so P4 is P6's parent and P6 is P4's son. P3 is P6's uncle and P6 is P3's nephew. "
        "P2 and P3 are siblings; P6 has 1 sister and P7 is P6's sister. P0 is P6's grandfather."
    )
    verdict = check_reasoning(FAMILY, text, answer_correct=True)
    assert verdict.contradictions == [] and verdict.false_claims == []
    assert verdict.category == "RR"


def test_graph_reasoning() -> None:
    right = (
        "P1 has edges only to P0 and P2, so P1 has 2 edges. P0 -> P1 -> P2 -> P3 is a path, so P0 and P3 "
        "are joined by a path of 3 edges and are 4-connected. There is no edge between P0 and P3. "
        "P4 has no edges."
    )
    verdict = check_reasoning(GRAPH, right, answer_correct=True)
    assert verdict.category == "RR" and verdict.n_checked == 11, [describe(c) for c in verdict.claims]
    wrong = check_reasoning(GRAPH, "P0 is connected to P2, so P0 has outdegree 2.", answer_correct=True)
    assert wrong.category == "type2"
    assert wrong.false_claims == [
        "there is an edge between P0 and P2 (KB: false)",
        "P0 has outdegree 2 (KB: false)",
    ]
    # family words are not decided on a graph (and never count as false)
    assert check_reasoning(GRAPH, "P1 is P0's father.", answer_correct=True).category == "unchecked"


def test_out_of_range_people_are_false_not_errors() -> None:
    verdict = check_reasoning(FAMILY, "P999 is P3's father, and P42 has sister. P999999 has 2 edges.", True)
    assert verdict.error is None and verdict.category == "type2"
    assert verdict.false_claims == ["P999 is P3's father (KB: false)", "P42 has sister (KB: false)"]
    # seven digits is not a name at all
    assert check_reasoning(FAMILY, "P1234567 is P3's father.", True).claims == []
    assert check_reasoning(GRAPH, "P77 is connected to P1.", True).category == "type2"


def test_unknown_gender_is_unchecked() -> None:
    # P9 is only known as P8's parent (IsSon), so whether P9 is a father or a mother is open.
    sample = _sample(
        "HasFather", 10, {"IsFather": [], "IsMother": [], "IsSon": [[9, 8]], "IsDaughter": []}, {}
    )
    assert check_reasoning(sample, "P9 is P8's father.", True).category == "unchecked"
    assert check_reasoning(sample, "P9 is P8's parent. P8 is male.", True).category == "RR"
    assert check_reasoning(sample, "P9 is P8's son.", True).category == "type2"
    assert check_reasoning(sample, "P8 has father.", True).category == "unchecked"


def test_hedged_and_questioned_statements_are_not_claims() -> None:
    for text in (
        "If P0 is P6's father, then the tree would be odd.",
        "We need to check whether P9 is P6's uncle.",
        "Is P9 P6's uncle?",
        "It is not true that P9 is P6's uncle.",
        "Suppose P8 is P3's mother.",
    ):
        assert extract_claims(text) == [], text
    # the consequent after "then" is asserted
    claims = extract_claims("If P4 is P6's father, then P3 is P6's uncle.")
    assert [(c.subject, c.relation, c.obj) for c in claims] == [(3, "uncle", 6)]


def test_garbage_never_raises() -> None:
    hostile: list[object] = [
        "",
        None,
        "P",
        "'s 's is is are P P P",
        "%%%\x00\ufffd" * 1000,
        "P1, " * 50_000 + "P2 are siblings.",
        "P0 is the uncle of " + "P1 and " * 5_000 + "P2.",
        ("P5 is P2's mother and P3 is P1's son. " * 5_000) + "x" * 300_000,
        "İ" * 1000 + "P1 is P0's son",
    ]
    vocab = (
        "P1 P2 P0 P999 P12 's ’s is are not isn't has have no does the a of to and , ; : . ? ( ) father "
        "mother uncle maternal great - -> sisters edge between only 2 two outdegree connected 4-connected "
        "joined by path via neither nor cannot be must who which if Final answer: \n in law as one"
    ).split(" ")
    rng = random.Random(7)
    hostile += [" ".join(rng.choice(vocab) for _ in range(rng.randrange(60))) for _ in range(300)]
    for text in hostile:
        for sample in (FAMILY, GRAPH):
            verdict = check_reasoning(sample, text, rng.choice([True, False, None]))  # type: ignore[arg-type]
            assert verdict.error is None, (verdict.error, str(text)[:80])
            assert verdict.category in ("RR", "WW", "type1", "type2", "type3", "unchecked")
            json.dumps(verdict.detail())
    # a sample the checker cannot read gives an error verdict, not an exception
    broken = _sample("IsUncle", 10, {}, {})
    object.__setattr__(broken, "input", {"predicates": {"IsFather": [[1]]}})
    verdict = check_reasoning(broken, RIGHT, answer_correct=True)
    assert verdict.category == "unchecked" and verdict.error


# -- extraction details --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("P5 is P2's mother.", ["P5 is P2's mother"]),
        ("P5 is the mother of P2.", ["P5 is P2's mother"]),
        ("P0 is the uncle of P5 and P16.", ["P0 is P5's uncle", "P0 is P16's uncle"]),
        ("P3 is not P8's daughter.", ["P3 is not P8's daughter"]),
        ("P3 isn't the daughter of P8.", ["P3 is not P8's daughter"]),
        ("P2 and P3 are siblings.", ["P2 is P3's sibling"]),
        ("P2 and P3 are sisters.", ["P2 is P3's sister", "P3 is P2's sister"]),
        ("P4 is a son of P1.", ["P4 is P1's son"]),
        ("P1's father is P7.", ["P7 is P1's father"]),
        ("The parents of P1 are P7 and P8.", ["P7 is P1's parent", "P8 is P1's parent"]),
        (
            "P5 is the mother of P4, P7, and P8.",
            ["P5 is P4's mother", "P5 is P7's mother", "P5 is P8's mother"],
        ),
        ("P5 is P2's and P3's mother.", ["P5 is P2's mother", "P5 is P3's mother"]),
        ("P2 and P3 are P1's daughters.", ["P2 is P1's daughter", "P3 is P1's daughter"]),
        ("P4 is the son of P1 and P2 is the daughter of P1.", ["P4 is P1's son", "P2 is P1's daughter"]),
        ("P0 is neither P1's father nor P2's father.", ["P0 is not P1's father", "P0 is not P2's father"]),
        ("P8 cannot be P3's father.", ["P8 is not P3's father"]),
        (
            "P5 has two daughters, P2 and P3.",
            ["P5 has 2 daughters", "P2 is P5's daughter", "P3 is P5's daughter"],
        ),
        ("P4, who is P0's uncle, is male.", ["P4 is P0's uncle", "P4 is male"]),
        ("**P8** is **P3’s** biological mother.", ["P8 is P3's mother"]),
        ("P4 is P0's maternal great-uncle.", ["P4 is P0's maternal great uncle"]),
        ("P1 is the grandfather of P6.", ["P1 is P6's grandfather"]),
        ("P0 has father.", ["P0 has father"]),
        ("P0 does not have a father.", ["P0 has no father"]),
        ("P0 has 2 sisters.", ["P0 has 2 sisters"]),
        ("P0 has no sisters.", ["P0 has no sister"]),
        ("P3 has outdegree 2.", ["P3 has outdegree 2"]),
        ("P3's outdegree is 2.", ["P3 has outdegree 2"]),
        ("P3 has 2 edges.", ["P3 has outdegree 2"]),
        (
            "P3 has edges only to P1 and P2.",
            [
                "there is an edge between P3 and P1",
                "there is an edge between P3 and P2",
                "P3 has outdegree 2",
            ],
        ),
        ("There is an edge between P1 and P2.", ["there is an edge between P1 and P2"]),
        ("There isn't an edge between P1 and P2.", ["there is no edge between P1 and P2"]),
        ("P1 is connected to P2.", ["there is an edge between P1 and P2"]),
        ("P1 and P2 are adjacent.", ["there is an edge between P1 and P2"]),
        ("P1 and P5 are connected via P3.", ["P1 and P5 are connected"]),
        ("P1 and P2 are 4-connected.", ["P1 and P2 are 4-connected"]),
        ("P1 and P2 are joined by a path of 3 edges.", ["P1 and P2 are joined by a path of at most 3 edges"]),
        ("P0 -> P5 -> P3.", ["there is an edge between P0 and P5", "there is an edge between P5 and P3"]),
        ("The nodes P0-P9 are all given.", []),
        ("P6 is P2's wife and P6 is 40 years old.", []),
        ("P2 is P5's father-in-law.", []),
        ("P4 is P0's aunt.", ["P4 is P0's aunt"]),
    ],
)
def test_phrasings(text: str, expected: list[str]) -> None:
    assert [describe(c) for c in extract_claims(text)] == expected


def test_gold_cot_phrasing_for_connectivity_keeps_the_subject_pair() -> None:
    """In "... an edge between P5 and P3, P0 and P3 are joined ..." the subject is P0 and P3 only."""
    text = (
        "Since there is an edge between P0 and P5 and an edge between P5 and P3, P0 and P3 are joined by a "
        "path of 2 edges, so we can derive that P0 and P3 are 4-connected."
    )
    assert [describe(c) for c in extract_claims(text)] == [
        "there is an edge between P0 and P5",
        "there is an edge between P5 and P3",
        "P0 and P3 are joined by a path of at most 2 edges",
        "P0 and P3 are 4-connected",
    ]


def test_steps_and_claim_fields() -> None:
    text = "1. P4 is P6's father.\n- P3 is P4's brother. So P3 is P6's uncle!\n\n   \n** Done"
    assert split_steps(text) == ["P4 is P6's father.", "P3 is P4's brother.", "So P3 is P6's uncle!", "Done"]
    claims = extract_claims(text)
    assert claims[0] == Claim(4, "father", 6, False, 0, "P4 is P6's father")
    assert [c.step for c in claims] == [0, 1, 2]
    assert split_steps("") == [] and split_steps(None) == []  # type: ignore[arg-type]


def test_detail_and_self_contra_mapping() -> None:
    verdict = check_reasoning(FAMILY, "P4 is P6's father and P4 is P6's uncle.", answer_correct=True)
    detail = verdict.detail()
    assert json.loads(json.dumps(detail)) == detail
    assert detail["category"] == "type3" and detail["self_contra"] is True
    assert detail["n_claims"] == 2 and detail["n_checked"] == 2 and detail["n_false"] == 1
    assert detail["contradictions"] == [["P4 is P6's father", "P4 is P6's uncle"]]
    expected = {"RR": False, "WW": False, "type1": True, "type2": True, "type3": True, "unchecked": None}
    for category, self_contra in expected.items():
        assert SymbolicVerdict(0, [], 0, [], [], None, category).self_contra is self_contra


# -- speed-ups that must not change a claim (issue 19) ---------------------------------------------------

# The extractor's regular expressions as first written; the module's faster spellings must match the same.
_READABLE_TOKEN = (
    r"(?<![a-z0-9])p {0,2}([0-9]{1,6})(?![0-9])"
    r"|('s)(?![a-z])"
    r"|([a-z]+)n't(?![a-z])"
    r"|([0-9]+)"
    r"|([a-z]+)"
    r"|([.,;:!?()\[\]\"/&])"
)
_READABLE_ARROW = (
    r"(?<![a-z0-9])p ?[0-9]{1,6}(?![0-9])"
    r"(?:[ \t]*(?:<-->|<->|-->|->|--|=>|\u2192|\u2194|\u2014|\u2013|-)[ \t]*p ?[0-9]{1,6}(?![0-9]))+"
)
_TRICKY = (
    "p1 p 12 p  123 p   1 ap1 1p1 p1234567 p12a P3's 's 'sx isn't isn'tx isnn't n't p1n't wasn't ben't "
    "final answer: final  answer is answers are: the answer is the  answers\nare answerable: answer\tis "
    "p1->p2 p1 - p2 -> p 3 p1<->p2=>p3\u2192p4 p1--p2 nodes p0-p9 edge edges hasn't p1is p9is edgen't "
    '( ) [ ] " / & . , ; : ! ? \u00a0 \u2028 \u2022 - * # > + 12. (3) x'
)


def _texts(count: int, seed: int) -> list[str]:
    """Tricky strings, and random sentences from the words a claim is made of."""
    words = _TRICKY.split(" ") + (
        "P1 P2 P0 P12 is are was were be has have had not no the a of to and , . ? father mother uncle "
        "maternal great sisters edge between from only 2 two outdegree connected 4-connected joined by path "
        "via must cannot who which if then Final answer: \n as one - -> ’s"
    ).split(" ")
    rng = random.Random(seed)
    texts = [_TRICKY, _TRICKY.lower(), _TRICKY.replace(" ", "")]
    texts += [" ".join(rng.choice(words) for _ in range(rng.randrange(40))) for _ in range(count)]
    return texts


def test_fast_regexes_match_their_readable_forms() -> None:
    final = cot_claims._FINAL
    readable_answer = (
        rf"(?:{final}|answers?)(?:\s*(?:is|are))?\s*:|(?:the\s+|final\s+)?answers?\s+(?:is|are)\b"
    )
    pairs = [
        (re.compile(_READABLE_TOKEN), cot_claims._TOKEN),
        (re.compile(_READABLE_ARROW), cot_claims._ARROW_CHAIN),
        (re.compile(readable_answer), cot_claims._ANSWER_MARKER),
    ]
    for text in _texts(1500, seed=19):
        norm = text.translate(cot_claims._NORMALISE)
        for readable, fast in pairs:
            want = [(m.span(), m.lastindex, m.groups()) for m in readable.finditer(norm)]
            assert [(m.span(), m.lastindex, m.groups()) for m in fast.finditer(norm)] == want, text
            end = len(norm) // 2  # reasoning_part scans up to a cut
            assert [m.span() for m in fast.finditer(norm, 0, end)] == [
                m.span() for m in readable.finditer(norm, 0, end)
            ]


def test_memo_and_anchor_filter_change_no_claim() -> None:
    """``step_claims`` (memoised, anchor-less steps skipped) gives what a full parse of the step gives."""

    def full_parse(step: str, index: int) -> list[Claim]:
        if step.rstrip().endswith("?"):
            return []
        parser = cot_claims._StepParser(step, step.translate(cot_claims._NORMALISE))
        return [Claim(s, r, o, n, index, said) for s, r, o, n, said in parser.run()]

    texts = _texts(1500, seed=7) + [FIGURE4, FIGURE5, RIGHT, WRONG_STEP]
    cot_claims._step_facts.cache_clear()
    found = 0
    for round_ in range(2):  # cold, then every step memoised
        for text in texts:
            for index, step in enumerate(split_steps(text)):
                got = cot_claims.step_claims(step, index + round_)
                assert got == full_parse(step, index + round_), step
                found += len(got)
    assert found > 500
    # a long step is not memoised, and still parsed in full
    long_step = "P5 is P2's mother and P3 is P1's son, " * 40 + "P4 is P0's uncle."
    assert len(long_step) > cot_claims.MEMO_CHARS
    assert cot_claims.step_claims(long_step, 3) == full_parse(long_step, 3) != []
