"""Human Self-Contra annotations: read the study's CSVs (and any CSV of the same shape), write new ones.

Why: the study's numbers (accuracy, Self-Contra rate, Type1/2/3 counts, finer-grained categories) rest on
human annotations of real model responses, released as hand-edited spreadsheets whose headers differ from
file to file (three have none), whose codes drifted while annotating and whose last rows are often not
annotated yet.  Comparing our models' responses or an automatic detector against them needs one reader
that is strict about what a row says but never gives up on a file because of one odd cell; and annotating
new responses needs a file a person can fill in that the same reader reads back.

Columns
    Known header names win (``question``/``prompt``/``prompt_question``, ``result``/``results``/``response``,
    ``acc``/``accuracy``, ``self-contra``, ``type``/``label``, ``finer``/``finer-grained``, and the id
    columns that :func:`export_for_annotation` writes).  Every role no header names is inferred from the
    values by :func:`infer_column_roles`, a pure classifier over the columns, so a file whose header is
    missing, numbered (``0,1,2``/``1,2,3``), pandas' ``Unnamed: 0``, empty or in unknown words, or whose
    columns come in another order, reads like the original.  The first record is a header when it holds a
    known name, only position names, or short labels where the other records hold long text; otherwise it
    is data (headerless files start with a ``Question:...`` prompt).  Which 0/1 column is accuracy and which
    self-contra is decided from content (codes, type codes, categories), never guessed: when the content
    does not say, the file is refused with the reason.  Other columns (notes, ``?``, ``#REF!``, a stray
    copy of other columns, a row index) are kept in ``raw`` only.  A file without question, response,
    accuracy or self-contra is an :class:`AnnotationFileError`; :func:`read_annotation_files` skips such a
    file with its reason and imports the others.

Rows
    A row whose accuracy and self-contra are both empty is *not annotated*; one with only one of them, or a
    value that is no code (``#REF!``), or no question/response, is skipped too, each with a reason.  Nothing
    is ever raised for a row.  ``limit`` keeps the first N annotated rows; rows skipped before the Nth are
    still reported, rows after it are not read.

Self-contra codes
    ``0``/``1`` as flags.  Some files store type codes in that column instead: ``2`` and ``3`` are
    self-contradictory with type2/type3 implied; ``4`` (no reasoning) and ``6`` (no answer) count as *not*
    self-contradictory, since the study's SCR counts contradictions between a reasoning and its answer and
    there is no such pair; they add the category ``no_reasoning``/``no_answer`` and a note.  With that
    reading GPT-3.5 and Mistral-7B reproduce Table 2 within 0.04.

Types (RR, WW, type1, type2, type3)
    RW (right reasoning, wrong answer) = type1, WR (wrong reasoning, right answer) = type2, ``3``/
    ``self-contra``/``sc`` = type3 (the reasoning contradicts itself); ``1``/``2`` and phrases like "Right
    reasoning -> wrong answer" are read too.  The type is taken, in this order, from the type cell, from
    a type code in the self-contra cell, or (self-contra only) from the category ``self_contradictory``.
    It is kept only if it agrees with the flags: RR = right & not SC, WW = wrong & not SC,
    type1 = wrong & SC, type2 = right & SC, type3 = SC with either answer.  When it is missing,
    unrecognised or in conflict the type is derived from (correct, self_contra) by exactly those rules,
    so types and flags never disagree, and a conflict or an unrecognised cell is recorded in ``notes``.
    Type cells that hold category abbreviations (``Bq``, ``Wek, ir``) give categories, not a type.

File names
    Section 2 of the study (Tables 2, 8): ``<dataset>_<zero|few>_<answer|reason>_<model>.csv``.  Section 3
    (Table 5): ``<dataset>_<anti|pro>_<test|dev>_<model>.csv`` (WinoBias) and ``<dataset>_<model>.csv``
    (WinoGrande), all Few-shot (A) as §3.3 says, so their setting is ``few_answer``; the split is
    ``anti_test``/``pro_test``, and ``train_m`` for WinoGrande (the release's README: its only WinoGrande
    source).  ``--dataset/--split/--model/--setting`` override.

Counting Self-Contra (as the study's Tables 2 and 5 count it)
    A row is Self-Contra when its self-contra cell says so (codes above); the type and category cells never
    turn a row into Self-Contra.  That is how the published totals come out: the section-2 file
    ``winobias_few_answer_gpt3.5.csv`` (the same 354 responses as section 3's WB Anti GPT-3.5, which
    Appendix B.1 says were reused) has exactly Table 5's 129 flags.  Rows whose categories imply another
    reading (a right answer with a wrong-reasoning category but flag 0, or the reverse) are counted in
    ``n_flag_conflicts`` and noted, so a file whose flags were not filled in is visible.

Categories
    Free text and abbreviations, possibly several joined by ``&``, ``/``, ``,``, ``;`` or "and", are
    normalised to :data:`CATEGORIES`: em/ir/qc ("question cause")/bq ("begging question", "circular
    reasoning", cr)/wck ("wrong context")/wek ("wrong external")/sc/no reasoning/no answer
    ("no prediction").  "Wrong info" (the earliest label, used for e.g. "since the guard is the only person
    mentioned") is read as wrong_context_knowledge, with a note.  "good reasoning" means no category.
    Unknown words are ignored with a note.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason_dagster.errors import ConfigError

CATEGORIES = (
    "evidence_missing",
    "incomplete_reasoning",
    "questionable_cause",
    "begging_the_question",
    "wrong_context_knowledge",
    "wrong_external_knowledge",
    "self_contradictory",
    "no_reasoning",
    "no_answer",
)
TYPES = ("RR", "WW", "type1", "type2", "type3")
MANDATORY_ROLES = ("question", "response", "accuracy", "self_contra")

# The study's header, in its order, so that a filled-in export looks like the released files.
EXPORT_COLUMNS = ("question", "result", "accuracy", "self-contra", "type", "finer-grained")
EXPORT_ID_COLUMNS = ("response_id", "model", "setting", "dataset", "gold", "predicted")
# Names used in ``raw`` for columns whose role was inferred (headerless files).
_ROLE_LABELS = dict(
    zip(("question", "response", "accuracy", "self_contra", "type", "finer"), EXPORT_COLUMNS, strict=True)
)

_HEADER_ALIASES: dict[str, str] = {
    **dict.fromkeys(("question", "questions", "prompt", "prompt-question", "input"), "question"),
    **dict.fromkeys(("result", "results", "response", "responses", "output", "generation"), "response"),
    **dict.fromkeys(("acc", "accuracy", "correct", "is-correct"), "accuracy"),
    **dict.fromkeys(
        ("self-contra", "selfcontra", "self-contradiction", "self-contradictory", "sc"), "self_contra"
    ),
    **dict.fromkeys(("type", "types", "label", "reasoning-type"), "type"),
    **dict.fromkeys(
        ("finer", "finer-grained", "finergrained", "fine-grained", "finer-grained-category", "category")
        + ("categories",),
        "finer",
    ),
    **dict.fromkeys(("response-id", "id"), "response_id"),
    **{name: name for name in ("model", "setting", "dataset", "gold", "predicted")},
}

_FLAG_VALUES = {"1": True, "0": False, "true": True, "false": False, "yes": True, "no": False}
# self-contra cell -> (self-contradictory, implied type, implied category)
_SC_CODES: dict[str, tuple[bool, str | None, str | None]] = {
    "0": (False, None, None),
    "1": (True, None, None),
    "2": (True, "type2", None),
    "3": (True, "type3", None),
    "4": (False, None, "no_reasoning"),
    "6": (False, None, "no_answer"),
    "true": (True, None, None),
    "false": (False, None, None),
    "yes": (True, None, None),
    "no": (False, None, None),
}
_NOT_SC = "not-self-contra"  # a type cell of "0": explicitly not self-contradictory, answer decides RR/WW
_TYPE_VALUES: dict[str, str] = {
    "rr": "RR",
    "ww": "WW",
    "rw": "type1",
    "wr": "type2",
    **dict.fromkeys(("1", "type1", "type 1", "t1"), "type1"),
    **dict.fromkeys(("2", "type2", "type 2", "t2"), "type2"),
    **dict.fromkeys(("3", "type3", "type 3", "t3", "self contra", "self contradictory", "sc"), "type3"),
    "0": _NOT_SC,
}
_ARROW_TYPE = re.compile(
    r"^(right|correct|wrong|incorrect) reasoning\s*-*>\s*(right|correct|wrong|incorrect)"
)
_CATEGORY_VALUES: dict[str, str | None] = {
    **dict.fromkeys(("evidence missing", "em", "missing evidence"), "evidence_missing"),
    **dict.fromkeys(("incomplete reasoning", "ir", "incomplete"), "incomplete_reasoning"),
    **dict.fromkeys(("questionable cause", "question cause", "qc", "questionable"), "questionable_cause"),
    **dict.fromkeys(
        ("begging the question", "begging question", "bq", "circular reasoning", "circular", "cr"),
        "begging_the_question",
    ),
    **dict.fromkeys(
        ("wrong context knowledge", "wrong context", "wck", "wrong info", "wrong information"),
        "wrong_context_knowledge",
    ),
    **dict.fromkeys(("wrong external knowledge", "wrong external", "wek"), "wrong_external_knowledge"),
    **dict.fromkeys(
        ("self contra", "sc", "self contradictory", "self contradiction", "self contradicting"),
        "self_contradictory",
    ),
    **dict.fromkeys(("no reasoning", "nr"), "no_reasoning"),
    **dict.fromkeys(("no answer", "no prediction", "na"), "no_answer"),
    **dict.fromkeys(("good reasoning", "good", "none", "n/a", "-"), None),
    **{name.replace("_", " "): name for name in CATEGORIES},
}
# Labels whose reading is a judgement call: each use is noted on the row.
_UNSURE_CATEGORY_WORDS = frozenset({"wrong info", "wrong information"})
_KNOWN_DATASETS = ("winobias", "winogender", "winogrande")
_CATEGORY_SPLIT = re.compile(r"\s*(?:[&/,;+|]|\band\b)\s*")
_CODE_NUMBER = re.compile(r"^(\d+)\.0*$")
_SETTING_SHOT = {"zero": "zero", "zeroshot": "zero", "zero-shot": "zero"}
_SETTING_SHOT |= {"few": "few", "fewshot": "few", "few-shot": "few"}
_SETTING_ORDER = {"answer": "answer", "answer-first": "answer", "reason": "reason", "reason-first": "reason"}
_QUESTION_PREFIX = re.compile(r"^\W*question\b", re.IGNORECASE)
_RESPONSE_PREFIX = re.compile(r"^\W*(?:answer|reasoning|response|explanation|output)\b", re.IGNORECASE)
# Header cells that name a position, not a role: pandas' "Unnamed: 3", numbered headers, "col3".
_PLACEHOLDER_HEADER = re.compile(
    r"^(?:unnamed:?\s*\d+(?:_level_\d+)?|(?:col|column|field)[\s_-]*\d+|\d+(?:\.0+)?)$", re.IGNORECASE
)
_LONG_TEXT = 20  # mean characters of a question/response column; codes and labels are shorter


class AnnotationFileError(ConfigError):
    """A file that cannot be imported as a whole, with the reason apart so a batch can list it and go on."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = str(path)
        self.reason = reason


