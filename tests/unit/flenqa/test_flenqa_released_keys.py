"""What the release lacks, built from its rows' own key paragraphs (issue 56, item 5; ``released_keys.py``).

The study's release (``alonj/FLenQA``: 12,000 rows, 300 problems x 5 lengths x ``same``/``books`` x 4
dispersions) has no minimal text and no duplicate row.  The file here is written in the released format
with texts made up for the test, laid out as the paper describes the study's: two multi-sentence key
paragraphs, each starting with its key sentence (§3.1), joined to each other and to the padding by
newlines (§3.1: "the different parts are joined by newlines"); the 250-token rows hold the key
paragraphs alone (Appendix B: the Books and Same means at 250 are the same in every task, and Table
1's caption calls the minimal text "250 tokens"); the ``last`` rows end with them (§3.3.2 (3)).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from relreason_dagster.benchmarks.base import Profile, Sample
from relreason_dagster.benchmarks.flenqa import dataset, released_keys
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.flenqa.padding import TOLERANCE
from relreason_dagster.benchmarks.flenqa.profile_schema import Knobs
from relreason_dagster.benchmarks.flenqa.prompts import NEXT_WORD
from relreason_dagster.profiles import DEFAULT_SEED, get_profile
from tests.reference_files import flenqa_release
from tests.unit.flenqa.test_flenqa_dataset import write_jsonl

FAMILY = FlenqaFamily()
PAPER = get_profile("paper", "flenqa")
LENGTHS = (250, 500, 1000, 2000, 3000)
DISPERSIONS = ("first", "middle", "last", "random")
FACTS = ["Wren Halloway walked into the pantry.", "The pantry has a teal door."]
KEYS = (
    "Wren Halloway walked into the pantry. She stood for a while among the tall shelves of jars and "
    "tins, reading the labels one by one. The pantry was where she liked to spend a quiet afternoon, "
    "away from the noise of the kitchen and the hall. Nobody ever looked for her there before supper.",
    "The pantry has a teal door. Its paint was fresh that spring, and the colour caught the light from "
    "the window across the corridor. Everyone who passed by the pantry remarked on the teal door. It "
    "was the only door in the house that anyone had bothered to paint in years.",
)
QUESTION = "Is Wren Halloway in a room with a teal door?"


def _padding(length: int, padding: str, k: int) -> list[str]:
    """Made-up padding paragraphs, about ``length`` tokens of them in all."""
    if padding == "same":
        line = "Ivo Brandt carried a lamp into the cellar ({k}). The cellar was cold and damp that night."
    else:
        line = "The ferry left the harbour at dawn ({k}). Gulls followed it out past the breakwater."
    return [line.format(k=f"{k}-{i}") for i in range(max(0, (length - 200) // 20))]


def _mixin(length: int, padding: str, dispersion: str, keys: tuple[str, str] = KEYS) -> str:
    if length == 250:
        return "\n".join(keys)  # the study added no padding at 250 tokens (Appendix B)
    pad = _padding(length, padding, length)
    third = len(pad) // 3
    parts = {
        "first": [*keys, *pad],
        "middle": [*pad[: len(pad) // 2], *keys, *pad[len(pad) // 2 :]],
        "last": [*pad, *keys],
        "random": [*pad[:third], keys[0], *pad[third : 2 * third], keys[1], *pad[2 * third :]],
    }[dispersion]
    return "\n".join(parts)


def rows(
    sample_id: int = 3, keys: tuple[str, str] = KEYS, paddings: tuple[str, ...] = ("same", "books")
) -> list[dict[str, Any]]:
    """One PIR problem in the release's 40 variants (or those of ``paddings``)."""
    out = []
    cells = [(x, p, d) for x in LENGTHS for p in paddings for d in DISPERSIONS]
    for n, (length, padding, dispersion) in enumerate(cells):
        out.append(
            {
                "global_sample_id": 100 * sample_id + n,
                "sample_id": sample_id,
                "label": "True",
                "dataset": "PIR",
                "facts": FACTS,
                "assertion/question": QUESTION,
                "mixin": _mixin(length, padding, dispersion, keys),
                "padding_type": padding,
                "dispersion": dispersion,
                "ctx_size": length,
            }
        )
    return out


