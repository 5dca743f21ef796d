"""The ``paper`` profile asks the study's own §2 items (issue 45, acceptance 1).

WinoGrande: lines 1-50 of ``train_xs.jsonl`` (the study's released prompts ask those, none of dev's).
WinoBias: every prompt is one of the released WinoBias annotation files' prompts, in the study's order,
and the shipped item list (``winobias_study_lines.txt``) re-derives from those files.  The check itself
(``study_items.check_released_file``) is for any released file: a WinoGrande file in the release's
shape whose prompts are train_xs's first 50 passes, one of dev's items or out of order fails.

Reads the reference data (``RELREASON_REFERENCE_DIR``); skips without it.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import Profile
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.benchmarks.selfcontra import prompts, study_items
from relreason_dagster.benchmarks.selfcontra.annotations import parse_file_name
from relreason_dagster.benchmarks.selfcontra.family import item_of, load_items
from relreason_dagster.benchmarks.selfcontra.items import WinoItem
from relreason_dagster.benchmarks.selfcontra.loaders import load_winogrande
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs
from relreason_dagster.errors import ConfigError


@pytest.fixture(scope="module")
def wino() -> Path:
    path = paths.reference_dir() / "wino"
    if not (path / "selfcontra_annotations").is_dir():
        pytest.skip(f"reference data not found at {path} (set RELREASON_REFERENCE_DIR)")
    return path


def _paper(**params: object) -> Profile:
    base = dict(profiles.get_profile("paper", "selfcontra").params)
    base.update(params)
    return Profile(name="test", params=base, knobs=Knobs)


@pytest.fixture(scope="module")
def paper_items(wino: Path) -> list[WinoItem]:
    samples = get_family("selfcontra").generate(_paper(), profiles.DEFAULT_SEED)
    return [item_of(s) for s in samples]


def test_paper_winogrande_items_are_train_xs_lines_1_to_50(wino: Path, paper_items: list[WinoItem]) -> None:
    lines = (wino / "winogrande" / "train_xs.jsonl").read_text(encoding="utf-8").splitlines()[:50]
    expected = [
        (r["sentence"].strip(), r["option1"].strip(), r["option2"].strip()) for r in map(json.loads, lines)
    ]
    ours = [(i.sentence, *i.candidates) for i in paper_items if i.dataset == "winogrande"]
    assert ours == expected
    dev = {
        json.loads(x)["sentence"].strip() for x in (wino / "winogrande" / "dev.jsonl").open(encoding="utf-8")
    }
    assert not dev & {sentence for sentence, *_ in ours}


def test_paper_winobias_prompts_are_the_released_files_prompts_in_the_study_order(
    wino: Path, paper_items: list[WinoItem]
) -> None:
    anti = [i for i in paper_items if i.dataset == "winobias" and i.variant["stereotype"] == "anti"]
    pro = [i for i in paper_items if i.dataset == "winobias" and i.variant["stereotype"] == "pro"]
    assert len(anti) == len(pro) == 50
    files = sorted((wino / "selfcontra_annotations").glob("winobias_*.csv"))
    covered: dict[str, set[int]] = {}
    for path in files:
        match = study_items.check_released_file(path, anti)
        assert match.in_order, path.name  # every file asks our items in our order
        _, setting, _ = study_items.file_prompts(path)
        covered.setdefault(setting, set()).update(p for p in match.positions if p is not None)
    # Every one of our 50 anti prompts, in each of the four settings, is a prompt of a released file.
    assert covered == {setting: set(range(50)) for setting in prompts.SETTINGS}
    # The pro items are the same lines of the line-parallel pro file, asked about the other gender's word.
    line = [i.item_id.split(":")[1] for i in anti]
    assert [i.item_id.split(":")[1] for i in pro] == line
    asked = {i.item_id: i.pronoun for i in pro if "asked" in i.variant}
    assert asked and set(asked.values()) <= {"his"}


def test_every_released_section_2_file_present_asks_our_items_in_our_order(
    wino: Path, paper_items: list[WinoItem]
) -> None:
    """Whatever released section-2 files the reference folder holds (today WinoBias's; the study's
    WinoGrande and WinoGender files when a copy adds them): each asks our items in our order, and a
    WinoGrande or WinoGender file (50 prompts, like ours) asks nothing else."""
    checked = 0
    for path in sorted((wino / "selfcontra_annotations").glob("*.csv")):
        if parse_file_name(path).split is not None:
            continue  # section 3: larger samples (WinoGrande train_m), not the §2 items
        match = study_items.check_released_file(path, paper_items)
        assert match.in_order, path.name
        if not path.name.startswith("winobias"):
            assert match.unmatched == [], path.name
        checked += 1
    assert checked >= 12


def test_the_shipped_item_list_re_derives_from_the_released_files(wino: Path) -> None:
    derived, sources = study_items.derive_from_reference(wino)
    assert tuple(derived) == study_items.study_winobias_lines()
    assert len(sources) == 12 and len(derived) > 300
    first = [x.line for x in derived[:50]]
    assert first[:5] == [1, 2, 3, 4, 5] and 6 not in first and first == sorted(first)


def _released_shape(path: Path, items: list[WinoItem], setting: str) -> Path:
    """A file in the release's shape (prompt, result, acc, self-contra), prompts in the study's wording."""
    order, shots = prompts.setting_order(setting), prompts.setting_shots(setting)
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["prompt", "result", "acc", "self-contra"])
        for item in items:
            writer.writerow(
                [
                    study_items.normalized(prompts.study_question_text(item, order, shots)) + "\n ",
                    "Answer: x\nReasoning: y",
                    "1",
                    "0",
                ]
            )
    return path


def test_the_check_holds_for_any_released_winogrande_file(
    wino: Path, paper_items: list[WinoItem], tmp_path: Path
) -> None:
    train = list(load_winogrande(wino / "winogrande", name="train_xs"))[:50]
    dev = list(load_winogrande(wino / "winogrande", name="dev"))[:3]
    good = _released_shape(tmp_path / "winogrande_few_reason_gpt3.5.csv", train, "few_reason")
    match = study_items.check_released_file(good, paper_items)
    assert match.positions == tuple(range(50)) and match.exact == 50 and match.in_order
    bad = _released_shape(tmp_path / "winogrande_zero_answer_mistral.csv", dev + train[:2], "zero_answer")
    match = study_items.check_released_file(bad, paper_items)
    assert match.unmatched == [0, 1, 2] and match.positions[3:] == (0, 1)
    shuffled = _released_shape(tmp_path / "winogrande_zero_reason_claude.csv", train[5:0:-1], "zero_reason")
    assert not study_items.check_released_file(shuffled, paper_items).in_order


def test_study_items_read_test_files_only(wino: Path) -> None:
    with pytest.raises(ConfigError, match="items: first"):
        load_items("winobias", 5, _paper(splits=["dev"]), profiles.DEFAULT_SEED)
    first = load_items("winogrande", 2, _paper(items="first"), profiles.DEFAULT_SEED)
    assert first[0].variant["source_split"] == "dev"
