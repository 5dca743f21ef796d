"""Per-response cost of the relational chain-of-thought claim extractor and checker (issue 19).

Why: on a cached re-run of the pipeline the relational ``symbolic_checks`` step re-checks every
``nl_cot`` response; claim extraction (``cot_claims``) is most of that cost, so it is timed here
on its own and inside ``check_reasoning`` (what the step calls), per response, on a corpus built
without the network:

* the gold CoT of every sample of the paper profile (``prompts.cot_answer``), the realistic case;
* perturbed variants of it (lower/upper case, sentences shuffled, names renumbered, negations,
  hedges, paraphrases, bullets and markdown, arrows, answer markers, filler and near-miss
  sentences), so that most branches of the matcher run;
* sentences composed at random from the phrasings the extractor knows, and random word soup;
* a few long (100 kB) texts: gold CoTs concatenated, and garbage.

The corpus is deterministic (fixed seeds), so ``--dump`` / ``--compare`` prove that an
optimisation leaves every output bit-identical (``repr`` of the claims and of the verdict).

Usage::

    nice -n 5 .venv/bin/python tests/perf/bench_cot_claims.py              # timings
    nice -n 5 .venv/bin/python tests/perf/bench_cot_claims.py --cold       # no step memoised twice
    .venv/bin/python tests/perf/bench_cot_claims.py --dump /tmp/claims.txt  # outputs, one line per item
    .venv/bin/python tests/perf/bench_cot_claims.py --compare /tmp/claims.txt

To time or dump an older extractor, unpack that commit's package next to a copy of this script and run
it there (it imports the package it sits next to)::

    mkdir /tmp/old && git archive <commit> relreason_dagster tests/__init__.py tests/perf/__init__.py \
        | tar -x -C /tmp/old && cp tests/perf/bench_cot_claims.py /tmp/old/tests/perf/
    (cd /tmp/old && nice -n 5 /path/to/.venv/bin/python tests/perf/bench_cot_claims.py)
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # run as a script: make the package importable
    sys.path.insert(0, str(REPO_ROOT))

import relreason_dagster  # noqa: E402,F401  (offline/telemetry defaults)

LONG_CHARS = 100_000
_NAME = re.compile(r"\bP(\d+)\b")
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")

_RELATIONS = (
    "father mother parent son daughter child grandfather grandmother grandparent grandson granddaughter "
    "grandchild brother sister sibling uncle aunt nephew niece cousin"
).split() + ["great uncle", "maternal great-uncle", "grand father", "great grandmother", "biological mother"]
_TEMPLATES = (
    "{a} is {b}'s {r}.",
    "{a} is the {r} of {b}.",
    "{a} is the {r} of {b} and {c}.",
    "{a} is the {r} of {b}, {c}, and {d}.",
    "{a} is not {b}'s {r}.",
    "{a} isn't the {r} of {b}.",
    "{a} and {b} are {r}s.",
    "{a}, {b} and {c} are siblings.",
    "{a} is a {r} of {b}.",
    "{a}'s {r} is {b}.",
    "The {r}s of {a} are {b} and {c}.",
    "{a} is {b}'s and {c}'s {r}.",
    "{a} and {b} are {c}'s {r}s.",
    "{a} is neither {b}'s {r} nor {c}'s {r}.",
    "{a} cannot be {b}'s {r}.",
    "{a} must be {b}'s {r}.",
    "{a} must not be the {r} of {b}.",
    "{a} has two {r}s, {b} and {c}.",
    "{a}, who is {b}'s {r}, is male.",
    "{a} (the eldest) is female.",
    "**{a}** is **{b}’s** {r}.",
    "{a} has {r}.",
    "{a} does not have a {r}.",
    "{a} has 2 {r}s.",
    "{a} has no {r}s.",
    "{a} has {b} as a {r}.",
    "{a} has {r}s who are {b} and {c}.",
    "{a} has outdegree 2.",
    "{a}'s outdegree is 3.",
    "{a} has 2 edges.",
    "{a} has edges only to {b} and {c}.",
    "{a} has exactly 1 edge, namely {b}.",
    "There is an edge between {a} and {b}.",
    "There isn't an edge between {a} and {b}.",
    "There is no edge from {a} to {b}.",
    "An edge connecting {a} and {b} exists.",
    "The edge ({a}, {b}) is present.",
    "{a} is connected to {b}.",
    "{a} is directly connected to {b} and {c}.",
    "{a} and {b} are adjacent.",
    "{a} and {b} are connected via {c}.",
    "{a} and {b} are 4-connected.",
    "{a} and {b} are joined by a path of 3 edges.",
    "{a} and {b} are linked by an edge.",
    "{a} is connected to {b} through a path of length at most 2 hops.",
    "{a} -> {b} -> {c}.",
    "{a}-{b}-{c} is a path.",
    "The nodes {a}-{b} are all given.",
    "{a} is {b}'s wife and {a} is 40 years old.",
    "{a} is {b}'s father-in-law.",
    "If {a} is {b}'s {r}, then {c} is {b}'s uncle.",
    "We need to check whether {a} is {b}'s {r}.",
    "Is {a} {b}'s {r}?",
    "Suppose {a} is {b}'s {r}.",
    "So {a} is {b}'s {r}, which means {c} is also {b}'s {r}.",
    "{a} is in fact {b}'s {r}, as well as {c}'s {r}.",
    "{a} is one of {b}'s {r}s.",
    "Therefore {a} is clearly the only {r} of {b}.",
)
_SOUP = (
    "P1 P2 P0 P999 P12 's ’s is are not isn't has have no does the a of to and , ; : . ? ( ) father "
    "mother uncle maternal great - -> sisters edge between only 2 two outdegree connected 4-connected "
    "joined by path via neither nor cannot be must who which if Final answer: \n in law as one"
).split(" ")


def _gold() -> list[tuple[Any, str]]:
    from relreason_dagster import profiles
    from relreason_dagster.benchmarks.relational.family import RelationalFamily
    from relreason_dagster.benchmarks.relational.prompts import cot_answer

    profile = profiles.get_profile("paper", "relational")
    samples = RelationalFamily().generate(profile, profiles.DEFAULT_SEED)
    return [(s, cot_answer(s)) for s in samples]


def _renumber(text: str, rng: random.Random) -> str:
    mapping: dict[str, str] = {}

    def swap(m: re.Match[str]) -> str:
        if m.group(1) not in mapping:
            mapping[m.group(1)] = str(rng.randrange(40))
        return "P" + mapping[m.group(1)]

    return _NAME.sub(swap, text)


def _shuffle(text: str, rng: random.Random) -> str:
    parts = [p for p in _SENTENCE.split(text) if p.strip()]
    rng.shuffle(parts)
    return "\n".join(parts) if rng.random() < 0.5 else " ".join(parts)


def _negate(text: str, rng: random.Random) -> str:
    text = re.sub(r"\bis\b", lambda m: "is not" if rng.random() < 0.4 else m.group(), text)
    return re.sub(r"\bhas\b", lambda m: "does not have" if rng.random() < 0.3 else m.group(), text)


def _hedge(text: str, rng: random.Random) -> str:
    words = ("If ", "Suppose ", "Maybe ", "We wonder whether ", "Then ", "So, ", "Clearly ")
    return "\n".join(rng.choice(words) + line if rng.random() < 0.5 else line for line in text.splitlines())


def _paraphrase(text: str, rng: random.Random) -> str:
    text = re.sub(r"(P\d+) is (P\d+)'s (\w+)", r"\1 is the \3 of \2", text)
    text = re.sub(r"an edge between (P\d+) and (P\d+)", r"an edge from \1 to \2", text)
    text = text.replace("joined by a path of", "connected through a path of")
    return text.replace("has edges only to", "is adjacent only to")


def _markdown(text: str, rng: random.Random) -> str:
    marks = ("- ", "* ", "1. ", "2) ", "> ", "## ", "• ", "")
    out = []
    for line in text.splitlines():
        line = _NAME.sub(lambda m: f"**{m.group()}**" if rng.random() < 0.3 else m.group(), line)
        out.append(rng.choice(marks) + line.replace("'", "’" if rng.random() < 0.3 else "'"))
    return "\n".join(out)


def _arrows(text: str, rng: random.Random) -> str:
    names = _NAME.findall(text)[:12]
    chain = " -> ".join(f"P{n}" for n in names)
    return f"{text}\nA path: {chain}.\nThe nodes P0-P9 exist; {'-'.join(f'P{n}' for n in names[:3])}."


def _answers(text: str, rng: random.Random) -> str:
    """Answer markers in many places and spellings, a next question, leading bullets."""
    markers = (
        "Final answer:",
        "FINAL ANSWER :",
        "Answer:",
        "answers are:",
        "The answer is",
        "the  answers\nare",
        "final   answer is",
        "Final Answers:",
        "So the answer is:",
        "answerable:",
    )
    lines = text.splitlines()
    for _ in range(rng.randrange(1, 4)):
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(markers) + " " + rng.choice(lines))
    if rng.random() < 0.3:
        lines.insert(0, rng.choice(("Answer:", "- # Answer:", "** Final answer: **", "  \n")))
    if rng.random() < 0.2:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(("Question: P1?", "Now this is the question")))
    return "\n".join(lines)


_FILLER = (
    "Let's analyze the relationships step by step.",
    "First, we list the parents of everyone.",
    "This gives the following picture",
    "Thus P3 — P4 — P5 forms a chain.",
    "Consider P1=>P2 and P2→P3.",
    "P1's areas, P2's thesis and P3's bees.",
    "P4 isn't P5's father; P6 wasn't P7's son; P8 hasn't edges.",
    "P2 hadn't any sister, P3 weren't connected.",
    "P1 aren’t P2’s parents; P1 beN'T P0's son.",
    "Edge-case: P1-P2, P3 -- P4 and p 5 -> p6.",
    "Nodes P0-P9 and members P1->P4 are listed.",
    "P9is P8's son.",
    "Whereas P2 was, P3 were.",
)


def _filler(text: str, rng: random.Random) -> str:
    """Sentences with no claim, or near misses of the words a claim is anchored on."""
    lines = text.splitlines()
    for _ in range(rng.randrange(2, 8)):
        lines.insert(rng.randrange(len(lines) + 1), _renumber(rng.choice(_FILLER), rng))
    return "\n".join(lines)


def _composed(rng: random.Random, sentences: int) -> str:
    out = []
    for _ in range(sentences):
        names = [f"P{rng.randrange(25)}" for _ in range(4)]
        template = rng.choice(_TEMPLATES)
        out.append(template.format(a=names[0], b=names[1], c=names[2], d=names[3], r=rng.choice(_RELATIONS)))
    sep = rng.choice((" ", "\n", "\n- "))
    answer = "\nFinal answer: " + rng.choice(("None.", "P1 has father.")) if rng.random() < 0.5 else ""
    return sep.join(out) + answer


def corpus(seed: int = 0) -> list[tuple[str, Any, str]]:
    """``(group, sample, text)`` items; every text is checked against its sample's KB."""
    rng = random.Random(seed)
    gold = _gold()
    items: list[tuple[str, Any, str]] = [("gold", s, t) for s, t in gold]
    perturb = {
        "lower": lambda t, r: t.lower(),
        "upper": lambda t, r: t.upper(),
        "shuffled": _shuffle,
        "renumbered": _renumber,
        "negated": _negate,
        "hedged": _hedge,
        "paraphrased": _paraphrase,
        "markdown": _markdown,
        "arrows": _arrows,
        "answers": _answers,
        "filler": _filler,
    }
    for name, fn in perturb.items():
        for sample, text in gold[::3]:
            items.append((name, sample, fn(text, rng)))
    for i in range(300):
        sample = gold[i % len(gold)][0]
        items.append(("composed", sample, _composed(rng, rng.randrange(1, 40))))
    for i in range(100):
        sample = gold[i % len(gold)][0]
        items.append(("soup", sample, " ".join(rng.choice(_SOUP) for _ in range(rng.randrange(200)))))
    alphabet = "P0123456789 abcdefghijklmnopqrstuvwxyz.,;:'’-()*#\n\t" + "é\u2192\u2014ß"
    longs = [
        "\n".join(t for _, t in gold)[:LONG_CHARS],
        " ".join(_composed(rng, 30) for _ in range(200))[:LONG_CHARS],
        "".join(rng.choice(alphabet) for _ in range(LONG_CHARS)),
        ("P5 is P2's mother and P3 is P1's son. " * 3_000)[:LONG_CHARS],
        "P1, " * (LONG_CHARS // 4) + "P2 are siblings.",
    ]
    items += [("long", gold[i][0], text) for i, text in enumerate(longs)]
    items += [("edge", gold[0][0], text) for text in ("", "P", "?", "Answer: P4 is P6's father.", "İ" * 50)]
    return items


def _extract(text: str) -> list[Any]:
    """The extraction path of ``check_reasoning``: reasoning part, steps, claims of each step."""
    from relreason_dagster.benchmarks.relational.cot_claims import reasoning_part, split_steps, step_claims

    steps = split_steps(reasoning_part(text))
    return [c for index, step in enumerate(steps) for c in step_claims(step, index)]


def outputs(items: list[tuple[str, Any, str]]) -> list[str]:
    """One line per item: ``repr`` of ``extract_claims``, of the extraction path and of the verdict."""
    from relreason_dagster.benchmarks.relational.cot_claims import extract_claims
    from relreason_dagster.benchmarks.relational.cot_verdict import check_reasoning

    lines = []
    for i, (group, sample, text) in enumerate(items):
        verdict = check_reasoning(sample, text, (None, True, False)[i % 3])
        lines.append(repr((i, group, extract_claims(text), _extract(text), verdict)))
    return lines


def _clear_caches() -> None:
    """Forget any memoised step results, so every round pays the cold cost a fresh run pays."""
    from relreason_dagster.benchmarks.relational import cot_claims

    for value in vars(cot_claims).values():
        clear = getattr(value, "cache_clear", None)
        if callable(clear):
            clear()


def timings(
    items: list[tuple[str, Any, str]], rounds: int, cold: bool = False
) -> dict[str, dict[str, list[float]]]:
    """Per item, the median over ``rounds`` of ``process_time`` seconds, for extraction and the check.

    Memoised step claims are forgotten before each round (a fresh run), or before each item (``cold``:
    no step is ever seen twice, the worst case for a memo).
    """
    from relreason_dagster.benchmarks.relational.cot_verdict import check_reasoning

    per: dict[str, list[list[float]]] = {"extract": [[] for _ in items], "check": [[] for _ in items]}
    clock = time.process_time
    for _ in range(rounds):
        _clear_caches()
        for i, (_, _, text) in enumerate(items):
            if cold:
                _clear_caches()
            t0 = clock()
            _extract(text)
            per["extract"][i].append(clock() - t0)
        _clear_caches()
        for i, (_, sample, text) in enumerate(items):
            if cold:
                _clear_caches()
            t0 = clock()
            check_reasoning(sample, text, True)
            per["check"][i].append(clock() - t0)
    out: dict[str, dict[str, list[float]]] = {}
    for what, samples in per.items():
        by_group: dict[str, list[float]] = {}
        for (group, _, _), times in zip(items, samples, strict=True):
            value = statistics.median(times)
            by_group.setdefault(group, []).append(value)
            by_group.setdefault("ALL", []).append(value)
        out[what] = by_group
    return out


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--cold", action="store_true", help="forget memoised steps before every item")
    parser.add_argument("--dump", type=Path, help="write every item's outputs to this file")
    parser.add_argument("--compare", type=Path, help="compare every item's outputs with this file")
    args = parser.parse_args()
    items = corpus()
    if args.dump or args.compare:
        lines = outputs(items)
        if args.dump:
            args.dump.write_text("\n".join(lines) + "\n", encoding="utf-8")
            print(f"wrote {len(lines)} items to {args.dump}")
        if args.compare:
            old = args.compare.read_text(encoding="utf-8").splitlines()
            diff = [i for i, (a, b) in enumerate(zip(old, lines, strict=False)) if a != b]
            if len(old) != len(lines) or diff:
                print(f"DIFFERENT: {len(old)} vs {len(lines)} items, first differing items {diff[:10]}")
                sys.exit(1)
            print(f"identical on {len(lines)} items")
        return
    result = timings(items, args.rounds, args.cold)
    chars = statistics.mean(len(t) for g, _, t in items if g == "gold")
    mode = "memo cleared before every item" if args.cold else "memo cleared before every round"
    print(f"{len(items)} items ({chars:,.0f} chars per gold CoT on average), {args.rounds} rounds; {mode}")
    print(f"{'group':<12} {'n':>5}  {'extract median/mean ms':>24}  {'check median/mean ms':>22}")
    for group in result["extract"]:
        ex, ch = result["extract"][group], result["check"][group]
        ms = [f(values) * 1e3 for values in (ex, ch) for f in (statistics.median, statistics.mean)]
        print(f"{group:<12} {len(ex):>5}  {ms[0]:>11.3f} /{ms[1]:>9.3f}  {ms[2]:>10.3f} /{ms[3]:>9.3f}")


if __name__ == "__main__":
    main()
