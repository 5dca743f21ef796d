"""FLenQA: balanced, solvable instances; padding that keeps the answer; lengths; prompts; parsing.

The paper grid (3 tasks x 100 base instances x 61 cells, ~12 s) is generated once
per module; most checks run on a reduced grid (10 base instances per task, every
length/padding/position) whose samples are, by construction, also samples of
the paper grid (checked below).  Exact token counts use the real tokenizer on a
few dozen texts and ~100 prompts only.

Several tests pin bugs found while writing them (first/last swapped, overshooting
fill, next-word golds spanning paragraphs, '*' stripped from operator prose).
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter, defaultdict

import pytest

from relreason_dagster.benchmarks.base import Profile, Sample
from relreason_dagster.benchmarks.flenqa import padding, parsing, prompts
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.flenqa.generate import MINIMAL, sample_text, select_balanced
from relreason_dagster.benchmarks.flenqa.instances import MONOREL, PIR, RULETAKER, TASKS, base_instances
from relreason_dagster.benchmarks.flenqa.profile_schema import LENGTHS, POOL_SIZE, Knobs
from relreason_dagster.benchmarks.flenqa.prose import load_prose
from relreason_dagster.benchmarks.flenqa.solver import solve
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.common.tokenizer import count_tokens
from relreason_dagster.errors import ConfigError
from relreason_dagster.profiles import DEFAULT_SEED, get_profile
from tests.profile_files import use_profiles

FAMILY = FlenqaFamily()
PAPER = get_profile("paper", "flenqa")
SMOKE = get_profile("smoke", "flenqa")
REDUCED = Profile("reduced", {**PAPER.params, "n_base": 10}, knobs=Knobs)
# A tiny grid for determinism and error checks (all paddings/positions, two lengths).
TINY = Profile("tiny", {**PAPER.params, "n_base": 2, "lengths": [250, 1000]}, knobs=Knobs)
STEP = "Let’s work this out in a step by step way to be sure we have the right answer."
TRUE_FALSE = re.compile(r"\b(true|false)\b", re.IGNORECASE)


@pytest.fixture(scope="module")
def paper() -> list[Sample]:
    return FAMILY.generate(PAPER, DEFAULT_SEED)


@pytest.fixture(scope="module")
def reduced() -> list[Sample]:
    return FAMILY.generate(REDUCED, DEFAULT_SEED)


@pytest.fixture(scope="module")
def smoke() -> list[Sample]:
    return FAMILY.generate(SMOKE, DEFAULT_SEED)


@pytest.fixture(scope="module")
def reduced_prompts(reduced):
    return FAMILY.build_prompts(reduced, PAPER)


def _padded(samples: list[Sample]) -> list[Sample]:
    return [s for s in samples if s.split == "test"]


def _keys(sample: Sample) -> tuple[str, str]:
    paragraphs, (i, j) = sample.input["paragraphs"], sample.input["key_index"]
    return paragraphs[i], paragraphs[j]


def _padding_paragraphs(sample: Sample) -> list[str]:
    keys = set(sample.input["key_index"])
    return [p for i, p in enumerate(sample.input["paragraphs"]) if i not in keys]


def _solve(sample: Sample, text: str) -> bool | None:
    return solve(sample.task, text, sample.input["question"], sample.input["rule"])


def _one_per_cell(samples: list[Sample]) -> list[Sample]:
    """One padded sample per task x cell, rotating over base instances (deterministic)."""
    groups: dict[tuple[str, str], list[Sample]] = defaultdict(list)
    for s in _padded(samples):
        groups[(s.task, s.variant["cell"])].append(s)
    return [group[k % len(group)] for k, group in enumerate(groups.values())]


def _within(count: int, length: int) -> bool:
    return abs(count - length) <= padding.TOLERANCE * length


# --------------------------------------------------------------------------- registry and grid shape


def test_registered_family():
    family = get_family("flenqa")
    assert isinstance(family, FlenqaFamily)
    assert family.tasks == TASKS == (MONOREL, PIR, RULETAKER)
    assert family.settings == ("direct", "cot", "next_word")


def test_paper_grid_shape(paper):
    cells_per_task = 1 + len(LENGTHS) * len(padding.PADDINGS) * len(padding.POSITIONS)
    assert len(paper) == len(TASKS) * POOL_SIZE * cells_per_task == 18_300
    ids = [s.sample_id for s in paper]
    assert len(set(ids)) == len(ids)
    assert Counter(s.split for s in paper) == {"test": 18_000, "minimal": 300}
    assert {s.variant["length"] for s in paper} == {0, *LENGTHS}
    minimal = [s for s in paper if s.split == "minimal"]
    assert {s.variant["cell"] for s in minimal} == {f"{MINIMAL}/{MINIMAL}/{MINIMAL}"}


def test_smoke_grid_shape(smoke):
    # n_base 2 x (minimal + 2 lengths x different x random) per task
    assert len(smoke) == len(TASKS) * 2 * 3
    assert {s.variant["cell"] for s in _padded(smoke)} == {"250/different/random", "1000/different/random"}


# --------------------------------------------------------------------------- label balance


@pytest.mark.parametrize("task", TASKS)
def test_pool_labels_exactly_balanced(task):
    pool = base_instances(task, POOL_SIZE, DEFAULT_SEED)
    assert len(pool) == POOL_SIZE
    assert Counter(i.label for i in pool) == {True: 50, False: 50}
    assert [i.index for i in pool] == list(range(POOL_SIZE))
    chosen = select_balanced(pool, 10)
    assert Counter(i.label for i in chosen) == {True: 5, False: 5}
    assert [i.index for i in chosen] == sorted(i.index for i in chosen)


@pytest.mark.parametrize("fixture,n_base", [("paper", 100), ("reduced", 10), ("smoke", 2)])
def test_every_cell_exactly_balanced(request, fixture, n_base):
    samples = request.getfixturevalue(fixture)
    cells: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for s in samples:
        assert s.label is s.gold and s.gold_pos == int(s.label) and s.n_cells == 1
        cells[(s.task, s.variant["cell"])][s.label] += 1
    assert {task for task, _ in cells} == set(TASKS)
    for cell, counts in cells.items():
        assert counts == {True: n_base // 2, False: n_base // 2}, cell


# --------------------------------------------------------------------------- solvability and padding


@pytest.mark.parametrize("task", TASKS)
def test_pool_solvable_from_key_sentences_alone(task):
    for inst in base_instances(task, POOL_SIZE, DEFAULT_SEED):
        assert solve(task, " ".join(inst.key_sentences), inst.question, inst.rule) == inst.label, inst
        # one key sentence alone must not decide MonoRel/PIR (both are needed)
        if task != RULETAKER:
            for one in inst.key_sentences:
                assert solve(task, one, inst.question, inst.rule) is None, (inst, one)


@pytest.mark.parametrize("fixture", ["smoke", "reduced"])
def test_padding_never_changes_the_answer(request, fixture):
    for s in request.getfixturevalue(fixture):
        assert _solve(s, " ".join(s.input["key_sentences"])) == s.label, s.sample_id
        assert _solve(s, sample_text(s)) == s.label, (s.sample_id, s.variant["cell"])


def test_padding_never_changes_the_answer_paper(paper):
    # every 4th sample: all 100 base instances of each task, every cell appears (61 per instance)
    for s in paper[::4]:
        assert _solve(s, " ".join(s.input["key_sentences"])) == s.label, s.sample_id
        assert _solve(s, sample_text(s)) == s.label, (s.sample_id, s.variant["cell"])


def test_ruletaker_false_twin_differs_in_exactly_one_fact():
    pool = base_instances(RULETAKER, POOL_SIZE, DEFAULT_SEED)
    for true, false in zip(pool[::2], pool[1::2], strict=True):
        assert (true.label, false.label) == (True, False)
        assert (true.rule, true.question) == (false.rule, false.question)
        pairs = zip(true.key_sentences, false.key_sentences, strict=True)
        differing = [k for k, (a, b) in enumerate(pairs) if a != b]
        assert len(differing) == 1, (true.key_sentences, false.key_sentences)


def test_texts_never_say_true_or_false(reduced):
    # The answer parser looks for these words; the input must not contain them.
    for s in reduced:
        assert not TRUE_FALSE.search(sample_text(s)), s.sample_id


# --------------------------------------------------------------------------- key paragraphs and padding kinds


@pytest.mark.parametrize("fixture", ["smoke", "reduced"])
def test_key_sentences_verbatim_at_key_index(request, fixture):
    samples = request.getfixturevalue(fixture)
    minimal = {s.variant["base_id"]: s for s in samples if s.split == "minimal"}
    for s in samples:
        text, keys = sample_text(s), _keys(s)
        for sentence, paragraph in zip(s.input["key_sentences"], keys, strict=True):
            assert sentence in text
            assert paragraph.startswith(sentence), (s.sample_id, sentence, paragraph[:80])
        # the key paragraphs are the same in every cell of a base instance
        assert list(keys) == minimal[s.variant["base_id"]].input["paragraphs"]
        assert s.input["key_index"][0] < s.input["key_index"][1]


def test_key_paragraph_tokens(smoke):
    for s in smoke:
        if s.split != "minimal":
            continue
        counts = [count_tokens(p) for p in s.input["paragraphs"]]
        assert all(100 <= c <= 131 for c in counts), (s.sample_id, counts)
        assert abs(count_tokens(sample_text(s)) - s.input["key_tokens"]) <= 2


def test_similar_and_different_padding_never_mention_the_instance(reduced):
    checked = Counter()
    for s in _padded(reduced):
        if s.variant["padding"] == "duplicate":
            continue
        for p in _padding_paragraphs(s):
            assert not padding.mentions(p, s.input["entities"]), (s.sample_id, p[:120])
            checked[s.variant["padding"]] += 1
    assert checked["similar"] > 1000 and checked["different"] > 1000


def test_similar_padding_comes_from_other_key_paragraphs(reduced):
    pool_sentences = {
        sentence
        for task in TASKS
        for inst in base_instances(task, POOL_SIZE, DEFAULT_SEED)
        for sentence in inst.key_sentences
    }
    for s in _padded(reduced):
        if s.variant["padding"] != "similar" or s.variant["length"] < 1000:
            continue
        text = sample_text(s)
        others = [k for k in pool_sentences if k in text and k not in s.input["key_sentences"]]
        assert others, s.sample_id


def test_duplicate_padding_is_only_the_key_paragraphs(reduced):
    for s in _padded(reduced):
        if s.variant["padding"] != "duplicate":
            continue
        k1, k2 = _keys(s)
        extra = _padding_paragraphs(s)
        if s.variant["length"] >= 500:
            assert extra, s.sample_id
        for p in extra:
            assert p in k1 or p in k2, (s.sample_id, p[:120])


def test_duplicate_padding_unit():
    keys = (("K1 one.", "K1 two."), ("K2 one.", "K2 two."))
    stream = padding.duplicate_stream(keys)
    assert [next(stream) for _ in range(4)] == [keys[0], keys[1], keys[0], keys[1]]


# --------------------------------------------------------------------------- positions


def test_first_and_last_keep_keys_adjacent_at_one_end(reduced):
    for s in _padded(reduced):
        if s.variant["position"] not in ("first", "last"):
            continue
        n, (i, j) = len(s.input["paragraphs"]), s.input["key_index"]
        assert j == i + 1
        assert (i, j) in ((0, 1), (n - 2, n - 1)), (s.sample_id, i, j, n)


def test_first_puts_keys_at_start_and_last_at_end(reduced):
    for s in _padded(reduced):
        n, key_index = len(s.input["paragraphs"]), s.input["key_index"]
        if s.variant["position"] == "first":
            assert key_index == [0, 1], (s.variant["cell"], key_index, n)
        elif s.variant["position"] == "last":
            assert key_index == [n - 2, n - 1], (s.variant["cell"], key_index, n)


@pytest.mark.parametrize("position,expected", [("first", (0, 1)), ("last", (4, 5))])
def test_pad_positions_unit(position, expected):
    keys = (("Key one.",), ("Key two.",))
    stream = itertools.cycle([("Pad a.",), ("Pad b.",), ("Pad c.",), ("Pad d.",)])
    tokens = padding.TokenCounter(lambda text: len(text.split()))
    # keys: 2 + newline + 2 tokens; four padding paragraphs of 3 (2 words + newline) fill the other 12
    padded = padding.pad(keys, stream, 17, position, random.Random(0), tokens)
    assert len(padded.paragraphs) == 6
    assert padded.key_index == expected, padded.paragraphs


def test_middle_is_central(reduced):
    for s in _padded(reduced):
        if s.variant["position"] != "middle":
            continue
        paragraphs, (i, j) = s.input["paragraphs"], s.input["key_index"]
        assert j == i + 1
        if s.variant["length"] >= 1000:
            before = sum(len(p) for p in paragraphs[:i])
            after = sum(len(p) for p in paragraphs[j + 1 :])
            assert 0.35 <= before / (before + after) <= 0.65, (s.sample_id, before, after)


def test_random_positions_disperse_the_keys(reduced):
    long = [s for s in _padded(reduced) if s.variant["position"] == "random" and s.variant["length"] >= 1000]
    apart = [s for s in long if s.input["key_index"][1] - s.input["key_index"][0] > 1]
    assert len(apart) >= 0.8 * len(long), (len(apart), len(long))
    firsts = Counter(s.input["key_index"][0] for s in long)
    assert len(firsts) > 10  # the first key paragraph's place varies too


# --------------------------------------------------------------------------- token lengths


def test_estimated_tokens_are_exact(reduced):
    sample = _one_per_cell(reduced)[::2]  # 90 texts, every cell of some task
    for s in sample:
        assert abs(count_tokens(sample_text(s)) - s.input["estimated_tokens"]) <= 2, s.sample_id


def test_sampled_text_lengths_within_tolerance(reduced):
    sample = _one_per_cell(reduced)[1::3]  # 60 texts
    assert len(sample) >= 36
    for s in sample:
        if s.input["key_exceeds"]:
            continue
        count = count_tokens(sample_text(s))
        assert _within(count, s.variant["length"]), (s.sample_id, s.variant["cell"], count)


def test_all_text_lengths_within_tolerance(paper):
    outside = [
        s
        for s in _padded(paper)
        if not s.input["key_exceeds"] and not _within(s.input["estimated_tokens"], s.variant["length"])
    ]
    worst = sorted(outside, key=lambda s: -abs(s.input["estimated_tokens"] / s.variant["length"] - 1))[:3]
    exact = [(s.sample_id, s.variant["cell"], count_tokens(sample_text(s))) for s in worst]
    assert len(outside) == 0, (len(outside), exact)


def test_key_exceeds_means_unpadded(paper):
    exceeding = [s for s in _padded(paper) if s.input["key_exceeds"]]
    for s in exceeding:
        assert s.input["key_tokens"] > s.variant["length"] * (1 + padding.TOLERANCE)
        assert len(s.input["paragraphs"]) == 2
    assert {s.variant["length"] for s in exceeding} <= {250}
    for s in _padded(paper):
        if not s.input["key_exceeds"]:
            assert s.input["key_tokens"] <= s.variant["length"] * (1 + padding.TOLERANCE)


def _prompt_sample(reduced, reduced_prompts):
    """~100 length-controlled prompts (stride 53: every setting, task, cell mix) and their samples."""
    by_id = {s.sample_id: s for s in reduced}
    chosen = [p for p in reduced_prompts if p.target_tokens is not None][::53]
    return [(p, by_id[p.sample_id]) for p in chosen]


def test_prompt_target_is_text_length_plus_instructions(reduced, reduced_prompts):
    """A prompt misses its target by the text's own deviation, +-2 tokens of template joins."""
    sample = _prompt_sample(reduced, reduced_prompts)
    assert len(sample) >= 95
    assert {p.setting for p, _ in sample} == set(prompts.SETTINGS)
    for prompt, s in sample:
        text = sample_text(s)
        body = prompts.split_last_word(text)[0] if prompt.setting == prompts.NEXT_WORD else text
        offset = (count_tokens(prompt.messages) - prompt.target_tokens) - (
            count_tokens(body) - s.variant["length"]
        )
        assert -2 <= offset <= 2, (prompt.prompt_id, prompt.setting, s.task, offset)
        assert prompt.target_tolerance == round(prompt.target_tokens * padding.TOLERANCE)
        assert prompt.target_exempt == s.input["key_exceeds"]


