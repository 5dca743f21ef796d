"""Human Self-Contra annotations: read the study's CSVs (and any CSV of the same shape), write new ones.

Why: the study's numbers (accuracy, Self-Contra rate, Type1/2/3 counts, finer-grained categories) rest on
human annotations of real model responses, released as hand-edited spreadsheets whose headers differ from
file to file (three have none), whose codes drifted while annotating and whose last rows are often not
annotated yet.  Comparing our models' responses or an automatic detector against them needs one reader
that is strict about what a row says but never gives up on a file because of one odd cell; and annotating
new responses needs a file a person can fill in that the same reader reads back.

Columns
    By header name when the first record holds a known name (``question``/``prompt``/``prompt_question``,
    ``result``/``results``/``response``, ``acc``/``accuracy``, ``self-contra``, ``type``/``label``,
    ``finer``/``finer-grained``, and the id columns that :func:`export_for_annotation` writes).  Otherwise
    (headerless files start with a ``Question:...`` prompt) the roles are inferred from the values: the
    prompt column, the long text after it (the response), the first two 0/1-code columns after that
    (accuracy, then self-contra), then a type column if its values look like types, then the category text.
    Other columns (notes, ``?``, ``#REF!``, a stray copy of other columns) are kept in ``raw`` only.
    Missing question, response, accuracy or self-contra is a :class:`ConfigError` for the file.

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

    def summary(self) -> dict[str, Any]:
        """Accuracy and SCR as in the study's Table 2 (SCR = #Self-Contra / #annotated), plus type counts."""
        n = len(self.rows)
        types = [row.type for row in self.rows]
        return {
            "dataset": self.dataset,
            "model": self.model,
            "setting": self.setting,
            "n": n,
            "accuracy": sum(row.correct for row in self.rows) / n if n else None,
            "scr": sum(row.self_contra for row in self.rows) / n if n else None,
            "n_type1": types.count("type1"),
            "n_type2": types.count("type2"),
            "n_type3": types.count("type3"),
            "n_rr": types.count("RR"),
            "n_ww": types.count("WW"),
            "skipped": len(self.skipped),
        }


def parse_source_name(path: str | Path) -> tuple[str, str, str]:
    """``<dataset>_<zero|few>_<answer|reason>_<model>.csv`` -> (dataset, setting, model); gaps -> "unknown".

    Only a ``.csv`` suffix is dropped, because model names carry dots (``gpt3.5``).
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
) -> ImportResult:
    """Read one annotation CSV (see the module docstring for every rule); never raises for a row.

    ``dataset``/``model``/``setting`` override the file name and the id columns; without them a row's own
    ``model``/``setting``/``dataset`` cell (exported files) wins over the file name.
    """
    path = Path(path)
    if limit is not None and limit < 0:
        raise ConfigError(f"{path}: limit must be >= 0, got {limit}")
    try:
        records, parse_error = _read_records(path)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read annotation file ({exc.strerror or exc})") from exc
    if not records:
        raise ConfigError(f"{path}: empty annotation file (no header, no rows)")

    columns = _named_columns(records[0])
    if columns is not None:
        header, names, body = "named", _header_names(records[0]), records[1:]
    else:
        columns = _infer_columns(records)
        header, body = "none (inferred)", records
        names = _inferred_names(columns, max(len(record) for record in records))
    missing = [role for role in MANDATORY_ROLES if role not in columns]
    if missing:
        found = ", ".join(f"{role}={index}" for role, index in columns.items()) or "none"
        raise ConfigError(
            f"{path}: missing mandatory column(s) {', '.join(missing)} "
            f"(header {header}; roles found: {found})"
        )

    # File-level labels: argument, else the file name, else an id column that holds one value throughout.
    from_name = dict(zip(("dataset", "setting", "model"), parse_source_name(path), strict=True))
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
            result.rows.append(parsed)
    if parse_error and (limit is None or len(result.rows) < limit):
        result.skipped.append(SkippedRow(len(body) + 1, parse_error))
    return result


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


def _named_columns(first: Sequence[str]) -> dict[str, int] | None:
    """Roles from a header row, or None when the first record is data (a prompt, not a column name)."""
    if any("\n" in cell or len(cell.strip()) > 80 for cell in first):
        return None
    columns: dict[str, int] = {}
    for index, cell in enumerate(first):
        role = _HEADER_ALIASES.get(_normalise_header(cell))
        if role is not None and role not in columns:
            columns[role] = index
    return columns or None


def _header_names(first: Sequence[str]) -> list[str]:
    names: list[str] = []
    for index, cell in enumerate(first):
        name = cell.strip() or f"col{index}"
        names.append(f"{name}#{index}" if name in names else name)
    return names


def _inferred_names(columns: dict[str, int], width: int) -> list[str]:
    by_index = {index: _ROLE_LABELS.get(role, role) for role, index in columns.items()}
    return [by_index.get(index, f"col{index}") for index in range(width)]


def _code_key(value: str) -> str:
    """'1', '1.0', ' 1 ' -> '1' (spreadsheets export integers as floats); other text lower-cased."""
    value = value.strip().lower()
    match = _CODE_NUMBER.match(value)
    return match.group(1) if match else value


def _infer_columns(records: list[list[str]]) -> dict[str, int]:
    """Roles of a headerless file from its values (see the module docstring for the order)."""
    width = max(len(record) for record in records)
    stats = []
    for index in range(width):
        values = [
            record[index].strip() for record in records if index < len(record) and record[index].strip()
        ]
        n = len(values)
        stats.append(
            {
                "n": n,
                "codes": sum(_code_key(v) in _SC_CODES for v in values) / n if n else 0.0,
                "question": sum(v.lower().startswith("question") for v in values) / n if n else 0.0,
                "length": sum(len(v) for v in values) / n if n else 0.0,
            }
        )
    columns: dict[str, int] = {}
    question_like = [i for i in range(width) if stats[i]["question"] >= 0.5]
    long_text = [i for i in range(width) if stats[i]["length"] >= 20 and stats[i]["codes"] < 0.5]
    if question_like:
        columns["question"] = question_like[0]
    elif long_text:
        columns["question"] = long_text[0]
    else:
        return columns
    responses = [i for i in long_text if i > columns["question"]]
    if not responses:
        return columns
    columns["response"] = responses[0]
    codes = [i for i in range(columns["response"] + 1, width) if stats[i]["n"] and stats[i]["codes"] >= 0.9]
    if len(codes) < 2:
        if codes:
            columns["accuracy"] = codes[0]
        return columns
    columns["accuracy"], columns["self_contra"] = codes[0], codes[1]
    after = columns["self_contra"] + 1
    if after < width:
        type_votes = category_votes = 0
        for record in records:
            value = record[after].strip() if after < len(record) else ""
            if value:
                type_votes += _parse_type(value)[0] is not None
                category_votes += bool(_parse_categories(value)[0])
        if type_votes >= category_votes:
            columns["type"] = after
            if after + 1 < width:
                columns["finer"] = after + 1
        else:
            columns["finer"] = after
    return columns


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
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value)
