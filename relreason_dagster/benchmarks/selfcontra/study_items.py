"""Which items the study asked, in its order: derived from the prompts of its released annotation files.

Why: a number beside the study's is like with like only on the study's items.  The study's §2 took "50
instances" per dataset without listing them; its released annotation files record every prompt it sent, so
the items can be read back from them:

* WinoBias: every prompt of the twelve released section-2 files is a line of
  ``anti_stereotyped_type1.txt.test``, asked in line order, but the files skip lines (6, 9, 10, 33, ...)
  and do not all skip the same ones (GPT-3.5's files ask line 51, Mistral's Few-shot (A) file line 49,
  neither of which the other files ask).  The study's list is taken as the lines that most of the files
  whose asked range covers the line ask (:func:`derive_winobias_lines`); it ships as
  ``winobias_study_lines.txt`` beside this module (line numbers only, nothing of the annotations), and
  ``python -m relreason_dagster.benchmarks.selfcontra.study_items`` re-derives it from the reference
  folder (``--write`` rewrites the file).  The pro-stereotype test file is line-parallel to the anti one
  (line N is the same sentence with the other pronoun), so the same lines select the pro items.  Nine
  lines the study asked about their second pronoun ("prove [her] strength"); the list says so and the
  items ask that word.
* WinoGrande: the first lines of ``train_xs.jsonl`` (the released files' prompts, not dev's).
* WinoGender: the templates in file order, as before.

:func:`check_released_file` is the check for any released annotation file (the WinoGrande and WinoGender
files included, which the reference folder does not hold): each of its prompts against our prompts of the
dataset it names (:func:`match_prompts`), by position, so a test can say "every prompt is one of ours, in
the study's order".
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.selfcontra.items import WinoItem
from relreason_dagster.errors import ConfigError

LINES_FILE = Path(__file__).with_name("winobias_study_lines.txt")
# The study's §2 WinoGrande items are train_xs's first lines; our default (items: first) reads dev.
STUDY_WINOGRANDE_FILE = "train_xs"
SELECTIONS = ("first", "study")
_INSTRUCTION_RE = re.compile(r"\s*Give your (?:answer|reasoning) first\b.*$", re.DOTALL)
_WINOBIAS_ASK_RE = re.compile(r"^Question:(?P<sentence>.*?)(?:who is|who does) '(?P<pronoun>\w+)'", re.DOTALL)


@dataclass(frozen=True)
class StudyLine:
    """One WinoBias item of the study: its test-file line and, when the study asked about another word
    than the line's first bracketed pronoun (its second, "[her] strength", or a word the sentence does not
    hold: the released prompts ask it so), the word it asked about."""

    line: int
    asked: str | None = None


def study_winobias_lines(path: Path = LINES_FILE) -> tuple[StudyLine, ...]:
    """The study's WinoBias items, in its order (the shipped derived list)."""
    if not path.is_file():
        raise ConfigError(
            f"study item list not found: {path}; re-derive it with `python -m {__name__} --write`"
        )
    out = []
    for row in path.read_text(encoding="utf-8").splitlines():
        fields = row.split("#", 1)[0].split()
        if fields:
            out.append(StudyLine(int(fields[0]), fields[1] if len(fields) > 1 else None))
    return tuple(out)


def normalized(prompt: str) -> str:
    """A prompt with its whitespace collapsed (the released CSVs differ from ours in trailing blanks)."""
    return " ".join(prompt.split())


def question_key(prompt: str) -> str:
    """The prompt up to its format instruction: the item as asked, without the instruction's wording
    (one released file has a typo there, "then answer: Follow")."""
    return _INSTRUCTION_RE.sub("", normalized(prompt))


@dataclass(frozen=True)
class PromptMatch:
    """Where each prompt of one annotation file is among ours: ``positions[i]`` is the index in our
    prompts of the file's i-th prompt (None: not one of ours); ``exact`` counts byte-equal ones (up to
    whitespace), the rest matched on the question before the format instruction."""

    positions: tuple[int | None, ...]
    exact: int

    @property
    def unmatched(self) -> list[int]:
        """Rows of the file (0-based) that are none of our prompts."""
        return [i for i, p in enumerate(self.positions) if p is None]

    @property
    def in_order(self) -> bool:
        """The matched prompts come in our order (strictly increasing positions)."""
        found = [p for p in self.positions if p is not None]
        return all(a < b for a, b in zip(found, found[1:], strict=False))


