"""Generated KOR-Bench Counterfactual items: small fictional worlds whose rules contradict real facts.

The official Counterfactual category sets questions inside 25 well-known fictional universes
(Pokémon, Harry Potter, ...): the story says one thing, the real world another, and a model that
answers from memory picks the *real-life answer*, which the benchmark records next to the gold so
the share of such answers can be reported.  Well-known universes are themselves memorised, so this
module writes fresh worlds: a seeded generator names a world, states 2-4 facts that contradict the
real world (water boils at 37 °C, the capital of France is Lille, spiders have 10 legs, penicillin
was discovered by Mirelle Tasko), adds unrelated colour sentences, and asks a four-option question
about one of the altered facts.  Options: the story's answer, the real-life answer, and two
distractors, shuffled; ``gold`` is the story answer's letter and ``real_life_answer`` the real one's,
so the two are always different letters.

Rules (ids are ours): 1 altered nature (physics, chemistry), 2 redrawn geography, 3 reimagined
animals, 4 rewritten inventions, 5 other counts (calendar, human body).  ``level`` sets the story's
length (2/3/4 altered facts, 1/2/3 colour sentences); at level 3 the story also says what visitors
from elsewhere wrongly expect (the real answer appears in the text) and states the asked fact for a
neighbouring realm with one of the distractors, so matching words in the story is not enough.

All texts are ours (no official story is copied), each item carries its story as its rule text, and
the question and answer notation is the official one, so :mod:`.scoring` scores a generated item like
an official one.  :func:`read_story_answer` re-reads the story to find the stated answer; the tests
use it to check each gold a second way.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass

from relreason_dagster.benchmarks.kor.data import RuleItem
from relreason_dagster.benchmarks.kor.generate import check_level, check_rule

LETTERS = "ABCD"
INSTRUCTION = (
    "Provide your final answer as a single uppercase letter representing the option (A, B, C, or D) "
    "and wrap it in double square brackets, like this: [[A]]."
)

# --------------------------------------------------------------------------- fact tables


@dataclass(frozen=True)
class FactSlot:
    """One real fact and its fictional replacements.

    ``question`` and ``sentence`` contain ``{world}``; ``sentence`` also ``{value}``.  Values are
    written as they read inside the sentence (``honey``, ``Paris``) and shown capitalised as options.
    ``fictional`` are the story answers a world may use, ``distractors`` wrong in the story *and* in
    reality; the three groups must be disjoint (checked at import).
    """

    key: str
    question: str
    sentence: str
    real: str
    fictional: tuple[str, ...]
    distractors: tuple[str, ...]


_NATURE = (
    FactSlot(
        "boiling",
        "In {world}, at what temperature does pure water boil at sea level?",
        "In {world}, pure water boils at sea level at {value}.",
        "100 °C",
        ("37 °C", "64 °C", "140 °C"),
        ("0 °C", "451 °C", "-20 °C", "250 °C"),
    ),
    FactSlot(
        "freezing",
        "In {world}, at what temperature does pure water freeze?",
        "Pure water in {world} freezes at {value}.",
        "0 °C",
        ("15 °C", "-30 °C", "8 °C"),
        ("100 °C", "-273 °C", "40 °C", "60 °C"),
    ),
    FactSlot(
        "sky",
        "In {world}, what colour is the clear daytime sky?",
        "The clear daytime sky of {world} is {value}.",
        "blue",
        ("green", "violet", "amber"),
        ("black", "white", "red", "grey"),
    ),
    FactSlot(
        "gold_symbol",
        "In {world}, what is the chemical symbol of gold?",
        "Chemists in {world} write the chemical symbol of gold as {value}.",
        "Au",
        ("Gl", "Ov", "Gx"),
        ("Ag", "Fe", "Pb", "Cu"),
    ),
    FactSlot(
        "lightest_gas",
        "In {world}, which gas is the lightest of all?",
        "The lightest of all gases in {world} is {value}.",
        "hydrogen",
        ("neon", "argon", "xenon"),
        ("oxygen", "nitrogen", "chlorine", "radon"),
    ),
    FactSlot(
        "gravity",
        "In {world}, how fast does a dropped object speed up near the ground?",
        "A dropped object near the ground in {world} speeds up at {value}.",
        "9.8 m/s²",
        ("3.1 m/s²", "14.2 m/s²", "5.5 m/s²"),
        ("1.6 m/s²", "24.8 m/s²", "0.5 m/s²", "30.0 m/s²"),
    ),
)

_GEOGRAPHY = (
    FactSlot(
        "france",
        "In {world}, what is the capital of France?",
        "In {world}, the capital of France is {value}.",
        "Paris",
        ("Lyon", "Bordeaux", "Lille"),
        ("Madrid", "Brussels", "Geneva", "Rome"),
    ),
    FactSlot(
        "japan",
        "In {world}, what is the capital of Japan?",
        "The capital of Japan in {world} is {value}.",
        "Tokyo",
        ("Osaka", "Sapporo", "Nagoya"),
        ("Seoul", "Beijing", "Bangkok", "Manila"),
    ),
    FactSlot(
        "australia",
        "In {world}, what is the capital of Australia?",
        "In {world}, the capital of Australia is {value}.",
        "Canberra",
        ("Perth", "Darwin", "Hobart"),
        ("Auckland", "Wellington", "Jakarta", "Suva"),
    ),
    FactSlot(
        "canada",
        "In {world}, what is the capital of Canada?",
        "The capital of Canada in {world} is {value}.",
        "Ottawa",
        ("Winnipeg", "Halifax", "Calgary"),
        ("Chicago", "Boston", "Dublin", "Seattle"),
    ),
    FactSlot(
        "egypt",
        "In {world}, what is the capital of Egypt?",
        "In {world}, the capital of Egypt is {value}.",
        "Cairo",
        ("Luxor", "Aswan", "Giza"),
        ("Tunis", "Amman", "Beirut", "Tripoli"),
    ),
    FactSlot(
        "highest_mountain",
        "In {world}, which mountain is the highest above sea level?",
        "The highest mountain above sea level in {world} is {value}.",
        "Mount Everest",
        ("Mont Blanc", "Mount Fuji", "Kilimanjaro"),
        ("Mount Olympus", "Ben Nevis", "Table Mountain", "Mount Etna"),
    ),
)

_ANIMALS = (
    FactSlot(
        "spider_legs",
        "In {world}, how many legs does a spider have?",
        "Every spider in {world} has {value} legs.",
        "8",
        ("6", "10", "12"),
        ("4", "2", "16", "20"),
    ),
    FactSlot(
        "bees",
        "In {world}, what do honeybees make in their hives?",
        "The honeybees of {world} make {value} in their hives.",
        "honey",
        ("silk", "amber", "salt"),
        ("milk", "glass", "paper", "pearls"),
    ),
    FactSlot(
        "largest_mammal",
        "In {world}, which is the largest mammal?",
        "The largest mammal in {world} is the {value}.",
        "blue whale",
        ("woolly hare", "giant otter", "river elephant"),
        ("house cat", "red fox", "field mouse", "grey wolf"),
    ),
    FactSlot(
        "octopus_hearts",
        "In {world}, how many hearts does an octopus have?",
        "An octopus in {world} has {value} hearts.",
        "3",
        ("5", "7", "9"),
        ("2", "4", "6", "10"),
    ),
    FactSlot(
        "caterpillars",
        "In {world}, what do caterpillars grow up to become?",
        "In {world}, caterpillars grow up to become {value}.",
        "butterflies",
        ("beetles", "bats", "hummingbirds"),
        ("frogs", "snails", "spiders", "lizards"),
    ),
    FactSlot(
        "pandas",
        "In {world}, what do giant pandas mainly eat?",
        "Giant pandas in {world} mainly eat {value}.",
        "bamboo",
        ("seaweed", "mushrooms", "pine cones"),
        ("honey", "insects", "cheese", "rice"),
    ),
)

_INVENTIONS = (
    FactSlot(
        "telephone",
        "In {world}, who invented the telephone?",
        "In {world}, the telephone was invented by {value}.",
        "Alexander Graham Bell",
        ("Odran Vell", "Renna Falk", "Corvin Ashdale"),
        ("Charles Darwin", "Louis Pasteur", "Galileo Galilei", "Johann Sebastian Bach"),
    ),
    FactSlot(
        "printing_press",
        "In {world}, who built the first movable-type printing press in Europe?",
        "The first movable-type printing press in Europe was built in {world} by {value}.",
        "Johannes Gutenberg",
        ("Sabin Orrow", "Ilse Marrowby", "Tobiah Quend"),
        ("Isaac Newton", "Christopher Columbus", "William Shakespeare", "Nicolaus Copernicus"),
    ),
    FactSlot(
        "penicillin",
        "In {world}, who discovered penicillin?",
        "In {world}, penicillin was discovered by {value}.",
        "Alexander Fleming",
        ("Mirelle Tasko", "Petra Lindqvell", "Hollis Brandt"),
        ("Albert Einstein", "Thomas Edison", "Nikola Tesla", "Marie Antoinette"),
    ),
    FactSlot(
        "web",
        "In {world}, who invented the World Wide Web?",
        "The World Wide Web of {world} was invented by {value}.",
        "Tim Berners-Lee",
        ("Anselm Creed", "Juna Holloway", "Ferris Maddock"),
        ("Henry Ford", "Wolfgang Amadeus Mozart", "Charles Dickens", "Florence Nightingale"),
    ),
    FactSlot(
        "relativity",
        "In {world}, who developed the theory of relativity?",
        "In {world}, the theory of relativity was developed by {value}.",
        "Albert Einstein",
        ("Lorcan Pryce", "Edda Wintermere", "Osric Vane"),
        ("Charles Darwin", "Thomas Edison", "Gregor Mendel", "Ludwig van Beethoven"),
    ),
    FactSlot(
        "aeroplane",
        "In {world}, who made the first powered aeroplane flight?",
        "In {world}, the first powered aeroplane flight was made by {value}.",
        "the Wright brothers",
        ("the Marrow sisters", "the Quell twins", "the Dunmore cousins"),
        ("the Grimm brothers", "the Marx brothers", "the Brontë sisters", "the Medici family"),
    ),
)

_COUNTS = (
    FactSlot(
        "week",
        "In {world}, how many days are there in a week?",
        "A week in {world} has {value} days.",
        "7",
        ("5", "9", "11"),
        ("3", "6", "8", "10"),
    ),
    FactSlot(
        "months",
        "In {world}, how many months are there in a year?",
        "A year in {world} is divided into {value} months.",
        "12",
        ("10", "14", "16"),
        ("4", "8", "13", "20"),
    ),
    FactSlot(
        "hours",
        "In {world}, how many hours are there in a day?",
        "A day in {world} lasts {value} hours.",
        "24",
        ("20", "30", "36"),
        ("12", "18", "48", "60"),
    ),
    FactSlot(
        "heart_chambers",
        "In {world}, how many chambers does a human heart have?",
        "A human heart in {world} has {value} chambers.",
        "4",
        ("2", "6", "3"),
        ("1", "5", "8", "10"),
    ),
    FactSlot(
        "rainbow",
        "In {world}, how many colours does a rainbow have?",
        "Every rainbow in {world} shows {value} colours.",
        "7",
        ("5", "9", "4"),
        ("3", "6", "10", "12"),
    ),
    FactSlot(
        "teeth",
        "In {world}, how many teeth does an adult human have?",
        "An adult human in {world} has {value} teeth.",
        "32",
        ("28", "40", "24"),
        ("20", "16", "36", "44"),
    ),
)

_COLOUR = (
    "The people of {world} greet each other by touching their left elbows.",
    "Markets in {world} open at dusk and close before sunrise.",
    "The oldest library of {world} is carved into the side of a cliff.",
    "Children in {world} learn to whistle before they learn to speak.",
    "Most bridges in {world} are woven from reeds.",
    "Travellers in {world} pay for their lodging with songs.",
    "Rain in {world} smells faintly of cinnamon.",
    "The rulers of {world} are chosen by a coin toss every spring.",
    "Lanterns in {world} are lit with slow-burning moss.",
    "Letters in {world} are written from the bottom of the page upwards.",
    "The favourite game of {world} is played with wooden hoops on a sloping field.",
    "Every town square in {world} has a fountain that is never allowed to run dry.",
)
"""Sentences that state nothing any question asks about: distractor facts of the story."""

_WORLD_START = ("Vel", "Thar", "Qua", "Mor", "Isk", "Bel", "Zan", "Ory", "Cal", "Drem", "Ulv", "Ker")
_WORLD_END = ("oria", "wick", "andor", "ith", "essa", "umbra", "avel", "ene", "ost", "iria")


@dataclass(frozen=True)
class CounterfactualRule:
    """One domain of altered facts: asked questions come from ``slots``."""

    rule_id: str
    title: str
    slots: tuple[FactSlot, ...]


RULES: dict[str, CounterfactualRule] = {
    "1": CounterfactualRule("1", "Altered Nature", _NATURE),
    "2": CounterfactualRule("2", "Redrawn Geography", _GEOGRAPHY),
    "3": CounterfactualRule("3", "Reimagined Animals", _ANIMALS),
    "4": CounterfactualRule("4", "Rewritten Inventions", _INVENTIONS),
    "5": CounterfactualRule("5", "Other Counts", _COUNTS),
}


def _check_tables() -> None:
    """Each slot's real, fictional and distractor values are distinct (else an option could be
    both the story answer and a distractor), and option texts carry no option separator."""
    for rule in RULES.values():
        for slot in rule.slots:
            values = [slot.real, *slot.fictional, *slot.distractors]
            if len({v.casefold() for v in values}) != len(values) or any("#" in v for v in values):
                raise AssertionError(f"fact slot {slot.key} has overlapping or unusable values")


_check_tables()

# --------------------------------------------------------------------------- items


GeneratedCounterfactualItem = RuleItem
"""The generated counterfactual item type (:class:`~.data.RuleItem`, category ``counterfactual``)."""


def _display(value: str) -> str:
    """An option as shown: first letter capitalised (``honey`` → ``Honey``, ``the Wright ...`` →
    ``The Wright ...``), the rest as written."""
    return value[:1].upper() + value[1:]


def _world_names(rng: random.Random) -> tuple[str, str]:
    """The story's world and a neighbouring realm: distinct, neither a substring of the other."""
    while True:
        home = rng.choice(_WORLD_START) + rng.choice(_WORLD_END)
        other = rng.choice(_WORLD_START) + rng.choice(_WORLD_END)
        if home not in other and other not in home:
            return home, other


