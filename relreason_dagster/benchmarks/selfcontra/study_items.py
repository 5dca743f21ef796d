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

§3 (Table 5, ``items: s3``) asked other sets, again recorded in its released section-3 files (which the
reference folder does not hold; the study's repository has them under ``data/annotated_data/*/section2``):
per study model, 354 WinoBias anti and 354 pro test lines (GPT-3.5's anti set is its section-2 Few-shot
(A) file, which §3 reused: Appendix B.1), and 358 WinoGrande items, lines of WinoGrande 1.1
``train_s.jsonl`` (150 of them in ``train_xs``, 208 beyond it).  The paper says "353 and 357 data points";
the files record 354 and 358 prompts.  The two models' pro files differ on 30 lines (GPT-3.5's prompts
ask 'her' on 27 lines whose pronoun is he or she, and skip other lines), so the lists are per model
(knob ``s3_model``).  They ship as ``section3_items.txt`` (line numbers and WinoGrande qIDs only);
``python -m relreason_dagster.benchmarks.selfcontra.study_items --section3`` re-derives it from the released
files under the reference folder.

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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.selfcontra.items import WinoItem
from relreason_dagster.common import atomic_files
from relreason_dagster.errors import ConfigError

LINES_FILE = Path(__file__).with_name("winobias_study_lines.txt")
# The study's §2 WinoGrande items are train_xs's first lines; our default (items: first) reads dev.
STUDY_WINOGRANDE_FILE = "train_xs"
SELECTIONS = ("first", "study", "s3")
S3_FILE = Path(__file__).with_name("section3_items.txt")
# §3's study models, and for each list the released file its items are read from (file names as released).
S3_MODELS = ("mistral", "gpt3.5")
S3_SOURCES: dict[str, str] = {
    "winobias_anti_mistral": "winobias_anti_test_mistral.csv",
    "winobias_pro_mistral": "winobias_pro_test_mistral.csv",
    # GPT-3.5's section-3 anti file records 386 prompts, some twice; Table 5's 129 over 353 is the count of
    # its section-2 Few-shot (A) file (354 prompts), which §3 reused (Appendix B.1).
    "winobias_anti_gpt3.5": "winobias_few_answer_gpt3.5.csv",
    "winobias_pro_gpt3.5": "winobias_pro_test_gpt3.5.csv",
    # Both models' WinoGrande files ask the same 358 items in the same order.
    "winogrande": "winogrande_mistral.csv",
}
# The WinoGrande file that holds every §3 item (lines 1-401 of it; train_xs is its first 160 lines).
S3_WINOGRANDE_FILE = "train_s.jsonl"
# The words our wording already asks "who does '<word>' refer to?" (prompts.py).
_REFER_WORDS = ("his", "their", "its")
_INSTRUCTION_RE = re.compile(r"\s*Give your (?:answer|reasoning) first\b.*$", re.DOTALL)
_WINOBIAS_ASK_RE = re.compile(r"^Question:(?P<sentence>.*?)(?:who is|who does) '(?P<pronoun>\w+)'", re.DOTALL)


@dataclass(frozen=True)
class StudyLine:
    """One WinoBias item of the study: its test-file line and, when the study asked about another word
    than the line's first bracketed pronoun (its second, "[her] strength", or a word the sentence does not
    hold: the released prompts ask it so), the word it asked about."""

    line: int
    asked: str | None = None
    # §3 only: the study asked "who does '<word>' refer to?" where our wording asks "who is '<word>'?"
    # (GPT-3.5's pro file, on nine possessive "her" lines).
    refer: bool = False


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


def check_released_file(path: Path, items: Sequence[WinoItem], demonstrations: Any = None) -> PromptMatch:
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


# -- §3 (Table 5): the study's section-3 sets, per study model ----------------------------------------


def section3_lists(path: Path = S3_FILE) -> dict[str, tuple[StudyLine | str, ...]]:
    """The shipped §3 lists by name (:data:`S3_SOURCES`): WinoBias lists as :class:`StudyLine` in the study's
    order, the WinoGrande list as qIDs (a qID names the item in whichever WinoGrande train file holds it)."""
    if not path.is_file():
        raise ConfigError(
            f"§3 item list not found: {path}; re-derive it with `python -m {__name__} --section3 --write`"
        )
    out: dict[str, list[StudyLine | str]] = {}
    for row in path.read_text(encoding="utf-8").splitlines():
        fields = row.split("#", 1)[0].split()
        if not fields:
            continue
        name, key, *asked = fields
        refer = asked[1:] == ["refer"]
        entry: StudyLine | str = (
            key if name == "winogrande" else StudyLine(int(key), asked[0] if asked else None, refer)
        )
        out.setdefault(name, []).append(entry)
    return {name: tuple(entries) for name, entries in out.items()}