def _profile(path: Path, **knobs: Any) -> Profile:
    return Profile("paper", {**PAPER.params, "dataset_file": str(path), **knobs}, knobs=Knobs)


def _run(tmp_path: Path, file_rows: list[dict[str, Any]], **knobs: Any) -> tuple[list[Sample], Profile]:
    profile = _profile(write_jsonl(tmp_path / "FLenQA_hf.jsonl", file_rows), **knobs)
    return FAMILY.generate(profile, DEFAULT_SEED), profile


def _built(samples: list[Sample]) -> list[Sample]:
    return [s for s in samples if s.generator_version == released_keys.KEYS_VERSION]


def test_the_key_paragraphs_are_read_from_a_row_whose_keys_come_last():
    """§3.1: each key paragraph "starts with a key sentence"; §3.3.2 (3): with dispersion ``last`` the
    key paragraphs are the end of the text.  The first runs from the first key sentence to the other,
    the second to the end; what lies between them is the row's own."""
    text = _mixin(1000, "books", "last")
    keys = released_keys.read_keys(text, FACTS)
    assert keys is not None
    assert (keys.first, keys.between, keys.second) == (KEYS[0], "\n", KEYS[1])
    assert keys.minimal_text == f"{KEYS[0]}\n{KEYS[1]}"
    # The key sentences in the other order in ``facts``: the text's order decides.
    assert released_keys.read_keys(text, FACTS[::-1]) == keys
    # A key paragraph that goes on after its key sentence without the sentence's full stop.
    room = "John's living room is marble-floored"
    flowing = f"Padding here.\nEthan is in John's living room. More.\n{room}, a reality as old as the walls."
    found = released_keys.read_keys(flowing, ["Ethan is in John's living room.", f"{room}."])
    assert found is not None and found.second == f"{room}, a reality as old as the walls."
    # A key sentence that is not in the text (or is only part of a word) gives nothing.
    assert released_keys.read_keys(text, [FACTS[0], "The attic has a red door."]) is None
    assert released_keys.read_keys("XWren Halloway walked into the pantry. " + KEYS[1], FACTS) is None


def test_the_minimal_text_is_the_250_token_rows_text_byte_for_byte(tmp_path):
    """Appendix C's minimal text: the key paragraphs alone, which the study's 250-token rows are
    (Appendix B; Table 1: "minimal text (250 tokens)").  One per problem, length 0, padding and
    position ``none``, on the study's items (``source`` ``released``), asked with the notebook's prompt
    (``FLenQA analysis.ipynb`` cell 5) exactly as the 250-token row is."""
    file_rows = rows()
    samples, profile = _run(tmp_path, file_rows)
    minimal = [s for s in samples if s.split == "minimal"]
    assert len(minimal) == 1
    (m,) = minimal
    row_250 = next(r for r in file_rows if (r["ctx_size"], r["dispersion"]) == (250, "last"))
    assert m.input["paragraphs"] == [row_250["mixin"]]
    assert m.input["paragraphs"][0].encode() == f"{KEYS[0]}\n{KEYS[1]}".encode()
    assert (m.variant["length"], m.variant["padding"], m.variant["position"]) == (0, "none", "none")
    assert m.variant["source"] == "released" and m.variant["reading"] == "study"
    assert m.variant["keys_from"] == str(row_250["global_sample_id"])
    assert m.label is True and m.input["question"] == QUESTION and m.input["key_sentences"] == FACTS
    released_250 = next(
        s
        for s in samples
        if s.generator_version == dataset.RELEASED_VERSION and s.variant["cell"] == "250/similar/last"
    )
    prompts = FAMILY.build_prompts([m, released_250], profile)
    ours = {p.setting: p.messages for p in prompts if p.sample_id == m.sample_id}
    theirs = {p.setting: p.messages for p in prompts if p.sample_id == released_250.sample_id}
    assert set(ours) == {"direct", "cot"}  # no next-word prompt for a minimal text
    assert all(ours[s] == theirs[s] for s in ours)
    assert ours["direct"][0]["content"] == (
        f"{KEYS[0]}\n{KEYS[1]}\nTrue/False Question: {QUESTION}\nAnswer only True or False.\n"
    )
    assert not _built(_run(tmp_path, file_rows, minimal=False, paddings=["similar"])[0])


