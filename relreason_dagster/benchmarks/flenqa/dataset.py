"""The study's released FLenQA dataset (``FLenQA_hf.jsonl`` or its parquet copy) as samples.

The study released the exact texts it asked: 300 base problems (100 per task) x 40 padded variants,
one row each, with ``global_sample_id, sample_id, label, dataset, facts`` (Ruletaker: ``rule`` and
``statement`` instead), ``assertion/question, mixin, padding_type, dispersion, ctx_size`` (the
format of the study's analysis notebook, alonj/Same-Task-More-Tokens).  ``mixin`` is the padded text
without instructions; our prompts put it, byte for byte, where the generated text would go, with the
row's question.  Nothing is generated on such a run: these rows are the samples.

The study's names map onto ours: ``padding_type`` ``same`` (resampling from the task) -> ``similar``,
``books`` (Books Corpus) -> ``different``, ``identity`` / ``duplicate`` -> ``duplicate``;
``dispersion`` first / middle / last / random is our position; ``ctx_size`` our length.  The release
holds no minimal texts and no duplicate rows: ``released_keys.py`` builds them from its key paragraphs.

Every field of every row is checked for its type and bounded by the release's own ranges
(``release_bounds.py``: the ``mixin``'s length by its ``ctx_size``, ``ctx_size`` by the study's five
lengths, ids as scalars).  A file with any problem is used not at all: a truncated file, a row of the
wrong shape or a value out of range is a :class:`Problem` naming its line (``relreason flenqa import``
prints each), and a run on such a file is one ConfigError line.  No value JSON can hold (NaN,
Infinity, a 5,000-digit number, nesting 100,000 deep, a 150 MB text) and no byte sequence raises
anything else.  Any file of this format is read the same way, whatever its size or order.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from relreason_dagster import paths
from relreason_dagster.benchmarks.base import Sample, stable_hash
from relreason_dagster.benchmarks.flenqa import release_bounds
from relreason_dagster.benchmarks.flenqa.instances import MONOREL, PIR, RULETAKER
from relreason_dagster.benchmarks.flenqa.prompts import split_last_word
from relreason_dagster.common.user_files import file_error
from relreason_dagster.errors import ConfigError

RELEASED_VERSION = "flenqa-released-1"
SOURCE = "released"  # variant.source of a released row; generated samples carry no source
IMPORTED_NAME = "FLenQA.jsonl"  # what `relreason flenqa import` writes, under RELREASON_HOME/imports/flenqa

TASK_NAMES = {
    "monorel": MONOREL,
    "pir": PIR,
    "people in rooms": PIR,
    "simplified ruletaker": RULETAKER,
    "ruletaker": RULETAKER,
    "ruletaker*": RULETAKER,
}
PADDING_NAMES = {
    "same": "similar",
    "similar": "similar",
    "books": "different",
    "different": "different",
    "identity": "duplicate",
    "duplicate": "duplicate",
}
DISPERSIONS = ("first", "middle", "last", "random")
REQUIRED = (
    "sample_id",
    "label",
    "dataset",
    "assertion/question",
    "mixin",
    "padding_type",
    "dispersion",
    "ctx_size",
)
# Every field of a released row: what the import checks and stores (an unknown field is dropped).
FIELDS = (*REQUIRED, "global_sample_id", "facts", "rule", "statement")


def imported_path() -> Path:
    """Where ``relreason flenqa import`` keeps the file: ``$RELREASON_HOME/imports/flenqa/FLenQA.jsonl``
    (under ``paths.imports_dir``, whose listing is an input of the samples: an import rebuilds them)."""
    return paths.imports_dir() / "flenqa" / IMPORTED_NAME


def resolve(value: str | None) -> Path | None:
    """The profile's ``dataset_file``: None (generated items), ``auto`` (the imported file when there
    is one, generated items otherwise) or a path (it must exist: a missing file is an error, never a
    quiet fall back to generated items)."""
    if value is None or str(value).strip() == "":
        return None
    if str(value).strip() == "auto":
        found = imported_path()
        return found if found.is_file() else None
    file = Path(str(value)).expanduser()
    if not file.is_file():
        raise ConfigError(
            f"flenqa dataset_file {file} not found; give the released FLenQA_hf.jsonl (or its parquet), "
            "or run `relreason flenqa import PATH` and set dataset_file: auto"
        )
    return file


@dataclass(frozen=True)
class Problem:
    """Why a row (or the file) cannot be imported: its 1-based line (jsonl) or row (parquet) and why.

    ``str()`` is the one line the CLI prints: ``line 12: ctx_size 10000 is not one of ...``.
    """

    row: int
    reason: str
    unit: str = "row"

    def __str__(self) -> str:
        return f"{self.unit} {self.row}: {self.reason}"


Skipped = Problem  # a row a run leaves out (the same row again); the name the run's log has used


@dataclass
class Checked:
    """A file's rows after every check: the usable ones, and every problem found (none: importable).

    ``rows`` holds ``(number, row, facts)``: the row reduced to the release's own fields (an unknown
    field is not stored), each of them checked, and what :func:`check_row` read from it.
    """

    unit: str
    n_rows: int = 0
    rows: list[tuple[int, dict[str, Any], dict[str, Any]]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def rows_with_problems(self) -> int:
        """How many rows have at least one problem (a row may have several)."""
        return len({p.row for p in self.problems})


class _NotJson(Exception):
    """NaN, Infinity or -Infinity: Python's json reads them, JSON does not allow them."""