def test_prompt_tokens_within_target_tolerance(reduced, reduced_prompts):
    by_id = {s.sample_id: s for s in reduced}
    chosen = [p for p, _ in _prompt_sample(reduced, reduced_prompts)]
    # plus the CoT prompts of the 250-token samples with the longest (not exempt) key text
    edge = sorted(
        (s for s in _padded(reduced) if s.variant["length"] == 250 and not s.input["key_exceeds"]),
        key=lambda s: -s.input["estimated_tokens"],
    )[:2]
    edge_ids = {s.sample_id for s in edge}
    chosen += [p for p in reduced_prompts if p.sample_id in edge_ids and p.setting == prompts.COT]
    misses = []
    for p in chosen:
        if p.target_exempt:
            continue
        count = count_tokens(p.messages)
        if abs(count - p.target_tokens) > p.target_tolerance:
            misses.append((p.setting, by_id[p.sample_id].variant["cell"], p.target_tokens, count))
    assert not misses


# --------------------------------------------------------------------------- determinism


def test_generation_is_deterministic():
    first = FAMILY.generate(TINY, DEFAULT_SEED)
    again = FAMILY.generate(TINY, DEFAULT_SEED)
    assert [s.sample_id for s in first] == [s.sample_id for s in again]
    assert [s.input for s in first] == [s.input for s in again]
    other = FAMILY.generate(TINY, DEFAULT_SEED + 1)
    assert len(other) == len(first)
    assert not {s.sample_id for s in first} & {s.sample_id for s in other}
    assert [s.input["key_sentences"] for s in first] != [s.input["key_sentences"] for s in other]


