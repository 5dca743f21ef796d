"""The ``long`` FLenQA profile (issue 56 item 1): lengths to 128k tokens in every padding.

Every padding type reaches every length: at 128k tokens a sample of each, built as the pipeline builds
it, passes the same Great Expectations checks the Dagster asset checks run (each prompt's exact token
count, through the chat template, within 5% of its target; the token sanity range; no similar padding
paragraph naming the instance's entities).  The built-in novels hold >= 200k tokens after the
family's filters; the smoke and paper profiles still read the Python docs, so their prompts are the
ones already stored.  The 128k and corpus-size tests are ``slow`` (run them with ``-m slow``).
"""

from __future__ import annotations

import random

import pandas as pd
import pytest

from data_quality import suites
from relreason_dagster import profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.flenqa.checks import padding_entities
from relreason_dagster.benchmarks.flenqa.family import FlenqaFamily
from relreason_dagster.benchmarks.flenqa.generate import sample_text, token_counter
from relreason_dagster.benchmarks.flenqa.padding import PADDINGS
from relreason_dagster.benchmarks.flenqa.profile_schema import Knobs
from relreason_dagster.benchmarks.flenqa.prompts import _LAST_WORD, split_last_word
from relreason_dagster.benchmarks.flenqa.prose import NOVELS, load_prose, prose_source
from relreason_dagster.common.tokenizer import DEFAULT_TOKENIZER, count_tokens
from relreason_dagster.errors import ConfigError
from tests.profile_files import use_profiles

LONG = [250, 500, 1000, 2000, 3000, 8000, 16000, 32000, 64000, 128000]


def test_long_profile_is_the_studys_grid_to_128k_on_the_novels():
    knobs = profiles.get_profile("long", "flenqa").typed(Knobs)
    assert knobs.lengths == LONG
    assert knobs.paddings == list(PADDINGS)
    assert knobs.positions == ["first", "middle", "last", "random"]
    assert knobs.n_base == 20 and knobs.prose == NOVELS and knobs.prose_dir is None


@pytest.mark.parametrize("name", ["smoke", "paper"])
def test_smoke_and_paper_keep_the_python_docs(name):
    """Their sample ids hash ``prose_source``: a new default would re-ask every stored answer."""
    section = profiles.get_profile(name, "flenqa")
    assert "prose" not in section.params  # not set, so not in any cache key either
    assert prose_source(section.typed(Knobs).prose_dir, section.typed(Knobs).prose) == "python-docs"


def test_a_folder_overrides_the_builtin_prose_and_an_unknown_builtin_is_one_line(tmp_path):
    assert prose_source(str(tmp_path), NOVELS) == str(tmp_path)
    with pytest.raises(ConfigError, match="known: python-docs, novels") as err:
        prose_source(None, "books")
    assert "\n" not in str(err.value)


def test_an_unknown_prose_in_a_profile_file_is_one_line_naming_the_choices(tmp_path, monkeypatch):
    use_profiles(monkeypatch, tmp_path / "my.yaml", {"long": {"flenqa": {"prose": "books"}}})
    with pytest.raises(ConfigError) as err:
        profiles.get_profile("long", "flenqa")
    assert str(err.value).endswith("long.flenqa.prose: expected one of python-docs, novels, got 'books'")
    assert "\n" not in str(err.value)


@pytest.mark.slow  # ~5 s idle, 13 s on a loaded 2-core box: 2.3 MB through the tokenizer
def test_the_novels_hold_over_200k_tokens_after_the_filters():
    documents = load_prose(NOVELS)
    text = "\n".join(" ".join(p) for d in documents for p in d)
    count = token_counter(DEFAULT_TOKENIZER)
    # Counted in pieces (the tokenizer is linear; the pieces are whole paragraphs).
    pieces = text.split("\n")
    total = sum(count("\n".join(pieces[i : i + 200])) for i in range(0, len(pieces), 200))
    assert total >= 200_000
    assert not any(w in text.lower().split() for w in ("true", "false"))


def test_split_last_word_scans_the_tail_as_the_whole_text():
    def whole(text: str) -> tuple[str, str]:
        last = None
        for last in _LAST_WORD.finditer(text):  # noqa: B007
            pass
        return (text, "") if last is None else (text[: last.start()].rstrip(), last.group(0))

    rng = random.Random(56)
    for _ in range(400):
        text = "".join(rng.choice("ab -'’.\n") for _ in range(rng.randint(0, 1500)))
        assert split_last_word(text) == whole(text)


@pytest.fixture(scope="module")
def at_128k():
    family = FlenqaFamily()
    long = profiles.get_profile("long", "flenqa")
    profile = Profile(
        "long-128k",
        {
            **long.params,
            "tasks": ["PIR"],
            "n_base": 2,
            "lengths": [128_000],
            "positions": ["random"],
            "minimal": False,
            "settings": ["direct"],
        },
        knobs=Knobs,
    )
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    prompts = family.build_prompts(samples, profile)
    rows = []
    for p in prompts:
        row = p.row()
        row["input_tokens"] = count_tokens(p.messages)  # exact, through the chat template
        row["tokenizer"] = DEFAULT_TOKENIZER
        rows.append(row)
    return samples, pd.DataFrame(rows)


@pytest.mark.slow  # the 128k fixture: ~20 s idle, ~40 s on a loaded 2-core box
def test_every_padding_reaches_128k_within_5_percent(at_128k):
    samples, prompts = at_128k
    assert sorted({s.variant["padding"] for s in samples}) == sorted(PADDINGS)
    assert len(prompts) == len(samples) == 2 * len(PADDINGS)
    assert not any(s.input["key_exceeds"] for s in samples)
    targets = suites.token_targets(prompts)
    assert targets.success, targets.failures
    assert targets.checked == len(prompts)
    ranges = suites.token_lengths(prompts)
    assert ranges.success, ranges.failures
    assert prompts["input_tokens"].min() > 0.95 * 128_000


@pytest.mark.slow  # the 128k fixture: ~20 s idle, ~40 s on a loaded 2-core box
def test_similar_padding_at_128k_cycles_through_the_pool_without_naming_own_entities(at_128k):
    samples, _ = at_128k
    similar = [s for s in samples if s.variant["padding"] == "similar"]
    for s in similar:
        keys = set(s.input["key_index"])
        padding = [p for i, p in enumerate(s.input["paragraphs"]) if i not in keys]
        # The pool (other instances' key paragraphs, ~25k tokens) is reused: paragraphs repeat.
        assert len(padding) > len(set(padding))
    frame = pd.DataFrame(
        {
            "sample_id": [s.sample_id for s in similar],
            "task": [s.task for s in similar],
            "padding": ["similar"] * len(similar),
            "input": [s.input for s in similar],
        }
    )
    result = padding_entities(frame)
    assert result.success, result.failures


@pytest.mark.slow  # the 128k fixture: ~20 s idle, ~40 s on a loaded 2-core box
def test_different_padding_at_128k_is_novel_prose(at_128k):
    samples, _ = at_128k
    different = [s for s in samples if s.variant["padding"] == "different"]
    assert {s.variant["prose_source"] for s in different} == {NOVELS}
    for s in different:
        keys = set(s.input["key_index"])
        padding = [p for i, p in enumerate(s.input["paragraphs"]) if i not in keys]
        assert len(padding) == len(set(padding))  # the novels are long enough: no paragraph twice
        assert len(sample_text(s)) > 400_000