def _reject_constant(name: str) -> Any:
    raise _NotJson(name)


def check_file(path: str | Path) -> Checked:
    """Read and check every row of a jsonl or parquet file in the released format.

    Never raises for what a row holds (any JSON value, non-UTF-8 bytes, a line of any length): each is
    a :class:`Problem`.  A file that cannot be read at all (missing, unreadable, not parquet) is one
    ConfigError line naming the fix.
    """
    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError(
            f"FLenQA dataset file {file} not found; give the released FLenQA_hf.jsonl or its parquet"
        )
    if file.suffix == ".parquet":
        return _check_parquet(file)
    checked = Checked(unit="line")
    try:
        with file.open("rb") as handle:
            for number, raw, size in _lines(handle):
                if not raw.strip():
                    continue  # a blank line is no row
                checked.n_rows += 1
                row, reason = _parse_line(raw, size)
                if reason is None:
                    reason = _whole_line_problem(row)
                if reason is not None:
                    checked.problems.append(Problem(number, reason, "line"))
                    continue
                _check_into(checked, number, row, "line")
    except OSError as exc:
        raise file_error(file, exc, doing="read") from None
    if checked.n_rows == 0:
        raise ConfigError(f"{file} holds no rows; give the released FLenQA_hf.jsonl or its .parquet")
    if checked.problems and not checked.rows and checked.rows_with_problems() == checked.n_rows:
        kinds = {p.reason.split(" (")[0] for p in checked.problems}
        if kinds <= {"not a JSON object", "not JSON", "not UTF-8 text"}:
            raise ConfigError(
                f"{file} holds no JSON object per line; give the released FLenQA_hf.jsonl or its .parquet"
            )
    return checked


def _lines(handle: IO[bytes]) -> Any:
    """``(line number, bytes, size)`` for each line, reading at most ``max_row_bytes()`` of any line.

    A longer line yields only its first bytes and its whole size (the rest is read in chunks and
    dropped), so no line costs more memory than a row within the bounds can take.
    """
    limit = release_bounds.max_row_bytes()
    number = 0
    while True:
        raw = handle.readline(limit + 1)
        if not raw:
            return
        number += 1
        size = len(raw)
        if size > limit:
            tail = raw
            while tail and not tail.endswith(b"\n"):
                tail = handle.readline(1 << 20)
                size += len(tail)
            yield number, raw[:limit], size
            continue
        yield number, raw, size