@pytest.mark.parametrize("fixture", ["smoke", "reduced"])
def test_smaller_grids_are_subsets_of_the_paper_grid(request, fixture, paper):
    """A sample depends only on its own coordinates, not on the size of the grid around it."""
    by_id = {s.sample_id: s for s in paper}
    for s in request.getfixturevalue(fixture):
        assert s.sample_id in by_id, s.variant
        assert s.input == by_id[s.sample_id].input


# --------------------------------------------------------------------------- prompts


def _first(samples: list[Sample], task: str, split: str = "test") -> Sample:
    return next(s for s in samples if s.task == task and s.split == split)


def _content(prompt_list, sample: Sample, setting: str) -> str:
    prompt = next(p for p in prompt_list if p.sample_id == sample.sample_id and p.setting == setting)
    return prompt.messages[0]["content"]


def test_prompt_set(reduced, reduced_prompts):
    n_test, n_min = len(_padded(reduced)), sum(s.split == "minimal" for s in reduced)
    assert len(reduced_prompts) == 3 * n_test + 2 * n_min
    ids = [p.prompt_id for p in reduced_prompts]
    assert len(set(ids)) == len(ids)
    for p in reduced_prompts:
        # the paper profile lays its prompts out as the study's notebook does (layout: study)
        assert p.benchmark == "flenqa" and p.template_version == prompts.STUDY_TEMPLATE_VERSION
        assert p.max_tokens == PAPER.values().max_tokens[p.setting]
        assert len(p.messages) == 1 and p.messages[0]["role"] == "user"
        if p.setting == prompts.NEXT_WORD:
            assert p.split == "test"
        if p.split == "minimal":
            assert p.target_tokens is None and p.target_tolerance is None
        else:
            assert p.target_tokens > 0 and p.target_tolerance > 0
    head = FAMILY.build_prompts(reduced[:5], PAPER)  # prompts follow sample order and depend on nothing else
    assert head == reduced_prompts[: len(head)]


