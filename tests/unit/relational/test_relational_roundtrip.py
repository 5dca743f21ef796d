"""Gold answers parse back to F1 = 1; odd and hostile responses never crash the parsers."""

from __future__ import annotations

import pytest

from relreason_dagster.benchmarks.base import Profile, Sample
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.benchmarks.relational.generate import decode_gold
from relreason_dagster.benchmarks.relational.parsing import parse_nl, parse_tv
from relreason_dagster.benchmarks.relational.profile_schema import Knobs
from relreason_dagster.benchmarks.relational.prompts import nl_answer, tv_target
from relreason_dagster.benchmarks.relational.tasks import TASKS, task_spec
from relreason_dagster.benchmarks.scoring import set_f1

FAMILY = get_family("relational")
SETTINGS = ("nl", "nl_cot", "tv")


def _profile(variant: str) -> Profile:
    return Profile(
        name="test",
        params={
            "n_fewshot": 2,
            "n_fewshot_cot": 1,
            "n_iid": 2,
            "n_ood": 2,
            "n_train_nodes": 10,
            "n_ood_nodes": 20,
            "settings": list(SETTINGS),
            "max_tokens": 256,
            "family_tree_variant": variant,
        },
        knobs=Knobs,
    )


@pytest.fixture(scope="module", params=["study", "nlm"])
def samples(request) -> list[Sample]:
    return FAMILY.generate(_profile(request.param), seed=11)


@pytest.fixture(scope="module")
def study_samples() -> list[Sample]:
    return FAMILY.generate(_profile("study"), seed=12)


def _one_per_task(samples: list[Sample], split: str = "iid") -> list[Sample]:
    seen: dict[str, Sample] = {}
    for s in samples:
        if s.split == split:
            seen.setdefault(s.task, s)
    return [seen[t] for t in TASKS]


def _assert_exact(sample: Sample, parsed) -> None:
    assert parsed.parse_status == "ok", parsed.detail
    assert (parsed.tp, parsed.fp, parsed.fn) == (sample.gold_pos, 0, 0)
    assert parsed.correct is True
    assert parsed.parsed == sample.gold
    assert parsed.pred_pos == sample.gold_pos
    assert parsed.n_cells == sample.n_cells
    assert "f1" not in parsed.detail  # F1 is the marts' (SQL), not a parse fact


def test_gold_roundtrip_every_task_split_setting(samples):
    assert {s.split for s in samples} == {"fewshot", "iid", "ood"}
    for sample in samples:
        for setting in SETTINGS:
            text = FAMILY.render_gold(sample, setting)
            _assert_exact(sample, FAMILY.parse(sample, setting, text))


def test_gold_roundtrip_survives_chatter_and_markdown(samples):
    for sample in _one_per_task(samples, "ood"):
        for setting in SETTINGS:
            gold = FAMILY.render_gold(sample, setting)
            wrapped = f"Sure! Let me think.\n\n**Answer:** {gold}\n\nI hope this helps."
            _assert_exact(sample, FAMILY.parse(sample, setting, wrapped))
            # A hallucinated next question with its own answer must not count.
            continued = (
                f"{gold}\n\nNow this is the question for you to answer.\nQuestion: ...\nAnswer: P0 has sister"
            )
            _assert_exact(sample, FAMILY.parse(sample, setting, continued))
            continued = (
                f"Answer: {gold}\nQuestion: For a family tree ... Answer: P1 is P0's uncle; P9 has father."
            )
            _assert_exact(sample, FAMILY.parse(sample, setting, continued))


def test_nl_bullets_bold_and_curly_quotes(samples):
    for sample in _one_per_task(samples):
        spec = task_spec(sample.task)
        gold = decode_gold(sample.gold, spec.arity)
        answer = nl_answer(spec, gold).rstrip(".").split("; ")
        bulleted = "Here they are:\n" + "\n".join(f"- **{line}**" for line in answer)
        bulleted = bulleted.replace("'", "\u2019")
        _assert_exact(sample, FAMILY.parse(sample, "nl", bulleted))