@dataclass
class AnnotationRow:
    """One annotated response, with the cells it came from."""

    source: str
    row_number: int
    dataset: str
    model: str
    setting: str
    question: str
    response: str
    correct: bool
    self_contra: bool
    type: str
    categories: list[str]
    raw: dict[str, str]
    notes: list[str] = field(default_factory=list)
    split: str | None = None  # anti_test / pro_test for the study's section-3 WinoBias files
    # The categories imply a Self-Contra reading other than the flag's (see "Counting Self-Contra").
    flag_conflict: bool = False


@dataclass
class SkippedRow:
    """A record that gave no annotation, and why (so a reader can tell 'not yet annotated' from 'broken')."""

    row_number: int
    reason: str


@dataclass
class ImportResult:
    """One file's annotations plus how it was read (header variant, column roles, skipped records)."""

    path: str
    dataset: str
    model: str
    setting: str
    header: str
    columns: dict[str, int]
    rows: list[AnnotationRow]
    skipped: list[SkippedRow]
    # How each role that no header named was inferred from the values (empty for fully named files).
    inference: list[str] = field(default_factory=list)
    split: str | None = None

    def summary(self) -> dict[str, Any]:
        """What the file holds: annotated rows, how many are correct and Self-Contra, and the type counts.

        The counts are what parsing found.  The rates users read (accuracy, SCR = #Self-Contra /
        #annotated, with intervals) are computed once, in SQL (``marts.selfcontra_scr``).
        """
        n = len(self.rows)
        n_correct = sum(row.correct for row in self.rows)
        n_self_contra = sum(row.self_contra for row in self.rows)
        types = [row.type for row in self.rows]
        return {
            "dataset": self.dataset,
            "split": self.split,
            "model": self.model,
            "setting": self.setting,
            "n": n,
            "n_correct": n_correct,
            "n_self_contra": n_self_contra,
            "n_type1": types.count("type1"),
            "n_type2": types.count("type2"),
            "n_type3": types.count("type3"),
            "n_rr": types.count("RR"),
            "n_ww": types.count("WW"),
            "n_flag_conflicts": sum(row.flag_conflict for row in self.rows),
            "skipped": len(self.skipped),
        }