def _parse_line(raw: bytes, size: int) -> tuple[Any, str | None]:
    """A line's JSON value, or why it has none (truncated, too long, not UTF-8, not JSON)."""
    limit = release_bounds.max_row_bytes()
    if size > limit:
        return None, (
            f"a line of {size:,} bytes, longer than any row within the release's bounds "
            f"({limit:,}); is it the FLenQA file?"
        )
    cut = not raw.endswith(b"\n")  # only the file's last line can end without a newline
    truncated = "the file ends mid-row here: it is truncated; download it again"
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        if cut:
            return None, truncated
        bad = raw[exc.start : exc.start + 1].hex()
        return None, f"not UTF-8 text (byte 0x{bad} at byte {exc.start + 1}); save the file as UTF-8"
    try:
        return json.loads(text, parse_constant=_reject_constant), None
    except json.JSONDecodeError as exc:
        if cut:
            return None, truncated
        return None, f"not JSON ({exc.msg} at column {exc.colno}); one JSON object per line"
    except _NotJson as exc:
        return None, f"holds {exc.args[0]}, which is not JSON (no field of the release is a non-number)"
    except RecursionError:
        return None, "nested too deeply to read (no field of the release nests more than a list of texts)"
    except ValueError:  # Python reads no integer of more than 4,300 digits
        return None, "holds a number too long to read (no field of the release is a number that long)"


def _whole_line_problem(value: Any) -> str | None:
    """None for a JSON object; else the one reason the line is no row."""
    if isinstance(value, dict):
        return None
    return f"not a JSON object ({_show(value)}); one object per line"


def _check_parquet(file: Path) -> Checked:
    try:
        import pyarrow.parquet as pq

        table = pq.read_table(file)
        rows = table.to_pylist()
    except Exception as exc:  # noqa: BLE001 - any reader failure is the same one-line answer
        raise ConfigError(
            f"{file} is not a readable parquet file ({type(exc).__name__}: truncated, or not parquet); "
            "give the released file"
        ) from None
    checked = Checked(unit="row", n_rows=len(rows))
    if not rows:
        raise ConfigError(f"{file} holds no rows; give the released FLenQA_hf.jsonl or its .parquet")
    for number, row in enumerate(rows, start=1):
        _check_into(checked, number, row, "row")
    return checked


def _check_into(checked: Checked, number: int, row: dict[str, Any], unit: str) -> None:
    facts, stored, problems = check_row(row)
    if problems:
        checked.problems.extend(Problem(number, reason, unit) for reason in problems)
    elif facts is not None and stored is not None:
        checked.rows.append((number, stored, facts))


def read_rows(path: str | Path) -> list[dict[str, Any]]:
    """The usable rows of a file that passes every check; ConfigError (the first problem) otherwise."""
    checked = check_file(path)
    if checked.problems:
        raise ConfigError(_refusal(path, checked))
    return [row for _, row, _ in checked.rows]


def _refusal(path: str | Path, checked: Checked) -> str:
    return (
        f"{path}: {len(checked.problems):,} problem(s) in {checked.rows_with_problems():,} of "
        f"{checked.n_rows:,} rows (first: {checked.problems[0]}); `relreason flenqa import {path}` "
        "lists each; fix them or download the release again"
    )


# --- One row ---------------------------------------------------------------------------------------


def _kind(value: Any) -> str:
    """A value's JSON kind, in words (never its contents: a value may be 150 MB or nested deep)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        return "a decimal number"
    if isinstance(value, str):
        return "a text"
    if isinstance(value, dict):
        return "a JSON object"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, bytes | bytearray):
        return "bytes"
    return type(value).__name__


def _show(value: Any) -> str:
    """A value for a one-line message: short values as they are, long ones cut, containers by kind."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if abs(value) < 10**40:
            return str(value)
        # str() of an int fails past 4,300 digits: its size instead
        return f"{'-' if value < 0 else ''}~10^{int(value.bit_length() * math.log10(2))}"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        if len(value) <= 40:
            return repr(value)
        return f"{value[:30]!r}… ({len(value):,} characters)"
    return _kind(value)