def _ends_with_other(ours: str, theirs: str) -> bool:
    """Whether one prompt ends with the other (demonstrations recorded before the question, or not)."""
    return bool(ours and theirs) and (theirs.endswith(ours) or ours.endswith(theirs))


def match_prompts(theirs: Sequence[str], ours: Sequence[str]) -> PromptMatch:
    """Each released prompt's position among ``ours`` (see :class:`PromptMatch`); a prompt that ends with
    one of ours (a file that recorded its demonstrations too) matches it, and so does one that one of ours
    ends with (a few-shot file that recorded the question without its demonstrations, checked against
    our whole few-shot prompts)."""
    exact = {normalized(p): i for i, p in reversed(list(enumerate(ours)))}
    keyed = {question_key(p): i for i, p in reversed(list(enumerate(ours)))}
    positions: list[int | None] = []
    n_exact = 0
    for prompt in theirs:
        text = normalized(prompt)
        position = exact.get(text)
        if position is None:  # their prompt holds demonstrations before ours, or ours before theirs
            position = next((i for key, i in exact.items() if _ends_with_other(key, text)), None)
        if position is not None:
            n_exact += 1
        else:
            position = keyed.get(question_key(prompt))
        positions.append(position)
    return PromptMatch(tuple(positions), n_exact)


def check_released_file(
    path: Path, items: Sequence[WinoItem], demonstrations: Any = None
) -> PromptMatch:
    """Any released annotation file against our items of the dataset it names (the class of input: the
    WinoBias files here, and the study's WinoGrande and WinoGender files of every model, which the
    reference folder does not hold): each of its prompts among our prompts in the study's wording of the
    file's setting for the file's model (``wording: study``: Mistral and Claude worded as the study asked
    them), by position.  With ``demonstrations`` (``prompts.StudyDemonstrations``) ours are the whole
    prompts we send, few-shot ones with the study's demonstrations, and a file that recorded only the
    question is placed by it.  A section-3 file that names a WinoBias split is checked against that
    split's items only."""
    from relreason_dagster.benchmarks.selfcontra import prompts
    from relreason_dagster.benchmarks.selfcontra.annotations import parse_file_name

    dataset, setting, theirs = file_prompts(path)
    labels = parse_file_name(path)
    split = labels.split
    model = prompts.release_model_key(labels.model or "")
    mine = [item for item in items if item.dataset == dataset]
    if dataset == "winobias" and split:
        stereotype, source_split = split.split("_", 1)
        mine = [
            item
            for item in mine
            if (item.variant.get("stereotype"), item.variant.get("source_split"))
            == (stereotype, source_split)
        ]
    order, shots = prompts.setting_order(setting), prompts.setting_shots(setting)
    if demonstrations is None or shots == "zero":
        ours = [prompts.study_question_text(item, order, shots, model) for item in mine]
    else:
        ours = [
            prompts.render(item, setting, demonstrations.prefix(item, order), wording="study", model=model)
            for item in mine
        ]
    return match_prompts(theirs, ours)


def winobias_asked(prompt: str, items: Iterable[WinoItem]) -> tuple[int, str] | None:
    """``(line, pronoun asked)`` of a released WinoBias prompt: the test-file line whose sentence it asks
    about (sentences are unique within a file) and the word in its "who is '...'"."""
    found = _WINOBIAS_ASK_RE.match(prompt.strip())
    if found is None:
        return None
    body = found.group("sentence").strip()
    for item in items:
        if body == item.sentence.strip():
            return int(item.item_id.split(":", 1)[1]), found.group("pronoun").lower()
    return None


def derive_winobias_lines(
    asked: dict[str, Sequence[tuple[int, str] | None]], first_pronoun: dict[int, str]
) -> list[StudyLine]:
    """The study's WinoBias items from what each released file asked (file name -> ``(line, pronoun)``
    per prompt, None for a prompt of no line): a line is in when more than half of the files whose asked
    range covers it ask it.  Line order is the study's order (every file asks in line order).  The word
    asked is the one most files ask, kept when it is not the line's first bracketed pronoun
    (``first_pronoun``)."""
    lines = {name: [x[0] for x in got if x is not None] for name, got in asked.items()}
    lines = {name: found for name, found in lines.items() if found}
    words: dict[int, Counter[str]] = {}
    for got in asked.values():
        for x in got:
            if x is not None:
                words.setdefault(x[0], Counter())[x[1]] += 1
    if not lines:
        return []
    top = max(max(found) for found in lines.values())
    out = []
    for line in range(1, top + 1):
        cover = [set(found) for found in lines.values() if min(found) <= line <= max(found)]
        if 2 * sum(line in found for found in cover) > len(cover):
            word = words[line].most_common(1)[0][0]
            out.append(StudyLine(line, None if word == first_pronoun.get(line) else word))
    return out