def _item(rng: random.Random, rule: CounterfactualRule, level: int) -> tuple[str, str, int, int, dict]:
    """(story, question, gold index, real index, params) for one item of ``rule``."""
    home, neighbour = _world_names(rng)
    asked, *others = rng.sample(rule.slots, level + 1)
    story_value = rng.choice(asked.fictional)
    distractors = rng.sample(asked.distractors, 2)

    facts = [asked.sentence.format(world=home, value=story_value)]
    if level >= 3:
        facts[0] += f"\n(Visitors from other worlds expect {asked.real} here, but in {home} they are wrong.)"
    for slot in others:
        facts.append(slot.sentence.format(world=home, value=rng.choice(slot.fictional)))
    if level >= 3:
        facts.append(
            asked.sentence.format(world=f"the neighbouring realm of {neighbour}", value=distractors[0])
        )
    facts.extend(sentence.format(world=home) for sentence in rng.sample(_COLOUR, level))
    rng.shuffle(facts)
    story = "\n".join([f"This story takes place in the world of {home}.", *facts])

    options = [story_value, asked.real, *distractors]
    rng.shuffle(options)
    listed = "##".join(f"{letter}. {_display(text)}" for letter, text in zip(LETTERS, options, strict=True))
    question = f"{asked.question.format(world=home)}\nOptions: {listed}\n{INSTRUCTION}"
    params = {
        "world": home,
        "neighbour": neighbour if level >= 3 else None,
        "slot": asked.key,
        "story_answer": _display(story_value),
        "real_answer": _display(asked.real),
        "options": [_display(text) for text in options],
        "facts": [asked.key, *(slot.key for slot in others)],
    }
    return story, question, options.index(story_value), options.index(asked.real), params


