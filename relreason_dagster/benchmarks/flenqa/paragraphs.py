"""Key sentence -> key paragraph (~``PARAGRAPH_TOKENS`` tokens) by deterministic template expansion.

The study expanded each key sentence with GPT-4 and checked the result by hand;
here the expansion is a seeded choice of sentences written so that they restate
or comment on the key fact and add none: they name only the sentence's own
entities, never a relation, room property or attribute of their own, never the
words "true"/"false" (the answer parser looks for them) and never the
"<name> is <...>." shape the symbolic solver reads as a fact.  The key sentence
is the paragraph's first sentence, verbatim.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from relreason_dagster.benchmarks.flenqa.instances import MONOREL, PIR, BaseInstance

PARAGRAPH_TOKENS = 121  # the study's key paragraphs average 125 tokens; two fill a 250-token text
SLACK = 10  # a paragraph ends between PARAGRAPH_TOKENS and PARAGRAPH_TOKENS + SLACK when the pool allows

# {x} and {y}: the two entities of the key sentence; {rel}: its relation.
_MONOREL_GENERIC = (
    "This is a fact that remains constant, unchanging like the northern star.",
    "Anyone who knows both {x} and {y} would agree with this comparison.",
    "When the two of them are mentioned together, this is the first thing people point out.",
    "The comparison between {x} and {y} has been made many times, and it always comes out the same way.",
    "Friends and neighbours have noticed it on more than one occasion.",
    "Nobody who has met them has ever questioned it.",
    "It is the kind of detail people remember long after they have forgotten everything else about the pair.",
    "Whenever the subject comes up, the answer given about {x} and {y} is the same.",
    "There is no secret about it, and neither of them has ever tried to hide it.",
    "It has been noted in conversations, letters and casual remarks alike.",
    "Even a stranger watching {x} and {y} for a few minutes would see it.",
    "It is a plain matter of record, as clear as day to everyone around them.",
    "Over the years this has never changed, and there is no reason to think it will.",
    "People who compare the two always reach the same conclusion.",
    "{x} has never disputed it, and {y} has never claimed otherwise.",
    "It is simply how things stand between {x} and {y}.",
)
_MONOREL_SPECIFIC = {
    "younger than": "{x} has experienced fewer birthdays than {y}.",
    "older than": "{x} has experienced more birthdays than {y}.",
    "taller than": "Standing side by side, {y} has to look up to meet the eyes of {x}.",
    "shorter than": "Standing side by side, {x} has to look up to meet the eyes of {y}.",
    "richer than": "When it comes to money, {x} has more of it than {y} ever had.",
    "poorer than": "When it comes to money, {y} has more of it than {x} ever had.",
    "heavier than": "On any scale, {x} weighs more than {y}.",
    "lighter than": "On any scale, {x} weighs less than {y}.",
    "faster than": "In any race between them, {x} crosses the line ahead of {y}.",
    "slower than": "In any race between them, {y} crosses the line ahead of {x}.",
    "stronger than": "In any test of strength, {x} outdoes {y}.",
    "weaker than": "In any test of strength, {y} outdoes {x}.",
    "louder than": "In a crowded hall, the voice of {x} carries further than that of {y}.",
    "quieter than": "In a crowded hall, the voice of {y} carries further than that of {x}.",
    "busier than": "On an ordinary day, {x} has more to do than {y}.",
    "idler than": "On an ordinary day, {y} has more to do than {x}.",
}

_PERSON_IN_ROOM = (
    "This is a fact that has become as much a part of the place as its walls and its ceiling.",
    "Anyone looking for {person} right now would find them there.",
    "The whereabouts of {person} are no mystery to anyone who asks.",
    "That is where {person} can be found at this moment.",
    "People passing by have seen {person} there.",
    "There is no doubt at all about where {person} is.",
    "It is the answer anyone would give if asked where {person} is at present.",
    "Those who know {person} well are not surprised by it.",
    "The location of {person} is as clear as day.",
    "For now, that room and {person} belong together in every account of the day.",
    "Everyone who has checked agrees about where {person} is.",
    "It is a simple matter of where one person happens to be.",
    "Nothing about it is hidden, and nobody has suggested otherwise.",
    "A visitor asking after {person} would be sent straight there.",
)
_ROOM_PROPERTY = (
    "Visitors to {room} notice it as soon as they step inside.",
    "It is a defining feature of {room}, intrinsic to it like its very foundations.",
    "People who describe {room} always mention it first.",
    "It has been that way for as long as anyone can remember.",
    "Nobody who has been in {room} could miss it.",
    "It is the detail that sets {room} apart in the memory of its guests.",
    "Every account of {room} agrees on this point.",
    "It is as much a part of {room} as the door that leads into it.",
    "There is nothing unusual in saying so; it is simply how {room} is.",
    "Anyone asked to describe {room} would say the same.",
    "Over the years it has not changed, and it is not expected to change.",
    "It is plain to see for anyone who walks in.",
)
_RULETAKER_FACT = (
    "Everyone who has spent time with {name} has noticed this.",
    "It is one of the first things people mention about {name}.",
    "This has been the case for as long as anyone can remember.",
    "Friends and strangers alike agree on it.",
    "Nobody who knows {name} would say otherwise.",
    "It shows in everything {name} does, from small matters to large ones.",
    "It is not a passing phase but a lasting part of who {name} is.",
    "People describing {name} tend to start with it.",
    "There is no secret about it, and {name} has never tried to hide it.",
    "It has been remarked upon in many conversations.",
    "Anyone who meets {name} notices it soon enough.",
    "It is as plain as day to all around.",
)


def _templates(instance: BaseInstance, which: int) -> tuple[list[str], dict[str, str]]:
    """The sentence pool and slot values for key sentence ``which`` (0 or 1) of ``instance``."""
    s = instance.slots
    if instance.task == MONOREL:
        rel = s["relation"]
        x, y = (s["a"], s["b"]) if which == 0 else (s["c"], s["a"])
        return [_MONOREL_SPECIFIC[rel], *_MONOREL_GENERIC], {"x": x, "y": y, "rel": rel}
    if instance.task == PIR:
        pool = _PERSON_IN_ROOM if which == 0 else _ROOM_PROPERTY
        return list(pool), {"person": s["person"], "room": s["room"]}
    return list(_RULETAKER_FACT), {"name": s["name"]}


def expand(
    instance: BaseInstance,
    which: int,
    rng: random.Random,
    count_tokens: Callable[[str], int],
    target: int = PARAGRAPH_TOKENS,
) -> list[str]:
    """The key paragraph of key sentence ``which``, as a list of sentences (key sentence first).

    Sentences are drawn without replacement (MonoRel's relation-specific one always
    second) until the paragraph reaches ``target`` tokens; one that would end it
    beyond ``target + SLACK`` is skipped.
    """
    pool, slots = _templates(instance, which)
    first = [pool[0]] if instance.task == MONOREL else []
    rest = pool[1:] if instance.task == MONOREL else pool
    order = first + rng.sample(rest, len(rest))
    sentences = [instance.key_sentences[which]]
    tokens = count_tokens(sentences[0])
    for template in order:
        if tokens >= target:
            break
        sentence = template.format(**slots)
        sentence = sentence[0].upper() + sentence[1:]
        cost = count_tokens(" " + sentence)
        if tokens + cost > target + SLACK:
            continue
        sentences.append(sentence)
        tokens += cost
    return sentences