def test_smoke_prompts_use_profile_max_tokens(smoke):
    built = FAMILY.build_prompts(smoke, SMOKE)
    assert {p.max_tokens for p in built if p.setting == "direct"} == {16}
    assert {p.max_tokens for p in built if p.setting == "cot"} == {128}
    assert {p.max_tokens for p in built if p.setting == "next_word"} == {4}
    assert sum(p.setting == "next_word" for p in built) == len(_padded(smoke))


def test_appendix_d_prompt_texts(smoke):
    built = FAMILY.build_prompts(smoke, SMOKE)
    for split in ("minimal", "test"):
        s = _first(smoke, PIR, split)
        text, q = sample_text(s), s.input["question"]
        assert (
            _content(built, s, "direct")
            == f"{text}\n\nTrue/False Question: {q}\n\nAnswer only True or False."
        )
        assert _content(built, s, "cot") == (
            f"Show your steps then answer with ’true’ or ’false’.\n\n{text}\n\n"
            f"True/False Question: {q}\n\n{STEP}"
        )

        s = _first(smoke, MONOREL, split)
        text, q = sample_text(s), s.input["question"]
        head = f"Here are some facts. Answer the exact following question based on the text: {q} "
        head += "Answer the question as it appears exactly."
        assert _content(built, s, "direct") == f"{head} {text}\n\n{q}\n\nAnswer only True or False."
        assert _content(built, s, "cot") == (
            f"{head}\n\nShow your steps then answer with ’true’ or ’false’.\n\n{text}\n\n{q}\n\n{STEP} "
            "Show your work and finally answer with ’true’ or ’false’. "
            "The final step should include the exact text of the question and the answer."
        )

        s = _first(smoke, RULETAKER, split)
        text, statement, rule = sample_text(s), s.input["question"], s.input["rule"]
        assert re.fullmatch(r"If X is [a-z]+ and X is [a-z]+ then X is [a-z]+\.", rule)
        assert re.fullmatch(r"[A-Z][\w-]* is [a-z]+", statement)
        lead = f'Answer whether the statement "{statement}" can be derived from the rule and the facts.'
        assert _content(built, s, "direct") == (
            f'{lead} Answer with either "True" or "False".\n\nRule: {rule}\n\nFacts: {text}\n\n'
            'Answer with either "True or "False".'
        )
        assert _content(built, s, "cot") == (
            f'{lead}\n\nShow your steps then answer with either "True" or "False".\n\nRule: {rule}\n\n'
            f'Facts: {text}\n\nAnswer with either "True or "False". {STEP}'
        )
    for p in built:
        content = p.messages[0]["content"]
        if p.setting == "cot":
            assert STEP in content
        if p.setting == "direct" and p.task != RULETAKER:
            assert content.endswith("Answer only True or False.")


