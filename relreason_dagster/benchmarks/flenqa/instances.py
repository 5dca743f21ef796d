"""FLenQA base instances: two key sentences, a question and a balanced True/False label.

The study released data but no generator; these are written from its §3.2 and
Appendix B.  Names come from Faker (seeded, shipped with the package, no
download).  Every task yields exactly half True and half False instances:

- MonoRel: "A is R B", "C is R A"; the question asks about the pair never
  compared (C vs B).  False questions reverse the pair or use the inverse relation.
- People In Rooms: "X is in <room>", "<room> <has property>"; property values come
  in mutually exclusive groups, so a False question names another value of the
  same group and no instance is ambiguous.
- Simplified Ruletaker: one rule "If X is A and X is B then X is C", two facts, the
  statement "N is C".  Instances come in pairs: the False twin differs from the
  True one in exactly one fact.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

MONOREL = "MonoRel"
PIR = "PIR"
RULETAKER = "Ruletaker"
TASKS: tuple[str, ...] = (MONOREL, PIR, RULETAKER)

# Monotone relations and their inverses: "A is younger than B" == "B is older than A".
RELATIONS: dict[str, str] = {
    "younger than": "older than",
    "taller than": "shorter than",
    "richer than": "poorer than",
    "heavier than": "lighter than",
    "faster than": "slower than",
    "stronger than": "weaker than",
    "louder than": "quieter than",
    "busier than": "idler than",
}
INVERSE: dict[str, str] = {**RELATIONS, **{v: k for k, v in RELATIONS.items()}}

ROOM_TYPES = (
    "living room", "kitchen", "library", "study", "attic", "cellar", "workshop", "guest room",
    "music room", "dining room", "sunroom", "office", "bedroom", "studio", "conservatory", "parlor",
)  # fmt: skip

# Mutually exclusive property groups: value -> (predicate after the room, adjective in the question).
PROPERTY_GROUPS: dict[str, dict[str, tuple[str, str]]] = {
    "floor": {
        "marble": ("has marble floors", "marble-floored"),
        "wooden": ("has wooden floors", "wooden-floored"),
        "carpeted": ("has carpeted floors", "carpeted"),
        "tiled": ("has tiled floors", "tile-floored"),
    },
    "walls": {
        "blue": ("has blue walls", "blue-walled"),
        "red": ("has red walls", "red-walled"),
        "green": ("has green walls", "green-walled"),
        "yellow": ("has yellow walls", "yellow-walled"),
    },
    "light": {
        "bright": ("is brightly lit", "brightly lit"),
        "dim": ("is dimly lit", "dimly lit"),
    },
    "size": {
        "spacious": ("is spacious", "spacious"),
        "cramped": ("is cramped", "cramped"),
    },
}

ATTRIBUTES = (
    "big", "good", "tall", "furry", "kind", "quiet", "young", "round", "smart", "rough",
    "cold", "green", "nice", "white", "strong", "blue", "red", "small", "happy", "calm",
)  # fmt: skip


@dataclass(frozen=True)
class BaseInstance:
    """One base instance before padding: what the prompt needs and what the solver checks."""

    task: str
    index: int
    label: bool
    key_sentences: tuple[str, str]
    question: str  # MonoRel/PIR: the question; Ruletaker: the statement to derive
    rule: str = ""  # Ruletaker only
    entities: tuple[str, ...] = ()  # names and rooms; similar padding never mentions them
    slots: dict[str, Any] = field(default_factory=dict)  # the values the paragraph templates fill in

    @property
    def base_id(self) -> str:
        return f"{self.task}-{self.index:03d}"


class NameSource:
    """Seeded person names from Faker; full names are unique within one generation."""

    def __init__(self, seed: int) -> None:
        from faker import Faker

        self._fake = Faker("en_US")
        self._fake.seed_instance(seed)
        self._used: set[str] = set()

    def _clean(self, value: str) -> str:
        return value.replace("'", "").replace(" ", "-")

    def first(self) -> str:
        return self._clean(self._fake.first_name())

    def full(self) -> str:
        while True:
            name = f"{self.first()} {self._clean(self._fake.last_name())}"
            if name not in self._used:
                self._used.add(name)
                return name


def _name_words(*names: str) -> tuple[str, ...]:
    """Every name and each of its words: a paragraph naming any of them is about this instance."""
    words: list[str] = []
    for name in names:
        words.append(name)
        words.extend(part for part in name.replace("'s ", " ").split() if part[:1].isupper())
    return tuple(dict.fromkeys(words))


def monorel(index: int, label: bool, rng: random.Random, names: NameSource) -> BaseInstance:
    relation = rng.choice(sorted(RELATIONS))
    a, b, c = names.full(), names.full(), names.full()
    key = (f"{a} is {relation} {b}.", f"{c} is {relation} {a}.")
    # Chain: c R a R b, so "c R b" is true; false questions reverse the pair or use the inverse.
    if label:
        question = rng.choice([f"Is {c} {relation} {b}?", f"Is {b} {INVERSE[relation]} {c}?"])
    else:
        question = rng.choice([f"Is {b} {relation} {c}?", f"Is {c} {INVERSE[relation]} {b}?"])
    return BaseInstance(
        MONOREL, index, label, key, question,
        entities=_name_words(a, b, c),
        slots={"relation": relation, "a": a, "b": b, "c": c},
    )  # fmt: skip


def pir(index: int, label: bool, rng: random.Random, names: NameSource) -> BaseInstance:
    person = names.full()
    owner = names.first()
    while owner in person.split():
        owner = names.first()
    room = f"{owner}'s {rng.choice(ROOM_TYPES)}"
    group = rng.choice(sorted(PROPERTY_GROUPS))
    values = sorted(PROPERTY_GROUPS[group])
    value = rng.choice(values)
    predicate, adjective = PROPERTY_GROUPS[group][value]
    asked = value if label else rng.choice([v for v in values if v != value])
    key = (f"{person} is in {room}.", f"{room} {predicate}.")
    question = f"Is {person} in a {PROPERTY_GROUPS[group][asked][1]} room?"
    return BaseInstance(
        PIR, index, label, key, question,
        entities=_name_words(person, room, owner),
        slots={"person": person, "room": room, "group": group, "value": value, "adjective": adjective},
    )  # fmt: skip


def ruletaker_pair(index: int, rng: random.Random, names: NameSource) -> tuple[BaseInstance, BaseInstance]:
    """A True instance and its False twin (one fact replaced by an attribute the rule does not use)."""
    name = names.first()
    a, b, c, d = rng.sample(ATTRIBUTES, 4)
    rule = f"If X is {a} and X is {b} then X is {c}."
    statement = f"{name} is {c}"
    true_key = (f"{name} is {a}.", f"{name} is {b}.")
    swap = rng.randrange(2)
    false_key = (f"{name} is {d}.", true_key[1]) if swap == 0 else (true_key[0], f"{name} is {d}.")
    slots = {"name": name, "rule_attrs": [a, b, c]}
    make = lambda i, label, key: BaseInstance(  # noqa: E731 - two calls, one shape
        RULETAKER, i, label, key, statement, rule=rule, entities=_name_words(name),
        slots={**slots, "facts": [k.split(" is ")[1].rstrip(".") for k in key]},
    )  # fmt: skip
    return make(index, True, true_key), make(index + 1, False, false_key)


def base_instances(task: str, count: int, seed: int) -> list[BaseInstance]:
    """``count`` instances of ``task`` (even: exactly half True), deterministic in ``seed``."""
    if count % 2:
        raise ValueError(f"FLenQA needs an even number of base instances per task, got {count}")
    rng = random.Random(f"flenqa:{seed}:{task}")
    names = NameSource(rng.randrange(2**31))
    out: list[BaseInstance] = []
    if task == RULETAKER:
        for i in range(0, count, 2):
            out.extend(ruletaker_pair(i, rng, names))
        return out
    make = monorel if task == MONOREL else pir
    labels = [True, False] * (count // 2)
    rng.shuffle(labels)
    return [make(i, label, rng, names) for i, label in enumerate(labels)]