@dataclass(frozen=True)
class FileLabels:
    """What a file name says: dataset, split (None unless named), setting and model ("unknown" if unsaid)."""

    dataset: str
    split: str | None
    setting: str
    model: str


_STEREOTYPES = ("anti", "pro")
_SPLITS = ("test", "dev")
SECTION3_SETTING = "few_answer"  # §3.3: the finer-grained analysis uses the Few-shot (A) responses
# The study's release says its WinoGrande items are train_m's; naming the split keeps a section-3 file apart
# from the section-2 files of the same model and setting (whose rows Tables 2 and 8 count, split-less).
WINOGRANDE_SECTION3_SPLIT = "train_m"


def parse_file_name(path: str | Path) -> FileLabels:
    """Labels of a file named as the study's release names them (see "File names" above).

    ``<dataset>_<anti|pro>_<test|dev>_<model>`` and ``<dataset>_<model>`` (dataset one the study used) are
    section 3: setting ``few_answer``.  Only a ``.csv`` suffix is dropped (model names carry dots).
    """
    name = Path(path).name
    if name.lower().endswith(".csv"):
        name = name[:-4]
    tokens = name.split("_")
    lowered = [token.lower() for token in tokens]
    dataset, setting, model = parse_source_name(path)
    if setting != "unknown" or lowered[0] not in _KNOWN_DATASETS or len(tokens) < 2:
        split = None
        if len(lowered) > 2 and lowered[1] in _STEREOTYPES and lowered[2] in _SPLITS:
            split = f"{lowered[1]}_{lowered[2]}"
            dataset = lowered[0] if lowered[0] in _KNOWN_DATASETS else dataset
        return FileLabels(dataset, split, setting, model)
    rest, split = tokens[1:], None
    if len(rest) >= 2 and rest[0].lower() in _STEREOTYPES and rest[1].lower() in _SPLITS:
        split, rest = f"{rest[0].lower()}_{rest[1].lower()}", rest[2:]
    if not rest:
        return FileLabels(lowered[0], split, "unknown", "unknown")
    if split is None and lowered[0] == "winogrande":
        split = WINOGRANDE_SECTION3_SPLIT
    return FileLabels(lowered[0], split, SECTION3_SETTING, "_".join(rest))


def parse_source_name(path: str | Path) -> tuple[str, str, str]:
    """``<dataset>_<zero|few>_<answer|reason>_<model>.csv`` -> (dataset, setting, model); gaps -> "unknown".

    Only a ``.csv`` suffix is dropped, because model names carry dots (``gpt3.5``).  Section-3 names:
    :func:`parse_file_name`.
    """
    name = Path(path).name
    if name.lower().endswith(".csv"):
        name = name[:-4]
    tokens = name.split("_")
    lowered = [token.lower() for token in tokens]
    shot_at = next((i for i, token in enumerate(lowered) if token in _SETTING_SHOT), None)
    order_at = next(
        (
            i
            for i, token in enumerate(lowered)
            if token in _SETTING_ORDER and (shot_at is None or i > shot_at)
        ),
        None,
    )
    if shot_at is None or order_at is None or order_at != shot_at + 1:
        return (lowered[0] if lowered[0] in _KNOWN_DATASETS else "unknown"), "unknown", "unknown"
    dataset = "_".join(lowered[:shot_at]) or "unknown"
    model = "_".join(tokens[order_at + 1 :]) or "unknown"
    setting = f"{_SETTING_SHOT[lowered[shot_at]]}_{_SETTING_ORDER[lowered[order_at]]}"
    return dataset, setting, model


def read_annotation_csv(
    path: str | Path,
    limit: int | None = None,
    *,
    dataset: str | None = None,
    model: str | None = None,
    setting: str | None = None,
    split: str | None = None,
) -> ImportResult:
    """Read one annotation CSV (see the module docstring for every rule); never raises for a row.

    ``dataset``/``model``/``setting``/``split`` override the file name and the id columns; without them a
    row's own ``model``/``setting``/``dataset`` cell (exported files) wins over the file name.
    """
    path = Path(path)
    if limit is not None and limit < 0:
        raise ConfigError(f"{path}: limit must be >= 0, got {limit}")
    try:
        records, parse_error = _read_records(path)
    except OSError as exc:
        raise AnnotationFileError(path, f"cannot read annotation file ({exc.strerror or exc})") from exc
    if not any(any(cell.strip() for cell in record) for record in records):
        raise AnnotationFileError(path, "empty annotation file (no header, no rows)")

    header_kind = _header_kind(records[0], records[1:])
    body = records if header_kind is None else records[1:]
    width = max(len(record) for record in records)
    known = _named_columns(records[0]) if header_kind == "named" else {}
    inference = infer_column_roles(
        [[record[i] if i < len(record) else "" for record in body] for i in range(width)], known
    )
    columns = inference.columns
    header = _header_label(header_kind, inferred=set(columns) - set(known))
    if inference.problem:
        raise AnnotationFileError(path, f"{inference.problem} (header {header})")
    missing = [role for role in MANDATORY_ROLES if role not in columns]
    if missing:
        found = ", ".join(f"{role}={index}" for role, index in columns.items()) or "none"
        raise AnnotationFileError(
            path, f"missing mandatory column(s) {', '.join(missing)} (header {header}; roles found: {found})"
        )
    names = _column_names(records[0] if header_kind else None, columns, width)

    # File-level labels: argument, else the file name, else an id column that holds one value throughout.
    labels = parse_file_name(path)
    from_name = {"dataset": labels.dataset, "setting": labels.setting, "model": labels.model}
    overrides = {"dataset": dataset, "model": model, "setting": setting}
    defaults = {
        role: overrides[role]
        or (from_name[role] if from_name[role] != "unknown" else None)
        or _unique_cell(body, columns.get(role))
        or "unknown"
        for role in ("dataset", "model", "setting")
    }

    result = ImportResult(
        path=str(path),
        dataset=defaults["dataset"],
        model=defaults["model"],
        setting=defaults["setting"],
        header=header,
        columns=columns,
        rows=[],
        skipped=[],
        inference=inference.notes,
        split=split or labels.split,
    )
    for offset, cells in enumerate(body):
        if limit is not None and len(result.rows) >= limit:
            break
        number = offset + 1  # record number after any header
        try:
            parsed = _parse_row(cells, number, path.name, columns, names, overrides, defaults)
        except Exception as exc:  # a bad row must never stop an import
            parsed = SkippedRow(number, f"unreadable row ({type(exc).__name__}: {exc})")
        if isinstance(parsed, SkippedRow):
            result.skipped.append(parsed)
        else:
            parsed.split = result.split
            result.rows.append(parsed)
    if parse_error and (limit is None or len(result.rows) < limit):
        result.skipped.append(SkippedRow(len(body) + 1, parse_error))
    return result