def test_duplicate_padding_alternates_the_key_paragraphs_to_each_target(tmp_path):
    """§3.3.1 (Figure 3): "multiple copies of the key paragraph ... in alternating order until the desired
    sample length".  The release has none, so each length of the profile is built at the position Figure
    3 reads (``first``): the two paragraphs, unmodified, joined as the row joins them, cut at sentence ends
    only, within 5% of the target in the profile's tokenizer; our texts (``released-keys``), with a token
    target to check."""
    samples, profile = _run(tmp_path, rows())
    duplicate = [s for s in samples if s.variant["padding"] == "duplicate"]
    assert {(s.variant["length"], s.variant["position"]) for s in duplicate} == {
        (x, "first") for x in LENGTHS
    }
    assert len(duplicate) == 5 and {s.variant["source"] for s in duplicate} == {"released-keys"}
    for s in duplicate:
        text = s.input["paragraphs"][0]
        pieces = text.split("\n")
        for piece in pieces:  # every paragraph is a copy, or a run of a copy's sentences
            assert any(piece in k for k in KEYS), piece
        assert text.count(FACTS[0]) >= 1 and text.count(FACTS[1]) >= 1
        if not s.input["key_exceeds"]:
            assert abs(s.input["estimated_tokens"] - s.variant["length"]) <= TOLERANCE * s.variant["length"]
        if s.variant["position"] == "first":
            whole = [p for p in pieces if p in KEYS]
            assert whole == [KEYS[i % 2] for i in range(len(whole))]  # k1 k2 k1 k2 ...
    long_first = next(s for s in duplicate if s.variant["cell"] == "3000/duplicate/first")
    assert long_first.input["paragraphs"][0].count(KEYS[0]) > 10
    prompts = [p for p in FAMILY.build_prompts(duplicate, profile) if p.setting != NEXT_WORD]
    assert all(p.target_tokens is not None and p.target_tokens > 0 for p in prompts)


def test_duplicates_are_built_only_at_the_position_figure_3_reads(tmp_path):
    """The paper profile asks duplicate padding at all four positions; built from the released rows, only
    ``FIGURE_POSITIONS`` (``first``, the one ``flenqa_figure3`` pools) is asked: the other three would feed
    no figure.  A profile without that position gets no duplicate built, and its minimal text still."""
    figure3 = (Path(released_keys.__file__).parent / "dbt" / "marts" / "flenqa_figure3.sql").read_text()
    assert released_keys.FIGURE_POSITIONS == ("first",)
    assert "position = 'first'" in figure3  # the mart pools the position the builder builds
    samples, _ = _run(tmp_path, rows())
    built = [s for s in samples if s.variant["padding"] == "duplicate"]
    assert {s.variant["position"] for s in built} == {"first"}
    assert len(built) == len(LENGTHS)  # one problem: 1/4 of the 5 x 4 cells the profile asks
    elsewhere = _built(_run(tmp_path, rows(), positions=["middle", "last"])[0])
    assert [s.variant["padding"] for s in elsewhere] == ["none"]


