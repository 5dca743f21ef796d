"""``paper-s3``: the study's §3 (Table 5) sets, per study model (study_items.py, ``section3_items.txt``).

The acceptance checks read the study's released §3 files through ``RELREASON_REFERENCE_DIR`` (default
``../shared/reference``) under ``wino/selfcontra_annotations/`` (the release's names:
``winobias_{anti,pro}_test_<model>.csv``, ``winogrande_<model>.csv``; GPT-3.5's anti set is its section-2
``winobias_few_answer_gpt3.5.csv``) and WinoGrande 1.1 ``train_s.jsonl`` under ``wino/winogrande/``, and
skip, each saying which file is missing, where the folder lacks them: nothing of them ships here, only
line numbers and qIDs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.selfcontra import family, prompts, study_items
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs
from relreason_dagster.errors import ConfigError

WINO = paths.reference_dir() / "wino"
RELEASED = WINO / "selfcontra_annotations"
TRAIN_S = WINO / "winogrande" / study_items.S3_WINOGRANDE_FILE


def _profile(**knobs: object) -> Profile:
    params = {**profiles.resolve("paper-s3")["selfcontra"], **knobs}
    return Profile("paper-s3", params, knobs=Knobs)


def _released(name: str) -> Path:
    path = RELEASED / study_items.S3_SOURCES[name]
    if not path.is_file():
        pytest.skip(f"released §3 file not found: {path} (the study's data/annotated_data/*/section2)")
    if not (WINO / "winobias").is_dir():
        pytest.skip(f"WinoBias not found under {WINO}")
    return path


def _bare(prompt: str) -> str:
    """A prompt without any whitespace."""
    return "".join(prompt.split())


def test_paper_s3_asks_section3_sets_few_shot_answer_first() -> None:
    knobs = _profile().typed(Knobs)
    assert (knobs.items, knobs.s3_model, knobs.settings, knobs.prompts) == (
        "s3",
        "mistral",
        ["few_answer"],
        "study",
    )
    assert knobs.sources == {"winobias": 354, "winogrande": 358} and knobs.stereotypes == ["anti", "pro"]


def test_shipped_lists_hold_each_files_count_in_line_order() -> None:
    lists = study_items.section3_lists()
    assert {name: len(entries) for name, entries in lists.items()} == {
        "winobias_anti_mistral": 354,
        "winobias_pro_mistral": 354,
        "winobias_anti_gpt3.5": 354,
        "winobias_pro_gpt3.5": 354,
        "winogrande": 358,
    }
    for name, entries in lists.items():
        if name.startswith("winobias"):
            lines = [x.line for x in entries]
            assert lines == sorted(set(lines)), name  # the released files ask in line order, once each


@pytest.mark.parametrize("model", study_items.S3_MODELS)
@pytest.mark.parametrize("stereotype", ["anti", "pro"])
def test_winobias_prompts_equal_the_released_section3_files(model: str, stereotype: str) -> None:
    """Acceptance 3: position by position, our §3 prompt is the released file's, whitespace aside (97 of
    GPT-3.5's pro prompts have no blank between "who is 'he'?" and "Give": a wording difference, not an item
    one)."""
    path = _released(f"winobias_{stereotype}_{model}")
    _, _, theirs = study_items.file_prompts(path)
    profile = _profile(s3_model=model, stereotypes=[stereotype])
    items = family.load_items("winobias", 354, profile, seed=0)
    ours = [prompts.study_question_text(item, "answer", "few") for item in items]
    equal = sum(_bare(a) == _bare(b) for a, b in zip(theirs, ours, strict=False))
    assert (len(theirs), len(ours)) == (354, 354)
    assert equal >= 350, f"{equal}/354 equal"


def test_the_lists_re_derive_from_the_released_files() -> None:
    if not any((RELEASED / name).is_file() for name in study_items.S3_SOURCES.values()):
        pytest.skip(f"no released §3 file under {RELEASED}")
    derived = study_items.derive_section3(RELEASED, WINO, TRAIN_S)
    shipped = study_items.section3_lists()
    assert derived and all(tuple(entries) == shipped[name] for name, entries in derived.items())


def test_winogrande_items_are_the_released_files_sentences_in_order() -> None:
    path = RELEASED / study_items.S3_SOURCES["winogrande"]
    if not (path.is_file() and TRAIN_S.is_file()):
        pytest.skip(f"needs {path} and {TRAIN_S} (WinoGrande 1.1)")
    items = family.load_items("winogrande", 358, _profile(), seed=0)
    _, _, theirs = study_items.file_prompts(path)
    assert [item.sentence.replace("_", "[MASK]") for item in items] == [
        p.split(" Does [MASK]", 1)[0].strip() for p in theirs
    ]


def test_winogrande_reads_the_given_file_and_says_where_to_get_it_when_absent(tmp_path: Path) -> None:
    qids = [x for x in study_items.section3_lists()["winogrande"] if isinstance(x, str)]
    missing = tmp_path / "nowhere" / "train_s.jsonl"
    with pytest.raises(ConfigError, match="train_s.jsonl.*208 of the 358 beyond train_xs") as raised:
        family.load_items("winogrande", 358, _profile(s3_winogrande=str(missing)), seed=0)
    assert "\n" not in str(raised.value) and str(missing) in str(raised.value)
    # A stand-in file holding the qIDs in another order, plus one more: read in the study's order.
    lines = [
        {
            "qID": qid,
            "sentence": f"A{i} met B{i} because _ was late.",
            "option1": f"A{i}",
            "option2": f"B{i}",
            "answer": "1",
        }
        for i, qid in enumerate([*reversed(qids), "extra-1"])
    ]
    given = tmp_path / "train_m.jsonl"
    given.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    items = family.load_items("winogrande", 358, _profile(s3_winogrande=str(given)), seed=0)
    assert [item.item_id for item in items] == qids
    short = tmp_path / "train_xs.jsonl"
    short.write_text("\n".join(json.dumps(x) for x in lines[-151:]) + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="lacks 208 of §3's WinoGrande items"):
        family.load_items("winogrande", 358, _profile(s3_winogrande=str(short)), seed=0)


def test_an_unknown_s3_model_is_one_line() -> None:
    with pytest.raises(ConfigError, match="s3_model 'claude' invalid"):
        study_items.section3_winobias([], "claude", None)