def test_next_word_prompts_drop_the_gold_word(reduced, reduced_prompts):
    by_id = {s.sample_id: s for s in reduced}
    next_word = [p for p in reduced_prompts if p.setting == prompts.NEXT_WORD]
    assert len(next_word) == len(_padded(reduced))
    for p in next_word:
        s = by_id[p.sample_id]
        text, content, gold = sample_text(s), p.messages[0]["content"], s.input["next_word"]
        assert s.split == "test"
        assert content.startswith("Continue the following text with its next word.")
        assert s.input["question"] not in content
        body = content.split("\n\n", 1)[1]
        assert text.startswith(body) and len(body) < len(text)
        assert parsing.normalize(text[len(body) :]) == parsing.normalize(gold)


def test_next_word_gold_is_one_nonempty_word(reduced):
    odd = [s.input["next_word"] for s in _padded(reduced) if not re.fullmatch(r"\S+", s.input["next_word"])]
    assert not odd


def test_next_word_gold_itself_is_accepted(reduced):
    rejected = [
        s.input["next_word"]
        for s in _padded(reduced)
        if not FAMILY.parse(s, prompts.NEXT_WORD, s.input["next_word"]).correct
    ]
    assert not rejected


def test_prose_keeps_quoted_operators():
    garbled = [" ".join(p) for doc in load_prose() for p in doc if '""' in " ".join(p)]
    assert not garbled, garbled[:1]