def test_cot_uses_final_answer_section(samples):
    sample = next(s for s in samples if s.task == "IsUncle" and s.split == "iid")
    n = sample.input["n"]
    wrong = "; ".join(f"P{y} is P{x}'s uncle" for x in range(3) for y in range(3, 6))
    text = f"Let me reason. Maybe {wrong}.\nFinal answer: {FAMILY.render_gold(sample, 'nl')}"
    _assert_exact(sample, FAMILY.parse(sample, "nl_cot", text))
    # Without any statement after the marker, the statements anywhere in the text count.
    result = parse_nl(f"{wrong}. The final answer is:", "IsUncle", n)
    assert result.status == "ok" and len(result.cells) == 9


def test_partial_answer_counts(samples):
    for sample in _one_per_task(samples):
        spec = task_spec(sample.task)
        n = sample.input["n"]
        gold = decode_gold(sample.gold, spec.arity)
        listed = sorted(gold)
        if spec.symmetric:
            listed = [c for c in listed if c[0] < c[1]]
        kept = set(listed[1:])
        if spec.symmetric:
            kept |= {(c[1], c[0]) for c in kept}
        if spec.arity == 1:
            candidates = [(x,) for x in range(n)]
        else:
            candidates = [(x, y) for x in range(n) for y in range(n) if x != y]
        extra = next((c for c in candidates if c not in gold), None)  # None: every cell is true
        extra_cells = set() if extra is None else {extra, extra[::-1]} if spec.symmetric else {extra}
        pred = kept | extra_cells
        expected = set_f1(pred, gold)[:3]
        nl_text = nl_answer(spec, kept | extra_cells)
        for setting, text in (
            ("nl", nl_text),
            ("nl_cot", f"Some reasoning.\nFinal answer: {nl_text}"),
            ("tv", f"{spec.name} = {tv_target(spec, pred, n)}"),
        ):
            parsed = FAMILY.parse(sample, setting, text)
            assert parsed.parse_status == "ok"
            assert (parsed.tp, parsed.fp, parsed.fn) == expected, (sample.task, setting)
            assert parsed.pred_pos == len(pred)
            assert parsed.correct is False


def test_none_answer_is_empty_prediction(samples):
    for sample in _one_per_task(samples):
        for text in ("None", "None.", "Answer: None", "**Final answer:** none", "Nobody has the relation."):
            for setting in ("nl", "nl_cot"):
                parsed = FAMILY.parse(sample, setting, text)
                assert parsed.parse_status == "ok", text
                assert (parsed.tp, parsed.fp, parsed.fn) == (0, 0, sample.gold_pos)
                assert parsed.parsed == []


def test_out_of_range_names_are_dropped_but_counted():
    result = parse_nl("P99 has sister; Q3 has sister; P2 has sister.", "HasSister", 10)
    assert result.status == "ok"
    assert result.cells == {(2,)}
    assert result.detail["out_of_range"] == 1
    only_wrong = parse_nl("P99 has sister; P12 has sister.", "HasSister", 10)
    assert only_wrong.status == "ok" and only_wrong.cells == set()
    assert parse_nl("Q3 has sister.", "HasSister", 10).status == "na"


def test_statement_variants():
    assert parse_nl("P4 is the uncle of P0", "IsUncle", 10).cells == {(0, 4)}
    assert parse_nl("P4 is not P0's uncle; P5 is P1's uncle", "IsUncle", 10).cells == {(1, 5)}
    assert parse_nl("P4 is P0's maternal great uncle", "IsUncle", 10).status == "na"
    assert parse_nl("P4 is P0's maternal great-uncle", "IsMGUncle", 10).cells == {(0, 4)}
    assert parse_nl("P3 is P1's grandfather", "IsGrandparent", 10).cells == {(1, 3)}
    assert parse_nl("P2 has a sister. P3 has no sister.", "HasSister", 10).cells == {(2,)}
    assert parse_nl("P2 has outdegree 12; P3 has outdegree 1.", "1-Outdegree", 20).cells == {(3,)}
    assert parse_nl("P0 and P3 are 4-connected", "4-Connectivity", 10).cells == {(0, 3), (3, 0)}
    assert parse_nl("P0 and P3 are 6-connected", "4-Connectivity", 10).status == "na"
    assert parse_nl("$P2$ 's father is known. P2 has father", "HasFather", 10).cells == {(2,)}