def _name(
    value: Any, key: str, known: dict[str, str] | tuple[str, ...], choices: str
) -> tuple[str | None, str | None]:
    """A short name field (``dataset``, ``padding_type``, ``dispersion``): our name for it, or why not."""
    if not isinstance(value, str):
        return None, f"{key} is {_kind(value)}, not a text ({choices})"
    if len(value) > release_bounds.MAX_NAME_CHARS:
        return None, f"{key} is {len(value):,} characters, not a name ({choices})"
    name = value.strip().lower()
    found = known.get(name) if isinstance(known, dict) else (name if name in known else None)
    if found is None:
        return None, f"{key} {_show(value)} unknown ({choices})"
    return found, None


def _id(value: Any, key: str) -> str | None:
    """Why ``value`` is no id (a text of at most MAX_ID_CHARS, or a whole number in range), or None."""
    if isinstance(value, str):
        if not value.strip():
            return f"{key} is an empty text"
        if len(value) > release_bounds.MAX_ID_CHARS:
            return f"{key} is {len(value):,} characters; an id is at most {release_bounds.MAX_ID_CHARS}"
        return _characters(value, key)
    if isinstance(value, int) and not isinstance(value, bool):
        if 0 <= value < release_bounds.MAX_INT_ID:
            return None
        return f"{key} {_show(value)} is out of range (0 to {release_bounds.MAX_INT_ID - 1:,})"
    return f"{key} is {_kind(value)}; an id is a text or a whole number"


def _length(value: Any) -> tuple[int | None, str | None]:
    """``ctx_size``: one of the study's lengths, as a whole number (an integral decimal is read too)."""
    lengths = ", ".join(map(str, release_bounds.STUDY_LENGTHS))
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None, f"ctx_size is {_kind(value)}, not a number of tokens (the study's: {lengths})"
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        return None, f"ctx_size {_show(value)} is not a whole number of tokens (the study's: {lengths})"
    if value not in release_bounds.STUDY_LENGTHS:
        return None, f"ctx_size {_show(value)} is not one of the study's lengths ({lengths})"
    return int(value), None


def _label(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str) and len(value) < 10 and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    return None


def _text(value: Any, key: str, most: int) -> str | None:
    """Why ``value`` is no text of at most ``most`` characters, or None."""
    if not isinstance(value, str):
        return f"{key} is {_kind(value)}, not a text"
    if not value or value.isspace():  # not strip(): no copy of a long text
        return f"{key} is an empty text"
    if len(value) > most:
        return f"{key} is {len(value):,} characters; at most {most:,}"
    return _characters(value, key, prose=True)


# C0 control characters (NUL, escape, ...): none in an id; in a text all but tab, newline and CR.  (C1
# and DEL are left alone: a text mis-decoded from cp1252 carries them and is still prose.)  Found in
# the UTF-8 bytes, where no multi-byte character has a byte below 0x80: ``translate`` deletes every
# other byte in C, many times faster than a regex over 70 MB of text.
_C0 = bytes(range(32))
_NOT_CONTROL = bytes(b for b in range(256) if b not in _C0)
_NOT_CONTROL_IN_TEXT = bytes(b for b in range(256) if b not in _C0 or b in b"\t\n\r")


def _characters(value: str, key: str, prose: bool = False) -> str | None:
    """Why ``value`` holds something no text of the release does, or None.

    A lone UTF-16 surrogate (JSON spells ``"\\ud800"``, UTF-8 cannot: the stored file could not be
    written) and a control character (the release is prose: only tab, newline and carriage return in
    its texts, none in an id).
    """
    try:
        data = value.encode("utf-8")
    except UnicodeEncodeError:
        return f"{key} holds a lone surrogate escape (\\ud800-\\udfff), which is no character"
    control = data.translate(None, _NOT_CONTROL_IN_TEXT if prose else _NOT_CONTROL)
    if control:
        return f"{key} holds the control character U+{control[0]:04X}; the release's texts are prose"
    return None


def _texts(value: Any, key: str) -> tuple[list[str] | None, str | None]:
    """A list of key texts (or one text as a one-item list) within the bounds, or why not."""
    most = release_bounds.max_key_text_chars()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        return None, f"{key} is {_kind(value)}, not a list of texts"
    if not items:
        return None, f"{key} is an empty list"
    if len(items) > release_bounds.MAX_KEY_TEXTS:
        return (
            None,
            f"{key} holds {len(items):,} texts; the study's have two "
            f"(at most {release_bounds.MAX_KEY_TEXTS})",
        )
    for n, item in enumerate(items, start=1):
        reason = _text(item, f"{key} item {n}" if not isinstance(value, str) else key, most)
        if reason is not None:
            return None, reason
    return list(items), None