@dataclass
class AnnotationBatch:
    """Several files read at once: the ones that imported, and each one skipped with its reason.

    Why: one unreadable file (an unknown layout, a missing path) must not cost the others; the user gets
    every reason in one line and fixes those files alone.
    """

    results: list[ImportResult]
    skipped: list[tuple[str, str]]  # (file as given, reason)

    @property
    def rows(self) -> int:
        return sum(len(result.rows) for result in self.results)

    def summary_line(self) -> str:
        """``imported N files (R rows), skipped M: <file>: <reason>; ...`` (one line)."""
        line = f"imported {len(self.results)} files ({self.rows} rows), skipped {len(self.skipped)}"
        if self.skipped:
            line += ": " + "; ".join(f"{name}: {reason}" for name, reason in self.skipped)
        return line

    def as_dict(self) -> dict[str, Any]:
        """The summary line's content, for ``--json`` and Dagster metadata."""
        return {
            "imported": len(self.results),
            "rows": self.rows,
            "skipped": [{"file": name, "reason": reason} for name, reason in self.skipped],
            "summary": self.summary_line(),
        }


def read_annotation_files(
    paths: Iterable[str | Path],
    limit: int | None = None,
    *,
    dataset: str | None = None,
    model: str | None = None,
    setting: str | None = None,
    split: str | None = None,
) -> AnnotationBatch:
    """Read every file; a file that cannot be read is skipped with its reason, never raised.

    Reasons are single lines without the path (the summary line names the file).  Any unexpected error in
    one file is a reason too, so a reader bug shows up as that file skipped, not as a lost batch.
    """
    if limit is not None and limit < 0:
        raise ConfigError(f"limit must be >= 0, got {limit}")
    batch = AnnotationBatch(results=[], skipped=[])
    for name in paths:
        path = Path(name)
        if not path.exists():
            batch.skipped.append((str(name), "no such file"))
            continue
        if not path.is_file():
            batch.skipped.append((str(name), "not a file"))
            continue
        try:
            result = read_annotation_csv(
                path, limit, dataset=dataset, model=model, setting=setting, split=split
            )
        except AnnotationFileError as exc:
            batch.skipped.append((str(name), _one_line(exc.reason)))
        except Exception as exc:  # a bad file must never cost the others
            batch.skipped.append((str(name), _one_line(f"unreadable ({type(exc).__name__}: {exc})")))
        else:
            batch.results.append(result)
    return batch


def _one_line(text: str) -> str:
    """A reason as one line without "; ", which separates the files in the summary line."""
    return " ".join(text.split()).replace("; ", ", ")