def winobias_by_file(items: Iterable[WinoItem]) -> dict[tuple[str, str], dict[int, WinoItem]]:
    """Loaded WinoBias items by released file, (stereotype, split), then by line number: the study's
    selections (§2 and §3) name lines of files."""
    by_file: dict[tuple[str, str], dict[int, WinoItem]] = {}
    for item in items:
        key = (str(item.variant.get("stereotype")), str(item.variant.get("source_split")))
        by_file.setdefault(key, {})[int(item.item_id.split(":", 1)[1])] = item
    return by_file


def section3_winobias(items: Sequence[WinoItem], model: str, n: int | None) -> list[WinoItem]:
    """§3's WinoBias items of ``model``'s released files (``items`` as loaded: anti and/or pro test), in the
    study's order, each asking the word the study asked; the first ``n`` per file."""
    if model not in S3_MODELS:
        raise ConfigError(f"selfcontra s3_model {model!r} invalid; choose from {', '.join(S3_MODELS)}")
    lists = section3_lists()
    out: list[WinoItem] = []
    for (stereotype, split), found in winobias_by_file(items).items():
        if split != "test":
            raise ConfigError(
                f"selfcontra items: s3 lists the WinoBias test files' lines only, not {split}; "
                "set splits: [test]"
            )
        entries = [x for x in lists[f"winobias_{stereotype}_{model}"] if isinstance(x, StudyLine)]
        for x in entries[: n if n is not None else None]:
            item = found[x.line]
            if x.asked:
                item = replace(item, pronoun=x.asked, variant={**item.variant, "asked": x.asked})
            if x.refer:
                item = replace(item, variant={**item.variant, "ask": "refer"})
            out.append(item)
    return out


def section3_winogrande(path: Path, n: int | None) -> list[WinoItem]:
    """§3's WinoGrande items, in the study's order, from the WinoGrande file at ``path`` (``train_s.jsonl``
    of WinoGrande 1.1 or any larger train file: each holds them all); one line naming the file when it is
    absent or lacks some, since 208 of the 358 are beyond ``train_xs`` (the reference folder's file)."""
    from relreason_dagster.benchmarks.selfcontra.loaders import load_winogrande

    wanted = [x for x in section3_lists()["winogrande"] if isinstance(x, str)][: n if n is not None else None]
    where = (
        f"§3's {len(wanted)} WinoGrande items are lines of WinoGrande 1.1 {S3_WINOGRANDE_FILE} "
        "(208 of the 358 "
        "beyond train_xs); get it from the WinoGrande 1.1 release or uscnlp-lime/Self-Contradictory "
        "data/original_data/winogrande/winogrande_1.1/ and set s3_winogrande: PATH, "
        "or drop winogrande from sources"
    )
    if not path.is_file():
        raise ConfigError(f"WinoGrande file not found: {path}; {where}")
    by_id = {
        item.item_id: item for item in load_winogrande(path.parent, name=path.name.removesuffix(".jsonl"))
    }
    missing = [qid for qid in wanted if qid not in by_id]
    if missing:
        raise ConfigError(
            f"{path} lacks {len(missing)} of §3's WinoGrande items (first {missing[0]}); {where}"
        )
    return [by_id[qid] for qid in wanted]


def derive_section3(released: Path, wino: Path, winogrande: Path | None) -> dict[str, list[StudyLine | str]]:
    """The §3 lists from the released files found under ``released`` (a list whose file is absent is left
    out): each file's prompts in file order, as WinoBias test lines (with the word asked when it is not the
    line's first bracketed pronoun) or WinoGrande qIDs of the file at ``winogrande``."""
    from relreason_dagster.benchmarks.selfcontra.loaders import load_winobias, load_winogrande

    out: dict[str, list[StudyLine | str]] = {}
    for name, file_name in S3_SOURCES.items():
        path = released / file_name
        if not path.is_file():
            continue
        _, _, prompts = file_prompts(path)
        if name == "winogrande":
            if winogrande is None or not winogrande.is_file():
                continue
            items = load_winogrande(winogrande.parent, name=winogrande.name.removesuffix(".jsonl"))
            by_sentence = {}
            for item in reversed(items):
                by_sentence[item.sentence.replace("_", "[MASK]")] = item.item_id
            found = [by_sentence.get(prompt.split(" Does [MASK]", 1)[0].strip()) for prompt in prompts]
            out[name] = [qid for qid in found if qid is not None]
            continue
        stereotype = name.split("_")[1]
        items = load_winobias(wino / "winobias", stereotypes=(stereotype,), splits=("test",))
        first = {int(item.item_id.split(":", 1)[1]): str(item.pronoun) for item in items}
        lines: list[StudyLine | str] = []
        for prompt in prompts:
            found = winobias_asked(prompt, items)
            if found is None:
                continue
            line, word = found
            refer = f"who does '{word}'" in prompt and word not in _REFER_WORDS
            lines.append(StudyLine(line, word if refer or word != first.get(line) else None, refer))
        out[name] = lines
    return out


