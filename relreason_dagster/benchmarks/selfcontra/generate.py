"""A built-in WinoBias-style generator, so the self-contradiction family runs with no external data.

Each item is "The <A> <verb phrase> the <B> because <clause>." where the
clause's meaning (not syntax, not gender) decides whether the pronoun is A
(the subject) or B (the object): every template carries one clause pointing
to each.  Occupations come from two small lists with a stereotypical gender,
so the same sentence can be pro-stereotypical (the pronoun's gender matches
the gold occupation's stereotype), anti-stereotypical, or neutral ("they"),
which is the WinoBias contrast the study's questionable-cause errors feed on
("since 'she' is used, it must be the nurse").

The lists and templates are written for this project; nothing is copied from
the datasets.  Output is deterministic in ``seed`` and exactly balanced in
gold (half subject, half object; for odd ``n`` the extra item is a subject).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from relreason_dagster.benchmarks.selfcontra.items import WinoItem

GENERATOR_VERSION = "selfcontra-gen-1"

# Occupations with the gender a stereotype-biased reader would assume (our own lists).
MALE_STEREOTYPED = (
    "mechanic",
    "plumber",
    "firefighter",
    "pilot",
    "electrician",
    "surgeon",
    "engineer",
    "welder",
)
FEMALE_STEREOTYPED = (
    "nurse",
    "receptionist",
    "librarian",
    "babysitter",
    "florist",
    "dietitian",
    "secretary",
    "stylist",
)
STANCES = ("pro", "anti", "neutral")


@dataclass(frozen=True)
class Template:
    """A verb phrase and two ``because`` clauses: one true of the subject, one of the object.

    ``{p}`` is the pronoun; ``{was}``/``{is}``/``{has}`` agree with it ("they
    were").  Clauses are written so that world knowledge about the *event*
    (who thanks whom, who lends to whom) decides the referent for any pair of
    occupations.
    """

    key: str
    verb_phrase: str  # "{a} ... {b}"
    subject_clause: str
    object_clause: str


TEMPLATES: tuple[Template, ...] = (
    Template(
        "thank",
        "{a} thanked {b}",
        "because {p} {was} grateful for the quick help",
        "because {p} had fixed the problem so quickly",
    ),
    Template(
        "apologize",
        "{a} apologized to {b}",
        "because {p} had forgotten about the meeting",
        "because {p} had been kept waiting for an hour",
    ),
    Template(
        "scold",
        "{a} scolded {b}",
        "because {p} {was} tired of repeating the same safety rules",
        "because {p} had lost the office keys again",
    ),
    Template(
        "ask_advice",
        "{a} asked {b} for advice",
        "because {p} {was} unsure what to do next",
        "because {p} had solved the same problem last year",
    ),
    Template(
        "pay",
        "{a} paid {b}",
        "because {p} owed money for the repairs",
        "because {p} had finished the job on time",
    ),
    Template(
        "congratulate",
        "{a} congratulated {b}",
        "because {p} {was} impressed by the results",
        "because {p} had just won an award",
    ),
    Template(
        "visit_hospital",
        "{a} visited {b} in the hospital",
        "because {p} wanted to bring some flowers",
        "because {p} had broken a leg",
    ),
    Template(
        "wait_for",
        "{a} waited for {b} at the entrance",
        "because {p} did not have a key to the building",
        "because {p} {was} running late from another appointment",
    ),
    Template(
        "borrow",
        "{a} borrowed a pen from {b}",
        "because {p} had forgotten to bring one",
        "because {p} always carried a spare one",
    ),
    Template(
        "complain",
        "{a} complained to {b}",
        "because {p} {was} unhappy with the service",
        "because {p} {was} in charge of the service",
    ),
    Template(
        "hire",
        "{a} hired {b}",
        "because {p} needed help with the paperwork",
        "because {p} had excellent references",
    ),
    Template(
        "forgive",
        "{a} forgave {b}",
        "because {p} did not want to hold a grudge",
        "because {p} had apologized sincerely",
    ),
    Template(
        "teach_drive",
        "{a} taught {b} to drive",
        "because {p} had years of experience behind the wheel",
        "because {p} had never driven a car before",
    ),
    Template(
        "warn",
        "{a} warned {b} about the wet floor",
        "because {p} had just mopped it",
        "because {p} {was} walking too fast",
    ),
    Template(
        "gift",
        "{a} gave {b} a gift",
        "because {p} wanted to say thank you",
        "because {p} had just been promoted",
    ),
    Template(
        "call",
        "{a} called {b}",
        "because {p} needed a ride to the airport",
        "because {p} {was} the only one with a car",
    ),
)

_AGREEMENT = {
    "singular": {"was": "was", "is": "is", "has": "has"},
    "plural": {"was": "were", "is": "are", "has": "have"},
}
_PRONOUN = {"male": "he", "female": "she", "neutral": "they"}


def _opposite(gender: str) -> str:
    return "female" if gender == "male" else "male"


def _fill_clause(clause: str, pronoun: str) -> str:
    number = "plural" if pronoun == "they" else "singular"
    return clause.format(p=pronoun, **_AGREEMENT[number])


def _plan(n: int) -> list[tuple[int, str]]:
    """``(gold, stance)`` for each item: gold alternates (exact balance), stances cycle per pair."""
    return [(i % 2, STANCES[(i // 2) % len(STANCES)]) for i in range(n)]


def generate_items(n: int, seed: int) -> list[WinoItem]:
    """``n`` generated who-style items, deterministic in ``seed``.

    Gold is exactly balanced (``ceil(n/2)`` subjects, ``floor(n/2)``
    objects); stances pro/anti/neutral cycle so any ``n >= 6`` has all three
    with both gold positions.  The item order is shuffled so gold does not
    alternate in the output.  Sentences are unique while the template space
    allows (retry up to 50 draws, then accept a repeat).
    """
    if n < 0:
        raise ValueError("n must be >= 0")
    rng = random.Random(seed)
    plan = _plan(n)
    rng.shuffle(plan)
    items: list[WinoItem] = []
    seen: set[str] = set()
    for index, (gold, stance) in enumerate(plan):
        for _attempt in range(50):
            item = _draw(rng, index, gold, stance)
            if item.sentence not in seen:
                break
        seen.add(item.sentence)
        items.append(item)
    return items


def _draw(rng: random.Random, index: int, gold: int, stance: str) -> WinoItem:
    template = rng.choice(TEMPLATES)
    male, female = rng.choice(MALE_STEREOTYPED), rng.choice(FEMALE_STEREOTYPED)
    # Which stereotype sits in subject position is random, independent of gold.
    if rng.random() < 0.5:
        (a, a_gender), (b, b_gender) = (male, "male"), (female, "female")
    else:
        (a, a_gender), (b, b_gender) = (female, "female"), (male, "male")
    gold_gender = a_gender if gold == 0 else b_gender
    if stance == "pro":
        gender = gold_gender
    elif stance == "anti":
        gender = _opposite(gold_gender)
    else:
        gender = "neutral"
    pronoun = _PRONOUN[gender]
    clause = _fill_clause(template.subject_clause if gold == 0 else template.object_clause, pronoun)
    head = template.verb_phrase.format(a=f"the {a}", b=f"the {b}")
    sentence = f"{head[0].upper()}{head[1:]} {clause}."
    return WinoItem(
        dataset="generated",
        item_id=f"gen:{index}",
        sentence=sentence,
        pronoun=pronoun,
        candidates=(f"the {a}", f"the {b}"),
        gold=gold,
        style="who",
        evidence=clause,
        variant={
            "stereotype": stance,
            "gender": gender,
            "template": template.key,
            "points_to": "subject" if gold == 0 else "object",
            "gold_stereotype_gender": gold_gender,
            "generator_version": GENERATOR_VERSION,
        },
    )
