"""Prompts of the three settings: ``nl`` (Figure 3), ``nl_cot`` (Figure 6) and ``tv`` (Figure 2).

Every prompt is one user message: a role sentence, the few-shot examples as
``Question: ... / Answer: ...`` pairs, then ``Now this is the question for you
to answer.`` and the test question without an answer line.

nl answers list one statement per true cell, joined by ``; `` and ended by a
full stop, ``None.`` when nothing holds:

* HasFather / HasSister: ``P2 has sister; P3 has sister.``
* IsGrandparent / IsUncle / IsMGUncle (``y`` is ``x``'s relative):
  ``P4 is P0's uncle; P4 is P1's uncle.`` (``maternal great uncle`` for IsMGUncle)
* 4-/6-Connectivity: ``P0 and P3 are 4-connected.``; each unordered pair once with
  the smaller name first, the parser adds both orientations.
* 1-/2-Outdegree: ``P2 has outdegree 1; P5 has outdegree 1.``

Graph questions add a short gloss ("joined by a path of at most 4 edges",
"exactly 1 edge") because, unlike "sister", "4-connected" is not an everyday
word; the study's nl prompts convey a target's meaning through its name.

CoT exemplars give one deduction per true cell from ``derivations.derive`` and
end with ``Final answer: <the nl answer>``.  tv prompts show one Python list of
lists per base predicate (row x, column y) and ask for the target's list
(a flat list of n values for unary targets).
"""

from __future__ import annotations

from collections import defaultdict

from relreason_dagster.benchmarks.base import Profile, Prompt, Sample, stable_hash
from relreason_dagster.benchmarks.relational.derivations import derive
from relreason_dagster.benchmarks.relational.generate import decode_gold, sample_predicates
from relreason_dagster.benchmarks.relational.profile_schema import SETTINGS, Knobs
from relreason_dagster.benchmarks.relational.tasks import (
    BASE_STATEMENTS,
    BASE_TV_MEANING,
    FAMILY,
    TaskSpec,
    task_spec,
)
from relreason_dagster.errors import ConfigError

TEMPLATE_VERSION = "relational-prompt-1"
TEST_SPLITS = ("iid", "ood")

FAMILY_ROLE = "You are an agent who determines the relations in a family."
GRAPH_ROLE = "You are an agent who determines the relations in an undirected graph."
EXAMPLES_INTRO = (
    "I will first show you some examples, and then I will give you a new question for you to answer. "
    "The examples are shown as follows."
)
NOW = "Now this is the question for you to answer."
FINAL_ANSWER = "Final answer:"

Cell = tuple[int, ...]


def _variant(sample: Sample) -> str:
    return str((sample.variant or {}).get("family_tree_variant", "study"))


def answer_cells(spec: TaskSpec, cells: set[Cell]) -> list[Cell]:
    """The cells an answer lists, in order: symmetric targets list each unordered pair once."""
    ordered = sorted(cells)
    if spec.symmetric:
        ordered = [c for c in ordered if c[0] < c[1]]
    return ordered


def statement(spec: TaskSpec, cell: Cell) -> str:
    if spec.arity == 1:
        return spec.statement.format(x=cell[0])
    return spec.statement.format(x=cell[0], y=cell[1])


def nl_answer(spec: TaskSpec, cells: set[Cell]) -> str:
    """``P2 has sister; P3 has sister.`` or ``None.``"""
    listed = answer_cells(spec, cells)
    if not listed:
        return "None."
    return "; ".join(statement(spec, c) for c in listed) + "."


def facts_text(sample: Sample) -> str:
    """The base predicates as Figure 3 sentences, predicate by predicate."""
    spec = task_spec(sample.task)
    preds = sample_predicates(sample)
    sentences: list[str] = []
    for name in spec.base_predicates:
        for x, y in sorted(preds.get(name, set())):
            if name == "HasEdge" and x > y:
                continue
            sentences.append(BASE_STATEMENTS[name].format(x=x, y=y))
    return "; ".join(sentences) if sentences else "none"


def _format_line(spec: TaskSpec, cot: bool) -> str:
    if cot:
        return (
            "You must give the reasoning process and you must give the final answer "
            f"in this format: {spec.answer_format}."
        )
    if spec.arity == 2:
        return f"You must answer in this format: {spec.answer_format}."
    return f"You must give the final answer in this format: {spec.answer_format}."


def nl_question(sample: Sample, cot: bool = False) -> str:
    """The Figure 3 question (without ``Question:``)."""
    spec = task_spec(sample.task)
    n = sample.input["n"]
    if spec.domain == FAMILY:
        world = (
            f"For a family tree containing {n} family members, which is depicted with 4 kinds of relations: "
            "father, mother, son, daughter."
        )
        kind = "relation"
    else:
        world = (
            f"For an undirected graph containing {n} nodes, which is depicted with 1 kind of relation: edge."
        )
        kind = "property" if spec.arity == 1 else "relation"
    return (
        f"{world} The relations are: {facts_text(sample)}. For a new {kind} {spec.word}, "
        f"given the above-given facts, {spec.question} {_format_line(spec, cot)}"
    )


def cot_answer(sample: Sample) -> str:
    """Deductions for every listed true cell, then ``Final answer: ...`` (Figure 6)."""
    spec = task_spec(sample.task)
    gold = decode_gold(sample.gold, spec.arity)
    steps = derive(sample.task, sample_predicates(sample), sample.input["n"], _variant(sample))
    lines = [steps[c] for c in answer_cells(spec, gold) if c in steps]
    if not lines:
        lines = [f"No one satisfies the relation {spec.word}."]
    return "\n".join(lines) + f"\n{FINAL_ANSWER} {nl_answer(spec, gold)}"