def file_prompts(path: Path) -> tuple[str, str, list[str]]:
    """``(dataset, setting, prompts)`` of one released annotation file: every prompt it recorded, in file
    order, annotated or not (what was asked, not what was labelled), its question column found by the
    annotation reader."""
    from relreason_dagster.benchmarks.selfcontra.annotations import header_kind, read_annotation_csv

    result = read_annotation_csv(path)
    column = result.columns["question"]
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as handle:
        records = [record for record in csv.reader(handle) if record]
    body = records if header_kind(records[0], records[1:]) is None else records[1:]
    cells = [record[column].strip() for record in body if column < len(record)]
    return result.dataset, result.setting, [cell for cell in cells if cell]


def asked_lines(files: Iterable[Path], items: Sequence[WinoItem]) -> dict[str, list[tuple[int, str] | None]]:
    """Per released WinoBias annotation file, ``(line, pronoun asked)`` of each prompt, in file order."""
    out: dict[str, list[tuple[int, str] | None]] = {}
    for path in files:
        dataset, _, prompts = file_prompts(path)
        if dataset == "winobias":
            out[path.name] = [winobias_asked(prompt, items) for prompt in prompts]
    return out


def derive_from_reference(wino: Path) -> tuple[list[StudyLine], list[str]]:
    """The study's WinoBias list from the reference folder's released files, and the files it read."""
    from relreason_dagster.benchmarks.selfcontra.loaders import load_winobias

    files = sorted((wino / "selfcontra_annotations").glob("winobias_*.csv"))
    items = load_winobias(wino / "winobias", stereotypes=("anti",), splits=("test",))
    asked = asked_lines(files, items)
    first = {int(item.item_id.split(":", 1)[1]): str(item.pronoun) for item in items}
    return derive_winobias_lines(asked, first), sorted(asked)


def render_lines_file(lines: Sequence[StudyLine], sources: Sequence[str]) -> str:
    """The shipped list: a comment saying how it was derived, then one line number per line."""
    head = [
        "# The study's WinoBias items: line numbers of anti_stereotyped_type1.txt.test (and, line-",
        "# parallel, pro_stereotyped_type1.txt.test), in the study's order.  Derived by study_items.py from",
        "# the prompts of the study's released section-2 annotation files: a line is listed when more",
        "# than half of the files whose asked range covers it ask it.  A second field is the word the",
        "# study asked about when it is not the line's first bracketed pronoun.  Re-derive (reference",
        "# folder needed):",
        "#   python -m relreason_dagster.benchmarks.selfcontra.study_items --write",
        f"# {len(lines)} lines from {len(sources)} files: {', '.join(sources)}",
    ]
    body = [f"{x.line} {x.asked}" if x.asked else str(x.line) for x in lines]
    return "\n".join([*head, *body]) + "\n"


def main(argv: list[str] | None = None) -> int:
    """Re-derive the WinoBias list from the reference folder; print the difference, or ``--write`` it."""
    from relreason_dagster import paths

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {LINES_FILE.name}")
    args = parser.parse_args(argv)
    wino = paths.reference_dir() / "wino"
    if not (wino / "selfcontra_annotations").is_dir():
        print(f"no released annotation files under {wino}; set RELREASON_REFERENCE_DIR", file=sys.stderr)
        return 2
    derived, asked = derive_from_reference(wino)
    text = render_lines_file(derived, asked)
    if args.write:
        LINES_FILE.write_text(text, encoding="utf-8")
        print(f"wrote {len(derived)} lines to {LINES_FILE}")
        return 0
    shipped = study_winobias_lines() if LINES_FILE.is_file() else ()
    same = tuple(derived) == shipped
    verdict = "matches" if same else "differs"
    print(f"derived {len(derived)} lines from {len(asked)} files; shipped list {verdict}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