def check_row(row: dict[str, Any]) -> tuple[dict[str, Any] | None, dict[str, Any] | None, list[str]]:
    """``(facts, stored row, [])`` for a usable row, ``(None, None, problems)`` otherwise.

    Every field the release has is checked for its type and bounded (``release_bounds``): the texts by
    length (the ``mixin`` by its ``ctx_size``), ``ctx_size`` by the study's lengths, the ids as scalars.
    The stored row keeps only the release's fields, so nothing unchecked is ever written.
    """
    problems: list[str] = []
    missing = [k for k in REQUIRED if row.get(k) is None or row.get(k) == ""]
    if missing:
        problems.append(f"missing {', '.join(missing)}")
    present = {k: v for k, v in row.items() if k in FIELDS and v is not None}  # the file's order

    def check(reason: str | None) -> None:
        if reason is not None:
            problems.append(reason)

    for key in ("sample_id", "global_sample_id"):
        if key in present:
            check(_id(present[key], key))
    task = padding = position = length = label = None
    if "dataset" in present:
        task, reason = _name(present["dataset"], "dataset", TASK_NAMES, "MonoRel, PIR, Simplified RuleTaker")
        check(reason)
    if "padding_type" in present:
        padding, reason = _name(
            present["padding_type"], "padding_type", PADDING_NAMES, ", ".join(PADDING_NAMES)
        )
        check(reason)
    if "dispersion" in present:
        position, reason = _name(present["dispersion"], "dispersion", DISPERSIONS, ", ".join(DISPERSIONS))
        check(reason)
    if "ctx_size" in present:
        length, reason = _length(present["ctx_size"])
        check(reason)
    if "label" in present:
        label = _label(present["label"])
        if label is None:
            value = present["label"]
            scalar = isinstance(value, str | int | float)  # shown as it is; a container by its kind
            check(
                f"label {_show(value)} is not True or False"
                if scalar
                else f"label is {_kind(value)}, not True or False"
            )
    if "assertion/question" in present:
        check(_text(present["assertion/question"], "assertion/question", release_bounds.MAX_QUESTION_CHARS))
    if "mixin" in present:
        check(_mixin(present["mixin"], length))
    texts: dict[str, list[str]] = {}
    for key in ("facts", "rule", "statement"):
        if key in present:
            found, reason = _texts(present[key], key)
            check(reason)
            if found is not None:
                texts[key] = found
    if task == RULETAKER and not problems and not ("rule" in texts and "statement" in texts):
        problems.append("a Ruletaker row needs rule and statement texts")
    if task not in (None, RULETAKER) and not problems and "facts" not in texts:
        problems.append("facts is not a list of texts")
    if problems or task is None or length is None or label is None:
        return None, None, problems
    keys = texts["statement"] if task == RULETAKER else texts["facts"]
    return (
        {
            "task": task,
            "padding": padding,
            "position": position,
            "length": length,
            "label": label,
            "key_sentences": keys,
            "rule": " ".join(texts["rule"]) if task == RULETAKER else "",
            "study_rule": _as_notebook_prints(present["rule"], texts["rule"]) if task == RULETAKER else "",
        },
        {**present, "ctx_size": length},
        [],
    )


def _as_notebook_prints(value: Any, texts: list[str]) -> str:
    """The rule as the study's notebook puts it in a prompt: its f-string prints the released value, so a
    text is itself and a list prints as Python prints a list (``['If X is A then X is B.']``;
    ``FLenQA analysis.ipynb`` code cell 5, ``prompt_structures``).  Used by ``layout: study`` only."""
    return value if isinstance(value, str) else str(list(texts))