def test_tv_shapes_and_values():
    assert parse_tv("HasSister = [0, 1, 0, 1]", "HasSister", 4).cells == {(1,), (3,)}
    assert parse_tv("[True, False, true, 0]", "HasSister", 4).cells == {(0,), (2,)}
    assert parse_tv("[[0, 1, 0, 1]]", "HasSister", 4).cells == {(1,), (3,)}
    assert parse_tv("[[0], [1], [0], [1]]", "HasSister", 4).cells == {(1,), (3,)}
    assert parse_tv("[0, 1, 0]", "HasSister", 4).status == "na"
    assert parse_tv("[[0, 1], [1, 0]]", "IsUncle", 2).cells == {(0, 1), (1, 0)}
    assert parse_tv("[[0, 1], [1, 0], [0, 0]]", "IsUncle", 2).status == "na"
    assert parse_tv("[[0, 1], [1]]", "IsUncle", 2).status == "na"
    assert parse_tv("[0, 1, 0, 1] and then [see note]", "HasSister", 4).cells == {(1,), (3,)}
    assert parse_tv("[[[[[[0]]]]]]", "HasSister", 1).status == "na"
    assert parse_tv("[0, 2, 0, 1]", "HasSister", 4).status == "na"
    assert parse_tv("[0,, 1, 0, 1]", "HasSister", 4).status == "na"
    assert parse_tv("[0 1 0 1]", "HasSister", 4).status == "na"
    assert parse_tv("[[0, 1], [1, 0]", "IsUncle", 2).status == "na"  # outer list never closed
    assert parse_tv("no list here", "HasSister", 4).status == "na"


MEGABYTE = 1_000_000
ADVERSARIAL = [
    "",
    "   \n\t ",
    "x" * MEGABYTE,
    "P2 has sister; " * (MEGABYTE // 15),
    "P0 and P3 are 4-connected; P1 is P2's uncle. " * (MEGABYTE // 45),
    "[" * (MEGABYTE // 2) + "]" * (MEGABYTE // 2),
    "[0, 1, " * (MEGABYTE // 7),
    "[0, 1, 0, 1, x]" * (MEGABYTE // 15),
    "[[0, 1], [1, 0]] " * (MEGABYTE // 17),
    "]" * MEGABYTE,
    "P" * MEGABYTE,
    "P1" * (MEGABYTE // 2),
    "Answer:" * (MEGABYTE // 7),
    "Question: " * (MEGABYTE // 10),
    "P99 has sister; Q3 is P1's uncle; P-1 has father.",
    "\u202e\ud83d\ude00 \x00\x07 P\u0663 has sister \ufffd \u00e9\u00e8 \ud800",
    "[[[[[[[[[[0]]]]]]]]]] [[1, [0]], 1]",
    "None",
    "Answer: none of them; but actually [1, 0]",
    "P1 is P2\u2019s uncle \u2014 **P3** is **P4**'s uncle",
]


def test_adversarial_responses_never_raise(study_samples):
    """Never raises; speed is bounded by structure (parsing.MAX_CHARS windows), not asserted by a clock."""
    sample_by_task = {s.task: s for s in _one_per_task(study_samples, "ood")}
    for text in ADVERSARIAL:
        for task in TASKS:
            sample = sample_by_task[task]
            for setting in SETTINGS:
                parsed = FAMILY.parse(sample, setting, text)
                assert parsed.parse_status in ("ok", "na")
                assert parsed.tp + parsed.fn == sample.gold_pos
                assert 0 <= parsed.pred_pos <= parsed.n_cells == sample.n_cells
                if parsed.parse_status == "na":
                    assert parsed.parsed is None and parsed.correct is False


def test_non_string_response_is_na(samples):
    sample = _one_per_task(samples)[0]
    for setting in SETTINGS:
        assert FAMILY.parse(sample, setting, None).parse_status == "na"  # type: ignore[arg-type]


def test_set_f1_conventions():
    assert set_f1(set(), set()) == (0, 0, 0, 1.0)
    assert set_f1({1}, set()) == (0, 1, 0, 0.0)
    assert set_f1(set(), {1}) == (0, 0, 1, 0.0)
    tp, fp, fn, f1 = set_f1({1, 2, 3}, {2, 3, 4, 5})
    assert (tp, fp, fn) == (2, 1, 2)
    assert f1 == pytest.approx(4 / 7)


def test_parse_after_storage_round_trip(samples):
    for sample in _one_per_task(samples):
        restored = Sample.from_row(sample.row())
        assert restored == sample
        _assert_exact(restored, FAMILY.parse(restored, "tv", FAMILY.render_gold(restored, "tv")))