# --------------------------------------------------------------------------- parsing


@pytest.mark.parametrize(
    "text,expected",
    [
        ("True.", True),
        ("False", False),
        ("**False**", False),
        ("The answer is: **True**", True),
        ("’false’", False),
        ("TRUE", True),
        ("fAlSe.", False),
        ("not true", False),
        ("That is NOT TRUE.", False),
        ("It is not\ntrue", False),
        ("not false", True),
        ("True... wait, actually False", False),
        ("false? No: true", True),
        ("Step 1 says true, step 2 says false, so finally: TRUE", True),
    ],
)
def test_read_answer(text, expected):
    assert parsing.read_answer(text).value is expected


@pytest.mark.parametrize(
    "text",
    ["", "   \n\t", None, 123, b"True", ["True"], "I cannot tell from the text.", "There is not enough info"],
)
def test_read_answer_refuses(text):
    assert parsing.read_answer(text).value is None


def test_read_answer_position_is_the_last_word():
    text = "True... wait, actually False"
    assert parsing.read_answer(text).position == text.rindex("False")
    assert parsing.read_answer("x " * 200_000 + "true").value is True  # only the tail is read


@pytest.fixture(scope="module")
def true_sample(smoke) -> Sample:
    return next(s for s in smoke if s.task == MONOREL and s.split == "test" and s.label is True)