def render_section3_file(lists: dict[str, Sequence[StudyLine | str]]) -> str:
    """The shipped §3 list: a comment saying how it was derived, then ``<list> <line or qID> [word]``."""
    head = [
        "# The study's §3 (Table 5) items, per list: WinoBias test-file line numbers (a third field is the",
        "# word the study asked when it is not the line's first bracketed pronoun, a fourth 'refer' when it",
        '# asked "who does \'<word>\' refer to?" for a word our wording asks "who is") and WinoGrande',
        "# qIDs (lines",
        "# of WinoGrande 1.1 train_s.jsonl), each in the study's order.  Derived by study_items.py from the",
        "# prompts of the study's released files:",
        *(f"#   {name}: {S3_SOURCES[name]} ({len(entries)} items)" for name, entries in lists.items()),
        "# Re-derive (the released files under the reference folder needed):",
        "#   python -m relreason_dagster.benchmarks.selfcontra.study_items --section3 --write",
    ]
    body = []
    for name, entries in lists.items():
        for x in entries:
            if isinstance(x, StudyLine):
                fields = [name, str(x.line), *([x.asked] if x.asked else []), *(["refer"] if x.refer else [])]
                body.append(" ".join(fields))
            else:
                body.append(f"{name} {x}")
    return "\n".join([*head, *body]) + "\n"


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
    parser.add_argument("--write", action="store_true", help=f"rewrite {LINES_FILE.name} (or {S3_FILE.name})")
    parser.add_argument("--section3", action="store_true", help=f"the §3 lists ({S3_FILE.name}) instead")
    parser.add_argument(
        "--winogrande",
        type=Path,
        default=None,
        help=f"WinoGrande {S3_WINOGRANDE_FILE} (default: under the reference folder)",
    )
    args = parser.parse_args(argv)
    wino = paths.reference_dir() / "wino"
    if args.section3:
        return _main_section3(wino, args.winogrande or wino / "winogrande" / S3_WINOGRANDE_FILE, args.write)
    if not (wino / "selfcontra_annotations").is_dir():
        print(f"no released annotation files under {wino}; set RELREASON_REFERENCE_DIR", file=sys.stderr)
        return 2
    derived, asked = derive_from_reference(wino)
    text = render_lines_file(derived, asked)
    if args.write:
        atomic_files.write_text(LINES_FILE, text)  # whole or not at all: the family reads it at every run
        print(f"wrote {len(derived)} lines to {LINES_FILE}")
        return 0
    shipped = study_winobias_lines() if LINES_FILE.is_file() else ()
    same = tuple(derived) == shipped
    verdict = "matches" if same else "differs"
    print(f"derived {len(derived)} lines from {len(asked)} files; shipped list {verdict}")
    return 0 if same else 1


def _main_section3(wino: Path, winogrande: Path, write: bool) -> int:
    """Re-derive the §3 lists; a list whose released file is absent keeps its shipped entries."""
    derived = derive_section3(wino / "selfcontra_annotations", wino, winogrande)
    shipped = section3_lists() if S3_FILE.is_file() else {}
    if not derived:
        print(
            f"no released §3 file under {wino / 'selfcontra_annotations'}; set RELREASON_REFERENCE_DIR",
            file=sys.stderr,
        )
        return 2
    if write:
        merged = {name: derived.get(name, shipped.get(name, ())) for name in S3_SOURCES}
        S3_FILE.write_text(render_section3_file({k: v for k, v in merged.items() if v}), encoding="utf-8")
        print(f"wrote {sum(len(v) for v in merged.values())} items to {S3_FILE}")
        return 0
    differ = [name for name, entries in derived.items() if tuple(entries) != shipped.get(name)]
    for name, entries in derived.items():
        print(
            f"{name}: derived {len(entries)} from {S3_SOURCES[name]}; "
            f"shipped {'differs' if name in differ else 'matches'}"
        )
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