def _mixin(value: Any, length: int | None) -> str | None:
    """Why the padded text is no text of its ``ctx_size`` (``release_bounds.mixin_chars``), or None."""
    most_ever = release_bounds.mixin_chars(max(release_bounds.STUDY_LENGTHS))[1]
    reason = _text(value, "mixin", most_ever)
    if reason is not None or length is None:
        return reason
    low, high = release_bounds.mixin_chars(length)
    if not low <= len(value) <= high:
        return (
            f"mixin is {len(value):,} characters; a {length}-token row of the study's has {low:,} to {high:,}"
        )
    return None


def released_samples(
    path: str | Path,
    seed: int,
    tokens: Any = None,
    grid: dict[str, Any] | None = None,
    tokenizer: str | None = None,
) -> tuple[list[Sample], list[Skipped]]:
    """The file's rows as FLenQA samples, and the rows left out with why (the same row again).

    A file with any problem (:func:`check_file`) is one ConfigError line, as ``relreason flenqa
    import`` refuses it: a run never asks part of a file.  ``grid`` (the profile's ``tasks``,
    ``lengths``, ``paddings``, ``positions``, ``n_base``) keeps the rows of the profile's cells, and at
    most ``n_base`` base problems per task (the first ones in file order); rows outside it are not
    skipped, just not asked.  ``tokens`` (a text -> token count function) records each text's length
    in the profile's tokenizer (``estimated_tokens``), named by ``tokenizer``.
    """
    grid = grid or {}
    checked = check_file(path)
    if checked.problems:
        raise ConfigError(_refusal(path, checked))
    samples: list[Sample] = []
    skipped: list[Skipped] = []
    bases: dict[str, list[str]] = {}
    seen: set[str] = set()
    for number, row, facts in checked.rows:
        task = facts["task"]
        if not _in_grid(facts, grid):
            continue
        base = str(row["sample_id"])
        known = bases.setdefault(task, [])
        if base not in known:
            if grid.get("n_base") is not None and len(known) >= int(grid["n_base"]):
                continue
            known.append(base)
        sample = _sample(row, facts, seed, tokens, tokenizer)
        if sample.sample_id in seen:
            skipped.append(Skipped(number, "the same row again (same text, question and cell)", checked.unit))
            continue
        seen.add(sample.sample_id)
        samples.append(sample)
    return samples, skipped


def _in_grid(facts: dict[str, Any], grid: dict[str, Any]) -> bool:
    for key, value in (
        ("tasks", facts["task"]),
        ("lengths", facts["length"]),
        ("paddings", facts["padding"]),
        ("positions", facts["position"]),
    ):
        chosen = grid.get(key)
        if chosen is not None and value not in [int(v) if key == "lengths" else v for v in chosen]:
            return False
    return True


def _sample(
    row: dict[str, Any], facts: dict[str, Any], seed: int, tokens: Any, tokenizer: str | None
) -> Sample:
    task, length = facts["task"], facts["length"]
    text, question = row["mixin"], row["assertion/question"]
    base_id = f"released-{task}-{row['sample_id']}"
    variant = {
        "base_id": base_id,
        "length": length,
        "padding": facts["padding"],
        "position": facts["position"],
        "cell": f"{length}/{facts['padding']}/{facts['position']}",
        "source": SOURCE,
        "global_sample_id": str(row.get("global_sample_id", "")),
        "study_padding": str(row["padding_type"]),
        "tokenizer": tokenizer,
    }
    sample_id = stable_hash(
        "flenqa", RELEASED_VERSION, variant, text, question, facts["rule"], facts["label"]
    )
    return Sample(
        benchmark="flenqa",
        task=task,
        sample_id=sample_id,
        split="test",
        n=length,
        variant=variant,
        input={
            "paragraphs": [text],  # the released text whole: sample_text() gives it back unchanged
            "key_index": [0],
            "key_sentences": facts["key_sentences"],
            "question": question,
            "rule": facts["rule"],
            "study_rule": facts["study_rule"],
            "entities": [],
            "estimated_tokens": tokens(text) if tokens is not None else None,
            "key_exceeds": False,
            "next_word": split_last_word(text)[1],
        },
        gold=facts["label"],
        label=facts["label"],
        seed=seed,
        generator_version=RELEASED_VERSION,
        gold_pos=int(facts["label"]),
        n_cells=1,
    )