def test_duplicates_are_built_only_where_the_file_has_none(tmp_path):
    """A file that holds duplicate (``identity``) rows for some cells: those are asked as released, and
    only the cells it lacks are built."""
    identity = [
        {**r, "padding_type": "identity", "global_sample_id": 9000 + n}
        for n, r in enumerate(rows())
        if r["padding_type"] == "same" and r["ctx_size"] == 500
    ]
    samples, _ = _run(tmp_path, [*rows(), *identity])
    duplicate = [s for s in samples if s.variant["padding"] == "duplicate"]
    released = {s.variant["cell"] for s in duplicate if s.variant["source"] == "released"}
    assert released == {f"500/duplicate/{d}" for d in DISPERSIONS}
    built = {s.variant["cell"] for s in duplicate if s.variant["source"] == "released-keys"}
    assert built == {f"{x}/duplicate/first" for x in LENGTHS if x != 500}


def test_every_released_prompt_keeps_its_request_hash(tmp_path):
    """The built samples are additional: the released rows' samples and prompts are the ones a run
    without anything to build asks (the release's own paddings, no minimal text)."""
    path = write_jsonl(tmp_path / "FLenQA_hf.jsonl", rows())
    plain = _profile(path, minimal=False, paddings=["similar", "different"])
    before = FAMILY.generate(plain, DEFAULT_SEED)
    assert not _built(before)
    full = _profile(path)
    after = FAMILY.generate(full, DEFAULT_SEED)
    kept = [s for s in after if s.generator_version == dataset.RELEASED_VERSION]
    assert [s.sample_id for s in kept] == [s.sample_id for s in before]
    ids_before = {p.prompt_id for p in FAMILY.build_prompts(before, plain)}
    ids_after = {p.prompt_id for p in FAMILY.build_prompts(after, full)}
    assert ids_before <= ids_after
    assert len(ids_after - ids_before) == len(FAMILY.build_prompts(_built(after), full))


def test_a_problem_whose_rows_disagree_gets_nothing_built_and_one_log_line(tmp_path, caplog):
    """Every ``last`` row of a problem must give the same two key paragraphs; one that does not leaves
    the problem without a minimal text or duplicates, said once (never a guess between them)."""
    other = (KEYS[0], "The pantry has a teal door. It was painted last week.")
    odd = [r for r in rows(sample_id=4, keys=other) if r["ctx_size"] == 1000]
    good = [r for r in rows(sample_id=4) if r["ctx_size"] != 1000]
    with caplog.at_level(logging.WARNING):
        samples, _ = _run(tmp_path, [*rows(), *good, *odd])
    built_for = {s.variant["base_id"] for s in _built(samples)}
    assert built_for == {"released-PIR-3"}
    lines = [r.getMessage() for r in caplog.records if "no minimal text or duplicate" in r.getMessage()]
    assert len(lines) == 1
    assert (
        "for 1 base problem(s) (first: released-PIR-4: its 10 rows with keys last give 2 different"
        in lines[0]
    )


@pytest.mark.skipif(
    not flenqa_release(),
    reason="the reference copy holds no FLenQA release (RELREASON_REFERENCE_DIR/flenqa/)",
)
def test_on_the_released_file_every_problem_gets_its_250_token_row_as_its_minimal_text():
    """What this module assumes of the study's rows, checked on them whenever the reference copy holds
    them: no duplicate row, every problem's ``last`` rows agree on its key paragraphs, and its minimal
    text is its 250-token row whole (Appendix B)."""
    for path in flenqa_release():
        samples, _ = dataset.released_samples(path, DEFAULT_SEED)
        assert not [s for s in samples if s.variant["padding"] == "duplicate"]
        built = released_keys.build(samples, {"minimal": True, "paddings": []}, DEFAULT_SEED, len, None)
        assert built.problems == [], built.problems[:5]
        last_250 = {
            s.variant["base_id"]: s.input["paragraphs"][0]
            for s in samples
            if (s.variant["length"], s.variant["position"]) == (250, "last")
        }
        assert {s.variant["base_id"]: s.input["paragraphs"][0] for s in built.samples} == last_250