@pytest.mark.parametrize("setting", ["direct", "cot"])
def test_parse_reasoning(true_sample, setting):
    ok = FAMILY.parse(true_sample, setting, "The answer is **True**.")
    assert ok.parse_status == "ok" and ok.parsed is True and ok.correct is True
    assert (ok.tp, ok.fp, ok.fn, ok.pred_pos, ok.n_cells) == (1, 0, 0, 1, 1)
    wrong = FAMILY.parse(true_sample, setting, "false")
    assert wrong.parse_status == "ok" and wrong.parsed is False and wrong.correct is False
    assert (wrong.tp, wrong.fp, wrong.fn, wrong.pred_pos) == (0, 0, 1, 0)
    for junk in ("I do not know.", "", None, 42, b"True", {"answer": True}, "x" * 1_000_000):
        parsed = FAMILY.parse(true_sample, setting, junk)
        assert parsed.parse_status == "refused" and parsed.correct is False and parsed.parsed is None
        assert parsed.detail["answer"] == "refused"
    big = FAMILY.parse(true_sample, setting, "y " * 500_000 + "FALSE")
    assert big.parse_status == "ok" and big.parsed is False


def test_parse_false_sample_scores(smoke):
    s = next(s for s in smoke if s.task == PIR and s.split == "test" and s.label is False)
    fp = FAMILY.parse(s, "direct", "True")
    assert (fp.correct, fp.tp, fp.fp, fp.fn, fp.pred_pos) == (False, 0, 1, 0, 1)
    tn = FAMILY.parse(s, "direct", "False")
    assert (tn.correct, tn.tp, tn.fp, tn.fn, tn.pred_pos) == (True, 0, 0, 0, 0)


def test_parse_cot_detail(true_sample):
    k1, k2 = true_sample.input["key_sentences"]
    text = f"Step 1: {k1.upper()} Step 2: {k2.lower().rstrip('.')}! So the statement holds: True."
    parsed = FAMILY.parse(true_sample, "cot", text)
    assert parsed.detail == {
        "answer": "true",
        "answer_first": False,
        "keys_covered": 2,
        "reading": "relreason",
    }
    assert FAMILY.parse(true_sample, "direct", text).detail == {"answer": "true", "reading": "relreason"}


def test_parse_unknown_setting_is_a_config_error(true_sample):
    with pytest.raises(ConfigError):
        FAMILY.parse(true_sample, "zero_shot", "True")


REASONING = (
    "because Alex is busier than Emily and Michelle is busier than Alex, so Michelle must be busier too"
)


def test_answer_first():
    assert len(REASONING.split()) >= 15
    assert parsing.answer_first(f"False. {REASONING}.")
    assert parsing.answer_first(f"**TRUE** - {REASONING}.")
    assert not parsing.answer_first(f"First, {REASONING}. Therefore the answer is False.")
    assert not parsing.answer_first("True.")  # no reasoning after it
    assert not parsing.answer_first("False. Because Alex is busier.")  # too little reasoning
    assert not parsing.answer_first(f"{REASONING}.")  # no answer at all
    assert not parsing.answer_first(None)


def test_coverage():
    keys = ["Alex Jackson is busier than Emily Page.", "Michelle Barnett is busier than Alex Jackson."]
    assert parsing.coverage("ALEX JACKSON IS BUSIER THAN EMILY PAGE!", keys) == 1
    both = "alex  jackson\nis busier than emily-page; michelle barnett is busier than alex jackson"
    assert parsing.coverage(both, keys) == 2
    assert parsing.coverage("Alex Jackson is busier than Emily Pages.", keys) == 0  # whole words only
    assert parsing.coverage("Emily Page is less busy than Alex Jackson.", keys) == 0
    assert parsing.coverage("", keys) == 0 and parsing.coverage(None, keys) == 0
    room = ["Ethan Washington is in John's living room."]
    assert (
        parsing.coverage("Ethan Washington is in John’s living room, so", room) == 1
    )  # typographic apostrophe


