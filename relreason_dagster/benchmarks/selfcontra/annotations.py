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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.selfcontra.annotation_codes import (
    FLAG_VALUES,
    NOT_SC,
    SC_CODES,
    code_key,
    derive_type,
    implied_by_categories,
    parse_categories,
    parse_type,
    type_agrees,
)
from relreason_dagster.benchmarks.selfcontra.annotation_columns import (
    MANDATORY_ROLES,
    PLACEHOLDER_HEADER,
    header_kind,
    header_label,
    infer_column_roles,
    named_columns,
)
from relreason_dagster.common.atomic_files import atomic_open
from relreason_dagster.common.user_files import user_file
from relreason_dagster.errors import ConfigError

# The study's header, in its order, so that a filled-in export looks like the released files.
EXPORT_COLUMNS = ("question", "result", "accuracy", "self-contra", "type", "finer-grained")
EXPORT_ID_COLUMNS = ("response_id", "model", "setting", "dataset", "split", "gold", "predicted")
# Names used in ``raw`` for columns whose role was inferred (headerless files).
_ROLE_LABELS = dict(
    zip(("question", "response", "accuracy", "self_contra", "type", "finer"), EXPORT_COLUMNS, strict=True)
)


_KNOWN_DATASETS = ("winobias", "winogender", "winogrande")
_SETTING_SHOT = {"zero": "zero", "zeroshot": "zero", "zero-shot": "zero"}
_SETTING_SHOT |= {"few": "few", "fewshot": "few", "few-shot": "few"}
_SETTING_ORDER = {"answer": "answer", "answer-first": "answer", "reason": "reason", "reason-first": "reason"}


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

    kind = header_kind(records[0], records[1:])
    body = records if kind is None else records[1:]
    width = max(len(record) for record in records)
    known = named_columns(records[0]) if kind == "named" else {}
    # The release's layout may decide the 0/1 pair only in a file named as the release names its section-2
    # files and naming no column itself (its Claude WinoGender files): see infer_column_roles.
    release_layout = kind in (None, "placeholder") and parse_source_name(path)[1] != "unknown"
    inference = infer_column_roles(
        [[record[i] if i < len(record) else "" for record in body] for i in range(width)],
        known,
        release_layout=release_layout,
    )
    columns = inference.columns
    header = header_label(kind, inferred=set(columns) - set(known))
    if inference.problem:
        raise AnnotationFileError(path, f"{inference.problem} (header {header})")
    missing = [role for role in MANDATORY_ROLES if role not in columns]
    if missing:
        found = ", ".join(f"{role}={index}" for role, index in columns.items()) or "none"
        raise AnnotationFileError(
            path, f"missing mandatory column(s) {', '.join(missing)} (header {header}; roles found: {found})"
        )
    names = _column_names(records[0] if kind else None, columns, width)

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
            # The argument, else the row's own split cell (an exported file), else the file name's.
            parsed.split = split or parsed.split or labels.split
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
    with user_file(path, fix="choose another --out path or make its folder writable"):
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(path, "w", encoding="utf-8-sig", newline="") as handle:  # whole or not at all
            writer = csv.writer(handle)
            writer.writerow([*EXPORT_COLUMNS, *EXPORT_ID_COLUMNS])
            writer.writerows(rows)
    return len(rows)


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


def _column_names(first: Sequence[str] | None, columns: dict[str, int], width: int) -> list[str]:
    """Keys of ``AnnotationRow.raw``: a header's own words, else the role label, else ``col<i>``."""
    by_index = {index: _ROLE_LABELS.get(role, role) for role, index in columns.items()}
    names: list[str] = []
    for index in range(width):
        cell = first[index].strip() if first is not None and index < len(first) else ""
        if not cell or PLACEHOLDER_HEADER.match(cell):
            cell = by_index.get(index, f"col{index}")
        names.append(f"{cell}#{index}" if cell in names else cell)
    return names


def _unique_cell(records: list[list[str]], index: int | None) -> str | None:
    if index is None:
        return None
    values = {record[index].strip() for record in records if index < len(record) and record[index].strip()}
    return values.pop() if len(values) == 1 else None


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
    correct = FLAG_VALUES.get(code_key(accuracy_cell))
    if correct is None:
        return SkippedRow(number, f"accuracy '{accuracy_cell}' is not 0/1")
    code = SC_CODES.get(code_key(sc_cell))
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
        explicit, recognised = parse_type(type_cell)
        if not recognised:
            found, unknown, category_notes = parse_categories(type_cell)
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
        found, unknown, category_notes = parse_categories(finer_cell)
        notes.extend(category_notes)
        notes.extend(f"category '{word}' not recognised, ignored" for word in unknown)
        categories.extend(c for c in found if c not in categories)

    implied = implied_by_categories(correct, categories)
    conflict = explicit is None and code_category is None and implied is not None and implied != self_contra
    if conflict:
        notes.append(
            f"categories {', '.join(categories)} with accuracy={accuracy_cell} imply "
            f"{'Self-Contra' if implied else 'not Self-Contra'}, self-contra={sc_cell}; the flag counts"
        )

    candidate = explicit or code_type
    if candidate is None and self_contra and "self_contradictory" in categories:
        candidate = "type3"
    derived = derive_type(correct, self_contra)
    if candidate is None or candidate == NOT_SC:
        type_ = derived
        if candidate == NOT_SC and self_contra:
            notes.append(
                f"type '{type_cell}' (not self-contra) conflicts with self-contra={sc_cell}; {derived}"
            )
    elif type_agrees(candidate, correct, self_contra):
        type_ = candidate
    else:
        type_ = derived
        shown = type_cell if explicit else f"code {sc_cell}" if code_type else "self_contradictory category"
        notes.append(
            f"type '{shown}' ({candidate}) conflicts with accuracy={accuracy_cell}, self-contra={sc_cell}; "
            f"derived {derived}"
        )

    ids = {role: cell(role) for role in ("dataset", "model", "setting", "split")}
    raw = {names[i] if i < len(names) else f"col{i}": value for i, value in enumerate(cells)}
    return AnnotationRow(
        source=source,
        row_number=number,
        dataset=overrides["dataset"] or ids["dataset"] or defaults["dataset"],
        model=overrides["model"] or ids["model"] or defaults["model"],
        setting=overrides["setting"] or ids["setting"] or defaults["setting"],
        split=ids["split"] or None,
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


def _text(value: Any) -> str:
    return "" if value is None else str(value)