def export_for_annotation(records: Iterable[dict[str, Any]], path: str | Path) -> int:
    """Write responses to annotate in the study's shape; returns the number of rows written.

    The annotation columns (accuracy, self-contra, type, finer-grained) stay empty for a person to fill in,
    the id columns after them keep provenance, and :func:`read_annotation_csv` reads the filled file back.
    Written with a BOM because spreadsheet programs otherwise mangle non-ASCII text; the reader drops it.
    Every record is checked before anything is written, so a bad record leaves no half-written file.
    """
    path = Path(path)
    rows: list[list[str]] = []
    for index, record in enumerate(records, start=1):
        question = _text(record.get("question"))
        response = _text(record.get("response"))
        if not question.strip() or not response.strip():
            raise ConfigError(f"{path}: record {index} has no question or no response to annotate")
        rows.append(
            [question, response, "", "", "", ""] + [_text(record.get(key)) for key in EXPORT_ID_COLUMNS]
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([*EXPORT_COLUMNS, *EXPORT_ID_COLUMNS])
        writer.writerows(rows)
    return len(rows)


# --- column roles from content ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnProfile:
    """What one column's non-empty values look like: the features the role classifier decides on."""

    index: int
    filled: int
    mean_length: float
    question_like: int  # starts with "Question"
    response_like: int  # starts with "Answer"/"Reasoning"/"Response"/"Explanation"/"Output"
    flags: int  # 0/1, true/false, yes/no
    codes: int  # self-contra codes: the flags plus 2/3/4/6
    labels: int  # a type (RR, rw, type 2, "Right reasoning -> wrong answer") or finer-grained categories
    types: int  # a type
    categories: int  # names at least one finer-grained category
    sequence: bool  # 0,1,2,... or 1,2,3,... on every record: a row index that pandas or a sheet added
    # Every type cell is "0" (not self-contra): a stray 0 column (the study's pro-test GPT-3.5 file has
    # one, unnamed, after its last named column), not a type column, which holds RR/WW/RW/WR/codes.
    zeros_only: bool = False

    def share(self, count: int) -> float:
        return count / self.filled if self.filled else 0.0

    @property
    def text(self) -> bool:
        """Question or response text: long on average, and not labels or codes."""
        return (
            self.filled > 0
            and not self.sequence
            and self.mean_length >= _LONG_TEXT
            and self.share(self.codes) < 0.5
            and self.share(self.labels) < 0.5
        )

    @property
    def flag_like(self) -> bool:
        """Accuracy or self-contra: nearly all codes, at least half of them 0/1 (types 1/2/3 rarely are)."""
        if not self.filled or self.sequence:
            return False
        return self.share(self.codes) >= 0.9 and self.share(self.flags) >= 0.5

    @property
    def type_like(self) -> bool:
        """Type cells, which the study's files mix with category abbreviations (``rr``, ``Bq``, ``2``)."""
        return (
            not self.sequence
            and not self.zeros_only
            and self.share(self.labels) >= 0.7
            and self.share(self.types) >= 0.25
        )

    @property
    def category_like(self) -> bool:
        return not self.sequence and self.categories > 0 and self.share(self.categories) >= 0.5


@dataclass
class RoleInference:
    """Column roles (named ones as given, the rest inferred), how each was decided, or why it could not be."""

    columns: dict[str, int]
    notes: list[str] = field(default_factory=list)
    problem: str | None = None


def profile_column(index: int, values: Sequence[str]) -> ColumnProfile:
    """Count the kinds of value in one column (cells stripped; empty cells are not counted)."""
    cells = [value.strip() for value in values if value.strip()]
    keys = [_code_key(cell) for cell in cells]
    types = [_parse_type(cell)[1] for cell in cells]
    categories = [_is_category_cell(cell) for cell in cells]
    numbers = [int(key) if key.isdigit() else None for key in keys]
    sequence = (
        len(cells) >= 3
        and len(cells) == len(values)
        and numbers[0] in (0, 1)
        and all(n is not None and n == numbers[0] + i for i, n in enumerate(numbers))
    )
    return ColumnProfile(
        index=index,
        filled=len(cells),
        mean_length=sum(map(len, cells)) / len(cells) if cells else 0.0,
        question_like=sum(bool(_QUESTION_PREFIX.match(cell)) for cell in cells),
        response_like=sum(bool(_RESPONSE_PREFIX.match(cell)) for cell in cells),
        flags=sum(key in _FLAG_VALUES for key in keys),
        codes=sum(key in _SC_CODES for key in keys),
        labels=sum(t or c for t, c in zip(types, categories, strict=True)),
        types=sum(types),
        categories=sum(categories),
        sequence=sequence,
        zeros_only=bool(keys) and all(key == "0" for key in keys),
    )


def infer_column_roles(
    columns: Sequence[Sequence[str]], known: dict[str, int] | None = None
) -> RoleInference:
    """Give a role to every column no header named, from the values alone (pure; ``columns[i][r]`` is row r).

    Names win: ``known`` roles are kept and their columns are not re-used.  A column of consecutive row
    numbers (a pandas/sheet index) never gets a role.  The rest, in this order:

    question, response
        Text columns (long values that are not codes or labels).  The question is the one whose values
        mostly start with "Question", the response the one whose values mostly start with "Answer" or
        "Reasoning" (the most such values wins, so a short stray copy loses to the real column).  Without
        those prefixes, the study's order decides: the leftmost text column is the question, the next text
        column to its right (else the leftmost other one) the response.
    accuracy, self-contra (the 0/1 pair)
        Columns of codes, at least half 0/1.  Annotating a response fills both, so the pair is the two such
        columns filled on the same rows most often (overlap x each column's 0/1 share); when one of the two
        is named, the candidate filled most often with it.  A second pair scoring within 5% of the best is
        ambiguous and stops here.  Which of the two is accuracy is then decided from content, never from
        order, by up to three kinds of evidence, each reported with its counts:

        * codes: only self-contra holds 2/3/4/6 (type codes), accuracy is strictly 0/1;
        * types: RR = right & not SC, WW = wrong & not SC, RW = wrong & SC, WR = right & SC, type3 = SC;
          each way round is scored by how many typed rows agree;
        * categories: the study writes a finer-grained category for a flawed response, so "the row has a
          category" should match "the row is not RR" (right and not SC); each way round is scored likewise.

        A kind of evidence counts when it has at least 3 informative rows and one reading beats the other by
        20 points of agreement.  If the counting kinds agree, that reading is taken; if none counts, or two
        disagree, the file is not guessed at: ``problem`` says why and the caller skips the file.
    type, finer
        The column with the most type cells (at least 70% type or category cells, at least 25% types),
        then the column with the most category cells (at least half).  Both are optional.
    """
    known = dict(known or {})
    height = max((len(column) for column in columns), default=0)
    columns = [list(column) + [""] * (height - len(column)) for column in columns]  # ragged -> padded
    profiles = [profile_column(index, values) for index, values in enumerate(columns)]
    roles = dict(known)
    notes: list[str] = []

    def free() -> list[ColumnProfile]:
        taken = set(roles.values())
        return [p for p in profiles if p.index not in taken and p.filled and not p.sequence]

    sequences = [p.index for p in profiles if p.sequence and p.index not in known.values()]
    if sequences:
        notes.append(f"row-number column(s) {', '.join(map(str, sequences))} ignored")
    _infer_text_roles(roles, free(), notes)

    flag_roles = [role for role in ("accuracy", "self_contra") if role not in roles]
    pair: tuple[int, int] | None = None
    candidates = [p for p in free() if p.flag_like]
    if len(flag_roles) == 1:
        partner = roles["self_contra" if flag_roles[0] == "accuracy" else "accuracy"]
        scored = sorted(
            ((_co_filled(columns, partner, p.index) * p.share(p.flags), p.index) for p in candidates),
            reverse=True,
        )
        if scored and scored[0][0] > 0:
            if len(scored) > 1 and scored[1][0] >= 0.95 * scored[0][0]:
                return RoleInference(
                    roles,
                    notes,
                    f"cannot tell which of columns {scored[0][1]} and {scored[1][1]} is {flag_roles[0]}: "
                    f"both are 0/1 columns filled alongside column {partner}",
                )
            roles[flag_roles[0]] = scored[0][1]
            notes.append(f"{flag_roles[0]}={scored[0][1]}: the 0/1 column filled alongside column {partner}")
    elif len(flag_roles) == 2:
        scored_pairs = sorted(
            (
                (_co_filled(columns, a.index, b.index) * a.share(a.flags) * b.share(b.flags),)
                + (a.index, b.index)
                for i, a in enumerate(candidates)
                for b in candidates[i + 1 :]
            ),
            reverse=True,
        )
        if scored_pairs and scored_pairs[0][0] > 0:
            if len(scored_pairs) > 1 and scored_pairs[1][0] >= 0.95 * scored_pairs[0][0]:
                first, second = scored_pairs[0][1:], scored_pairs[1][1:]
                return RoleInference(
                    roles,
                    notes,
                    f"cannot tell which 0/1 columns are accuracy and self-contra: columns {first} and "
                    f"{second} fit equally well",
                )
            pair = scored_pairs[0][1], scored_pairs[0][2]
            roles["accuracy"], roles["self_contra"] = pair  # provisional: decided below from content

    if "type" not in roles:
        typed = sorted((p.types, -p.index) for p in free() if p.type_like)
        if typed:
            roles["type"] = -typed[-1][1]
            notes.append(f"type={roles['type']}: {typed[-1][0]} type cells (RR/WW/RW/WR/codes)")
    if "finer" not in roles:
        found = sorted((p.categories, -p.index) for p in free() if p.category_like)
        if found:
            roles["finer"] = -found[-1][1]
            notes.append(f"finer={roles['finer']}: {found[-1][0]} finer-grained category cells")

    if pair is not None:
        swapped, reason = _tell_flags_apart(columns, pair, roles.get("type"), roles.get("finer"))
        if swapped is None:
            del roles["accuracy"], roles["self_contra"]
            return RoleInference(roles, notes, reason)
        roles["accuracy"], roles["self_contra"] = (pair[1], pair[0]) if swapped else pair
        notes.append(f"accuracy={roles['accuracy']}, self_contra={roles['self_contra']}: {reason}")
    return RoleInference(roles, notes)


def _infer_text_roles(roles: dict[str, int], free: list[ColumnProfile], notes: list[str]) -> None:
    """question and response (see :func:`infer_column_roles`); fills ``roles`` and ``notes`` in place."""
    text = [p for p in free if p.text]
    for role, prefixed in (("question", "question_like"), ("response", "response_like")):
        if role in roles:
            continue
        best = max(
            (p for p in text if p.index not in roles.values() and getattr(p, prefixed) >= 0.5 * p.filled),
            key=lambda p: (getattr(p, prefixed), -p.index),
            default=None,
        )
        if best is not None:
            roles[role] = best.index
            word = "Question" if role == "question" else "Answer/Reasoning"
            notes.append(f"{role}={best.index}: {getattr(best, prefixed)} values start with {word}")
    rest = [p.index for p in text if p.index not in roles.values()]
    if "question" not in roles and rest:
        roles["question"] = rest.pop(0)
        notes.append(f"question={roles['question']}: leftmost text column (no 'Question' prefix)")
    if "response" not in roles and rest:
        after = [index for index in rest if index > roles.get("question", -1)]
        roles["response"] = (after or rest)[0]
        notes.append(f"response={roles['response']}: next text column (no 'Answer'/'Reasoning' prefix)")


def _co_filled(columns: Sequence[Sequence[str]], a: int, b: int) -> int:
    """Rows where both columns hold a value."""
    return sum(1 for x, y in zip(columns[a], columns[b], strict=True) if x.strip() and y.strip())


def _flags(accuracy_cell: str, sc_cell: str) -> tuple[bool, bool] | None:
    """(correct, self-contradictory) when both cells read as those roles, else None."""
    correct = _FLAG_VALUES.get(_code_key(accuracy_cell))
    code = _SC_CODES.get(_code_key(sc_cell))
    return None if correct is None or code is None else (correct, code[0])


def _tell_flags_apart(
    columns: Sequence[Sequence[str]], pair: tuple[int, int], type_at: int | None, finer_at: int | None
) -> tuple[bool | None, str]:
    """(swapped, why): is the left column of ``pair`` self-contra rather than accuracy?  None if undecided.

    The rules are in :func:`infer_column_roles`; ``why`` carries every count so a reader can check them.
    """
    left, right = (columns[i] for i in pair)
    rows = [i for i, (a, b) in enumerate(zip(left, right, strict=True)) if a.strip() and b.strip()]
    verdicts: list[tuple[bool, str]] = []

    def extra_codes(cells: Sequence[str]) -> int:
        keys = [_code_key(cells[i]) for i in rows]
        return sum(1 for key in keys if key in _SC_CODES and key not in _FLAG_VALUES)

    extra_left, extra_right = extra_codes(left), extra_codes(right)
    if bool(extra_left) != bool(extra_right):
        swapped = extra_left > 0
        verdicts.append(
            (
                swapped,
                f"only column {pair[0] if swapped else pair[1]} holds codes 2/3/4/6 "
                f"({max(extra_left, extra_right)} cells), so it is self-contra",
            )
        )

    def score(name: str, judge: Any) -> None:
        """``judge(i, flags)`` -> True/False (agrees or not), None (row not informative)."""
        as_is = swapped_ = informative = 0
        for i in rows:
            reading, flipped = _flags(left[i], right[i]), _flags(right[i], left[i])
            verdict = judge(i, reading), judge(i, flipped)
            if verdict == (None, None):
                continue
            informative += 1
            as_is += bool(verdict[0])
            swapped_ += bool(verdict[1])
        if informative >= 3 and abs(as_is - swapped_) >= 0.2 * informative:
            verdicts.append(
                (
                    swapped_ > as_is,
                    f"{name} fit accuracy={pair[1] if swapped_ > as_is else pair[0]} on "
                    f"{max(as_is, swapped_)}/{informative} rows, accuracy="
                    f"{pair[0] if swapped_ > as_is else pair[1]} on {min(as_is, swapped_)}/{informative}",
                )
            )

    def type_of(i: int) -> str | None:
        if type_at is None or i >= len(columns[type_at]):
            return None
        return _parse_type(columns[type_at][i])[0]

    def by_type(i: int, flags: tuple[bool, bool] | None) -> bool | None:
        type_ = type_of(i)
        if type_ is None:
            return None
        return flags is not None and _agrees(type_, *flags)

    def by_category(i: int, flags: tuple[bool, bool] | None) -> bool | None:
        cells = [columns[finer_at][i]] if finer_at is not None else []
        if type_at is not None and type_of(i) is None:
            cells.append(columns[type_at][i])
        found = {c for cell in cells for c in _parse_categories(cell)[0]} - {"no_reasoning", "no_answer"}
        return flags is not None and bool(found) == (not (flags[0] and not flags[1]))

    if type_at is not None:
        score("type codes", by_type)
    if finer_at is not None or type_at is not None:
        score("finer-grained categories (a category marks a response that is not RR)", by_category)
    decided = {swapped for swapped, _ in verdicts}
    evidence = "; ".join(reason for _, reason in verdicts)
    if len(decided) == 1:
        return decided.pop(), evidence
    if decided:
        return None, (
            f"0/1 columns {pair[0]} and {pair[1]}: the evidence for which is accuracy and which self-contra "
            f"conflicts ({evidence}); name them in a header row"
        )
    return None, (
        f"0/1 columns {pair[0]} and {pair[1]}: nothing tells accuracy from self-contra (no header names "
        "them, no codes 2/3/4/6, too few type codes or categories that fit one reading); "
        "name them in a header row"
    )


def _is_category_cell(value: str) -> bool:
    """A cell of finer-grained categories: a known category, and no more unknown words than known ones."""
    found, unknown, _ = _parse_categories(value)
    if found:
        return len(unknown) <= len(found)
    key = re.sub(r"[\s_-]+", " ", value.strip().lower()).strip(" .?!:")
    return key in _CATEGORY_VALUES  # "good reasoning", "none": a category cell that names no flaw


# --- reading -------------------------------------------------------------------------------------------


def _read_records(path: Path) -> tuple[list[list[str]], str | None]:
    """All CSV records; a malformed tail is returned as a reason instead of an exception."""
    records: list[list[str]] = []
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as handle:
        reader = csv.reader(handle)
        try:
            for record in reader:
                records.append(record)
        except csv.Error as exc:
            return records, f"CSV parse error at line {reader.line_num} ({exc}); rest of the file not read"
    return records, None


def _normalise_header(cell: str) -> str:
    return re.sub(r"[\s_]+", "-", cell.strip().lower())


def _header_kind(first: Sequence[str], rest: Sequence[Sequence[str]]) -> str | None:
    """How the first record names the columns, or None when it is data (a prompt, not a column name).

    * ``named``: at least one known column name (the rest may be anything).
    * ``placeholder``: only position names (``0,1,2``, ``1,2,3``, ``Unnamed: 0``, ``col3``) and empty
      cells, as pandas and spreadsheets write them.  A blank first record counts as a blank header: it
      holds no annotation either way, and the records are numbered after it.
    * ``unknown``: unknown words, told from a data record by the body: wherever the other records hold long
      text (the question, the response), this record holds a short label that starts like neither.
    """
    cells = [cell.strip() for cell in first]
    if any("\n" in cell or len(cell) > 80 for cell in cells):
        return None
    if any(_HEADER_ALIASES.get(_normalise_header(cell)) for cell in cells):
        return "named"
    if all(not cell or _PLACEHOLDER_HEADER.match(cell) for cell in cells):
        return "placeholder"
    text_columns = [
        profile.index
        for profile in (
            profile_column(i, [r[i] if i < len(r) else "" for r in rest]) for i in range(len(cells))
        )
        if profile.text
    ]
    labels = [cells[i] for i in text_columns if i < len(cells)]
    if text_columns and all(
        len(cell) < _LONG_TEXT and not _QUESTION_PREFIX.match(cell) and not _RESPONSE_PREFIX.match(cell)
        for cell in labels
    ):
        return "unknown"
    return None


def _header_label(kind: str | None, inferred: set[str]) -> str:
    """``ImportResult.header``: "named" only when every role came from a column name."""
    if kind == "named":
        return "named + inferred" if inferred else "named"
    return {None: "none", "placeholder": "numbered/unnamed", "unknown": "unknown names"}[kind] + " (inferred)"


def _named_columns(first: Sequence[str]) -> dict[str, int]:
    """Roles of the columns a header row names (the first column wins when two carry one name)."""
    columns: dict[str, int] = {}
    for index, cell in enumerate(first):
        role = _HEADER_ALIASES.get(_normalise_header(cell))
        if role is not None and role not in columns:
            columns[role] = index
    return columns


def _column_names(first: Sequence[str] | None, columns: dict[str, int], width: int) -> list[str]:
    """Keys of ``AnnotationRow.raw``: a header's own words, else the role label, else ``col<i>``."""
    by_index = {index: _ROLE_LABELS.get(role, role) for role, index in columns.items()}
    names: list[str] = []
    for index in range(width):
        cell = first[index].strip() if first is not None and index < len(first) else ""
        if not cell or _PLACEHOLDER_HEADER.match(cell):
            cell = by_index.get(index, f"col{index}")
        names.append(f"{cell}#{index}" if cell in names else cell)
    return names


def _code_key(value: str) -> str:
    """'1', '1.0', ' 1 ' -> '1' (spreadsheets export integers as floats); other text lower-cased."""
    value = value.strip().lower()
    match = _CODE_NUMBER.match(value)
    return match.group(1) if match else value


def _unique_cell(records: list[list[str]], index: int | None) -> str | None:
    if index is None:
        return None
    values = {record[index].strip() for record in records if index < len(record) and record[index].strip()}
    return values.pop() if len(values) == 1 else None


def _parse_type(value: str) -> tuple[str | None, bool]:
    """(type or _NOT_SC or None, recognised)."""
    key = re.sub(r"[\s_-]+", " ", value.strip().lower()).strip(" .")
    if key in _TYPE_VALUES:
        return _TYPE_VALUES[key], True
    squeezed = key.replace(" ", "")
    if squeezed in _TYPE_VALUES:
        return _TYPE_VALUES[squeezed], True
    arrow = _ARROW_TYPE.match(value.strip().lower())
    if arrow:
        reasoning_right = arrow.group(1) in ("right", "correct")
        answer_right = arrow.group(2) in ("right", "correct")
        table = {(True, True): "RR", (False, False): "WW", (True, False): "type1", (False, True): "type2"}
        return table[(reasoning_right, answer_right)], True
    return None, False


def _parse_categories(value: str) -> tuple[list[str], list[str], list[str]]:
    """(categories, unknown words, notes) of one cell of free text or abbreviations."""
    categories: list[str] = []
    unknown: list[str] = []
    notes: list[str] = []
    for token in _CATEGORY_SPLIT.split(value.strip()):
        key = re.sub(r"[\s_-]+", " ", token.strip().lower()).strip(" .?!:")
        if not key:
            continue
        if key not in _CATEGORY_VALUES:
            unknown.append(token.strip())
            continue
        category = _CATEGORY_VALUES[key]
        if key in _UNSURE_CATEGORY_WORDS:
            notes.append(f"category '{token.strip()}' read as {category}")
        if category is not None and category not in categories:
            categories.append(category)
    return categories, unknown, notes


def _derive_type(correct: bool, self_contra: bool) -> str:
    if self_contra:
        return "type2" if correct else "type1"
    return "RR" if correct else "WW"


def _agrees(type_: str, correct: bool, self_contra: bool) -> bool:
    if type_ == "type3":
        return self_contra
    if type_ == _NOT_SC:
        return not self_contra
    return type_ == _derive_type(correct, self_contra)


def _parse_row(
    cells: list[str],
    number: int,
    source: str,
    columns: dict[str, int],
    names: list[str],
    overrides: dict[str, str | None],
    defaults: dict[str, str],
) -> AnnotationRow | SkippedRow:
    def cell(role: str) -> str:
        index = columns.get(role)
        return cells[index].strip() if index is not None and index < len(cells) else ""

    if not any(value.strip() for value in cells):
        return SkippedRow(number, "empty record")
    accuracy_cell, sc_cell = cell("accuracy"), cell("self_contra")
    question, response = cell("question"), cell("response")
    if not accuracy_cell and not sc_cell:
        reason = "not annotated (accuracy and self-contra empty)"
        if not question and not response:
            role_indexes = set(columns.values())
            stray = sum(1 for i, value in enumerate(cells) if value.strip() and i not in role_indexes)
            reason += f"; question and response empty, {stray} cell(s) in other columns ignored"
        return SkippedRow(number, reason)
    if not accuracy_cell or not sc_cell:
        empty, other, value = (
            ("accuracy", "self-contra", sc_cell)
            if not accuracy_cell
            else ("self-contra", "accuracy", accuracy_cell)
        )
        type_cell = cell("type")
        extra = f", type '{type_cell}'" if type_cell else ""
        return SkippedRow(number, f"partially annotated: {empty} empty ({other} '{value}'{extra})")
    correct = _FLAG_VALUES.get(_code_key(accuracy_cell))
    if correct is None:
        return SkippedRow(number, f"accuracy '{accuracy_cell}' is not 0/1")
    code = _SC_CODES.get(_code_key(sc_cell))
    if code is None:
        return SkippedRow(number, f"self-contra '{sc_cell}' is not a known code (0/1, or type codes 2/3/4/6)")
    if not question or not response:
        return SkippedRow(number, f"annotated but the {'question' if not question else 'response'} is empty")

    self_contra, code_type, code_category = code
    notes: list[str] = []
    categories: list[str] = []
    if code_category == "no_reasoning":
        notes.append(f"self-contra code {sc_cell} (no reasoning) counted as not self-contradictory")
    elif code_category == "no_answer":
        notes.append(f"self-contra code {sc_cell} (no answer) counted as not self-contradictory")
    elif code_type is not None:
        notes.append(f"self-contra code {sc_cell} read as self-contradictory with {code_type} implied")
    if code_category:
        categories.append(code_category)

    type_cell = cell("type")
    explicit: str | None = None
    if type_cell:
        explicit, recognised = _parse_type(type_cell)
        if not recognised:
            found, unknown, category_notes = _parse_categories(type_cell)
            notes.extend(category_notes)
            if unknown:
                notes.append(f"type '{type_cell}' not recognised; type derived from the flags")
            else:
                notes.append(
                    f"type cell '{type_cell}' holds finer-grained categories; type derived from the flags"
                )
            categories.extend(c for c in found if c not in categories)
    finer_cell = cell("finer")
    if finer_cell:
        found, unknown, category_notes = _parse_categories(finer_cell)
        notes.extend(category_notes)
        notes.extend(f"category '{word}' not recognised, ignored" for word in unknown)
        categories.extend(c for c in found if c not in categories)

    implied = _implied_by_categories(correct, categories)
    conflict = explicit is None and code_category is None and implied is not None and implied != self_contra
    if conflict:
        notes.append(
            f"categories {', '.join(categories)} with accuracy={accuracy_cell} imply "
            f"{'Self-Contra' if implied else 'not Self-Contra'}, self-contra={sc_cell}; the flag counts"
        )

    candidate = explicit or code_type
    if candidate is None and self_contra and "self_contradictory" in categories:
        candidate = "type3"
    derived = _derive_type(correct, self_contra)
    if candidate is None or candidate == _NOT_SC:
        type_ = derived
        if candidate == _NOT_SC and self_contra:
            notes.append(
                f"type '{type_cell}' (not self-contra) conflicts with self-contra={sc_cell}; {derived}"
            )
    elif _agrees(candidate, correct, self_contra):
        type_ = candidate
    else:
        type_ = derived
        shown = type_cell if explicit else f"code {sc_cell}" if code_type else "self_contradictory category"
        notes.append(
            f"type '{shown}' ({candidate}) conflicts with accuracy={accuracy_cell}, self-contra={sc_cell}; "
            f"derived {derived}"
        )

    ids = {role: cell(role) for role in ("dataset", "model", "setting")}
    raw = {names[i] if i < len(names) else f"col{i}": value for i, value in enumerate(cells)}
    return AnnotationRow(
        source=source,
        row_number=number,
        dataset=overrides["dataset"] or ids["dataset"] or defaults["dataset"],
        model=overrides["model"] or ids["model"] or defaults["model"],
        setting=overrides["setting"] or ids["setting"] or defaults["setting"],
        question=question,
        response=response,
        correct=correct,
        self_contra=self_contra,
        type=type_,
        categories=categories,
        raw=raw,
        notes=notes,
        flag_conflict=conflict,
    )


_WRONG_REASONING = frozenset(
    {"questionable_cause", "begging_the_question", "wrong_context_knowledge", "wrong_external_knowledge"}
)
_RIGHT_REASONING = frozenset({"evidence_missing", "incomplete_reasoning"})


def _implied_by_categories(correct: bool, categories: Sequence[str]) -> bool | None:
    """Self-Contra as §3 defines it from the categories alone, or None when they do not decide.

    A wrong-reasoning category (§3.2) with a right answer is Type2; only correct-reasoning categories
    (§3.1) with a wrong answer is Type1; self-contradictory is Type3; a wrong-reasoning category with a
    wrong answer is WW.  A correct-reasoning category with a right answer (RR) or no category says nothing.
    """
    found = set(categories)
    if "self_contradictory" in found:
        return True
    if found & _WRONG_REASONING:
        return correct
    if found & _RIGHT_REASONING and not correct:
        return True
    return None


def _text(value: Any) -> str:
    return "" if value is None else str(value)