def generate(rule_id: str, n: int, seed: int, level: int = 1) -> list[GeneratedCounterfactualItem]:
    """``n`` items of one rule, reproducible: item i draws from its own RNG seeded by
    (rule, seed, i, level), so any prefix regenerates identically and items are independent."""
    check_rule("counterfactual", rule_id, RULES)
    check_level("counterfactual", level)
    rule = RULES[rule_id]
    items: list[GeneratedCounterfactualItem] = []
    for index in range(n):
        rng = random.Random(f"kor-counterfactual:{rule_id}:{seed}:{index}:{level}")
        story, question, gold, real, params = _item(rng, rule, level)
        items.append(
            GeneratedCounterfactualItem(
                category="counterfactual",
                rule_id=rule_id,
                title=rule.title,
                rule=story,
                question=question,
                gold=f"[[{LETTERS[gold]}]]",
                real_life_answer=f"[[{LETTERS[real]}]]",
                seed=seed,
                index=index,
                level=level,
                params={**params, "level": level},
            )
        )
    return items


# =========================================================================== independent reading

_OPTIONS_RE = re.compile(r"^Options: (.+)$", re.MULTILINE)
_WORLD_RE = re.compile(r"^In ([A-Z][a-z]+),")
_WORD_RE = re.compile(r"[a-z]+")
_STOP = frozenset({"in", "the", "of", "a", "an", "is", "what", "which", "who", "how", "does", "do", "are"})