def _matrix(rows: list[list[int]]) -> str:
    return "[" + ",\n ".join(str(row) for row in rows) + "]"


def _truth_matrix(pairs: set[tuple[int, int]], n: int) -> str:
    return _matrix([[1 if (x, y) in pairs else 0 for y in range(n)] for x in range(n)])


def tv_target(spec: TaskSpec, cells: set[Cell], n: int) -> str:
    """The target as a Python list (unary) or list of lists (binary)."""
    if spec.arity == 1:
        return str([1 if (x,) in cells else 0 for x in range(n)])
    return _truth_matrix({(c[0], c[1]) for c in cells}, n)


def tv_answer(sample: Sample) -> str:
    spec = task_spec(sample.task)
    return f"{spec.name} = {tv_target(spec, decode_gold(sample.gold, spec.arity), sample.input['n'])}"


def tv_question(sample: Sample) -> str:
    """The Figure 2 question: named truth-value matrices of the base predicates."""
    spec = task_spec(sample.task)
    n = sample.input["n"]
    preds = sample_predicates(sample)
    world = (
        f"For a family tree containing {n} family members P0 to P{n - 1}"
        if spec.domain == FAMILY
        else f"For an undirected graph containing {n} nodes P0 to P{n - 1}"
    )
    meanings = "; ".join(BASE_TV_MEANING[name] for name in spec.base_predicates)
    matrices = "\n".join(
        f"{name} = {_truth_matrix(preds.get(name, set()), n)}" for name in spec.base_predicates
    )
    if spec.arity == 1:
        shape, example = f"a Python list of {n} values (0 or 1)", f"{spec.name} = [...]"
    else:
        shape, example = f"a Python list of {n} lists of {n} values (0 or 1)", f"{spec.name} = [[...], ...]"
    return (
        f"{world}, the relations are given as truth-value matrices written as Python lists, where row x "
        f"and column y hold the truth value for Px and Py: {meanings}.\n{matrices}\n"
        f"For a new predicate {spec.name}, given the above-given matrices, deduce its truth values: "
        f"{spec.tv_meaning}. You must answer with {shape} in this format: {example}"
    )


def render_gold(sample: Sample, setting: str) -> str:
    """The gold answer written as ``setting`` asks a model to answer."""
    spec = task_spec(sample.task)
    if setting == "nl":
        return nl_answer(spec, decode_gold(sample.gold, spec.arity))
    if setting == "nl_cot":
        return cot_answer(sample)
    if setting == "tv":
        return tv_answer(sample)
    raise ConfigError(f"unknown relational setting {setting!r}; known: {', '.join(SETTINGS)}")


def prompt_text(sample: Sample, setting: str, fewshot: list[Sample]) -> str:
    """The whole user message for ``sample`` in ``setting`` with ``fewshot`` examples."""
    if setting == "tv":
        question = tv_question
    elif setting in ("nl", "nl_cot"):
        cot = setting == "nl_cot"

        def question(s: Sample) -> str:
            return nl_question(s, cot=cot)
    else:
        raise ConfigError(f"unknown relational setting {setting!r}; known: {', '.join(SETTINGS)}")
    role = FAMILY_ROLE if task_spec(sample.task).domain == FAMILY else GRAPH_ROLE
    parts = [f"{role} {EXAMPLES_INTRO}" if fewshot else role]
    for example in fewshot:
        parts.append(f"Question: {question(example)}\nAnswer: {render_gold(example, setting)}")
    parts.append(f"{NOW}\nQuestion: {question(sample)}")
    return "\n\n".join(parts)


def build_prompt(sample: Sample, setting: str, fewshot: list[Sample], max_tokens: int) -> Prompt:
    return Prompt(
        prompt_id=stable_hash(TEMPLATE_VERSION, sample.sample_id, setting, [s.sample_id for s in fewshot]),
        sample_id=sample.sample_id,
        benchmark=sample.benchmark,
        task=sample.task,
        split=sample.split,
        setting=setting,
        messages=[{"role": "user", "content": prompt_text(sample, setting, fewshot)}],
        template_version=TEMPLATE_VERSION,
        max_tokens=max_tokens,
    )


def build_prompts(samples: list[Sample], profile: Profile) -> list[Prompt]:
    """Prompts for every iid/ood sample and setting; few-shot examples are the same task's first ones."""
    settings = list(profile.typed(Knobs).settings)
    # Optional per-split restriction (the smoke profile skips the longest OOD prompts).
    split_settings: dict[str, list[str]] = dict(profile.typed(Knobs).split_settings)
    for setting in settings + [x for v in split_settings.values() for x in v]:
        if setting not in SETTINGS:
            raise ConfigError(f"unknown relational setting {setting!r}; known: {', '.join(SETTINGS)}")
    knobs = profile.typed(Knobs)
    n_fewshot, n_fewshot_cot, max_tokens = knobs.n_fewshot, knobs.n_fewshot_cot, knobs.max_tokens
    fewshot_by_task: dict[str, list[Sample]] = defaultdict(list)
    for s in samples:
        if s.split == "fewshot":
            fewshot_by_task[s.task].append(s)
    for pool in fewshot_by_task.values():
        pool.sort(key=lambda s: (int(s.input.get("index", 0)), s.sample_id))
    prompts: list[Prompt] = []
    for s in samples:
        if s.split not in TEST_SPLITS:
            continue
        pool = fewshot_by_task.get(s.task, [])
        for setting in split_settings.get(s.split, settings):
            k = n_fewshot_cot if setting == "nl_cot" else n_fewshot
            prompts.append(build_prompt(s, setting, pool[:k], max_tokens))
    return prompts