@pytest.mark.parametrize(
    "text,word",
    [
        ("  Python, obviously", "python"),
        ("**Reuse**.", "reuse"),
        ("Mary-Kate", "mary kate"),
        ("", None),
        ("...", None),
        (None, None),
    ],
)
def test_first_word(text, word):
    assert parsing.first_word(text) == word


def test_parse_next_word(smoke):
    s = next(s for s in _padded(smoke) if s.input["next_word"].isalpha())
    gold = s.input["next_word"]
    ok = FAMILY.parse(s, "next_word", f" {gold.upper()}.")
    assert ok.parse_status == "ok" and ok.correct is True and ok.parsed == gold.lower()
    assert ok.detail == {"gold_word": gold.lower()}
    wrong = FAMILY.parse(s, "next_word", "zzzz")
    assert wrong.parse_status == "ok" and wrong.correct is False
    for junk in ("", "...", None, 7):
        na = FAMILY.parse(s, "next_word", junk)
        assert na.parse_status == "na" and na.correct is False
    assert FAMILY.parse(s, "next_word", "x" * 1_000_000).correct is False


def test_split_last_word():
    assert prompts.split_last_word("One two three.") == ("One two", "three")
    assert prompts.split_last_word("It ends with (this).\n") == ("It ends with (", "this")


# --------------------------------------------------------------------------- profile errors


@pytest.mark.parametrize(
    "override",
    [
        {"n_base": 3},
        {"n_base": 0},
        {"n_base": POOL_SIZE + 2},
        {"paddings": ["noise"]},
        {"positions": ["center"]},
        {"lengths": [99]},
        {"lengths": [250, 50]},
        {"tasks": ["Sudoku"]},
    ],
)
def test_bad_profile_is_a_config_error(override):
    with pytest.raises(ConfigError):
        FAMILY.generate(
            Profile("bad", {**TINY.params, "lengths": [250], **override}, knobs=Knobs), DEFAULT_SEED
        )


def test_other_config_errors(smoke):
    with pytest.raises(ConfigError):
        FAMILY.build_prompts(smoke, Profile("bad", {"settings": ["direct", "few_shot"]}, knobs=Knobs))
    with pytest.raises(ConfigError):
        select_balanced(base_instances(PIR, 10, DEFAULT_SEED), 3)
    with pytest.raises(ConfigError):
        get_profile("huge", "flenqa")
    with pytest.raises(ValueError):
        base_instances(MONOREL, 3, DEFAULT_SEED)


def test_profiles():
    assert PAPER.values().n_base == POOL_SIZE and list(PAPER.values().lengths) == list(LENGTHS)
    assert set(PAPER.values().paddings) == set(padding.PADDINGS)
    assert set(PAPER.values().positions) == set(padding.POSITIONS)
    assert SMOKE.values().n_base == 2


def test_parse_never_raises_on_any_sample_kind(smoke):
    rng = random.Random(0)
    junk = ["", "True", "false!!", "\x00\x01", "🙂" * 1000, "not " * 10_000 + "true", None, 3.5]
    for s in smoke:
        for setting in prompts.SETTINGS:
            for text in rng.sample(junk, len(junk)):
                parsed = FAMILY.parse(s, setting, text)
                assert parsed.parse_status in {"ok", "refused", "na"}
                assert isinstance(parsed.correct, bool)


def test_sample_rows_are_json(smoke):
    for s in smoke:
        row = s.row()
        assert Sample.from_row(row) == s


def test_a_profile_runs_only_the_families_it_names(monkeypatch, tmp_path):
    """A custom profile without a flenqa section must not fall back to the paper-sized grid."""
    from relreason_dagster.defs.resources import RunSettings

    use_profiles(monkeypatch, tmp_path / "profiles.yaml", {"only-relational": {"relational": {}}})
    assert RunSettings(profile="only-relational").family_names() == ["relational"]
    assert RunSettings(profile="smoke").family_names() == ["relational", "flenqa", "selfcontra", "kor"]
    with pytest.raises(ConfigError, match="profile 'only-relational' has no settings for benchmark 'flenqa'"):
        RunSettings(profile="only-relational", benchmarks=["flenqa"]).family_names()