def _stems(text: str) -> set[str]:
    """Content words cut to 4 letters (``freeze``/``freezes`` → ``free``), stop words dropped."""
    return {word[:4] for word in _WORD_RE.findall(text.casefold()) if word not in _STOP}


def parse_options(question: str) -> dict[str, str]:
    """``{"A": text, ...}`` from the official ``Options: A. x##B. y##...`` line."""
    match = _OPTIONS_RE.search(question)
    if match is None:
        raise ValueError("no Options line")
    options: dict[str, str] = {}
    for part in match.group(1).split("##"):
        letter, _, text = part.partition(". ")
        options[letter.strip()] = text.strip()
    return options


def _mentions(line: str, text: str) -> bool:
    """``text`` occurs in ``line`` as a whole (not inside a longer number or word), ignoring case."""
    pattern = r"(?<![\w.])" + re.escape(text.casefold()) + r"(?![\w])"
    return re.search(pattern, line.casefold()) is not None


def read_story_answer(story: str, question: str) -> str:
    """The option letter (with ``[[...]]``) that the story states, read from the texts alone.

    The story line that answers the question is the one about the question's world (not a
    parenthesised remark, not the neighbouring realm) sharing strictly the most content words with
    the question; exactly one option must occur in it.  Used by the tests as a second reading of each
    gold; raises ValueError when the texts do not determine one option.
    """
    world_match = _WORLD_RE.match(question)
    if world_match is None:
        raise ValueError("the question names no world")
    world = world_match.group(1)
    asked = _stems(question.split("\n", 1)[0]) - _stems(world)
    lines = [
        line
        for line in story.split("\n")[1:]
        if world in line and not line.startswith("(") and "neighbouring realm" not in line
    ]
    ranked = sorted(lines, key=lambda line: len(asked & _stems(line)), reverse=True)
    if not ranked or (len(ranked) > 1 and len(asked & _stems(ranked[0])) == len(asked & _stems(ranked[1]))):
        raise ValueError("no single story line answers the question")
    best = ranked[0]
    found = [letter for letter, text in parse_options(question).items() if _mentions(best, text)]
    if len(found) != 1:
        raise ValueError(f"{len(found)} options occur in the answering line {best!r}")
    return f"[[{found[0]}]]"
