"""The append-only Parquet lake that holds model output, outside the DuckDB file.

Why a lake: model calls take minutes to hours, and a DuckDB file admits one
writing process that also locks out every reader.  Model output therefore
goes to Parquet files that any number of processes (or machines, given one
shared URL) append to, while the DuckDB file only reads them through views.

Layout: ``<url>/responses/model=<m>/benchmark=<b>/part-<time>-<pid>-<id>.parquet``
and ``<url>/prompts/benchmark=<b>/snapshot-<time>-….parquet`` (with its distinct text lines in
``<url>/prompt_texts/benchmark=<b>/…``: long prompts are stored once, ``storage/prompt_texts.py``)
(hive-style folders, and the same values as columns inside each file, so
DuckDB reads the files with ``hive_partitioning=false``).  A file is written
once and never changed: on a local disk it is written under ``_tmp/`` and
renamed into place, so a killed writer leaves no half file where readers
look; object stores publish a file only when it is closed.  Compaction
writes one new file from a writer's own small files and then deletes those.
Each table also has an empty ``_schema.parquet`` so views work on an empty
lake.

A damaged file (truncated, overwritten by a disk error) would make every
reader of its table fail: the DuckDB view reads all models' files at once.
:meth:`Lake.check` moves such files aside into ``<url>/_quarantine/`` (with a
note saying from where and why) and :meth:`Lake.read` does the same when a
read fails on one; the prompts a quarantined file held are then simply not
answered, so the next run asks them again.

``url`` is a local path or any URI pyarrow opens (``file://``, ``s3://``,
``gs://``, ``hdfs://``), or any fsspec protocol when fsspec is installed.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyarrow as pa
import pyarrow.dataset as pads
import pyarrow.fs as pafs
import pyarrow.parquet as pq

from relreason_dagster.errors import ConfigError

# The lake's tables: their columns and the columns that name a file's folder.
RESPONSES_SCHEMA = pa.schema(
    [
        ("prompt_id", pa.string()),
        ("model", pa.string()),
        ("benchmark", pa.string()),
        ("request_hash", pa.string()),
        ("litellm_model", pa.string()),
        ("content", pa.string()),
        ("finish_reason", pa.string()),
        ("prompt_tokens", pa.int32()),
        ("completion_tokens", pa.int32()),
        ("latency_s", pa.float64()),
        ("attempts", pa.int32()),
        ("error", pa.string()),
        ("from_cache", pa.bool_()),
        ("created_at", pa.timestamp("us")),
        # True when the model's text held code points UTF-8 cannot carry (lone surrogates) and they
        # were replaced by U+FFFD; added after the lake first shipped, so older files lack it (null).
        ("sanitized", pa.bool_()),
        # Added later still (issue 36), so older files read them as null: a reasoning model's thinking,
        # kept apart from ``content`` (the answer every parser reads), and its token count; which draw
        # of a repeated-sampling run the row is (null = 0, the only draw before draws existed); and
        # what the call cost in USD where LiteLLM's offline cost map knows the price (null otherwise).
        ("reasoning", pa.string()),
        ("reasoning_tokens", pa.int32()),
        ("sample_index", pa.int32()),
        ("cost_usd", pa.float64()),
        # Added with issue 55 (older files read them as null): the model the provider said answered
        # (the reply's ``model``: a snapshot behind an alias, or a local model's file name) and its
        # ``system_fingerprint``, so an alias that moved to a new snapshot between runs shows.
        ("served_model", pa.string()),
        ("system_fingerprint", pa.string()),
    ]
)
# A copy of each benchmark's current prompts (one snapshot file per ``prompts`` materialization), so a
# model worker on another machine needs the lake only, not the DuckDB file.
PROMPTS_SCHEMA = pa.schema(
    [
        ("prompt_id", pa.string()),
        ("benchmark", pa.string()),
        ("messages", pa.string()),
        ("max_tokens", pa.int32()),
        # The prompt's setting, so a model worker can skip what its kind is not asked (null in older files).
        ("setting", pa.string()),
        # Which sample and cell it asks about, so `relreason run --limit N` can pick the first N samples
        # of each task without the DuckDB file (null in older files: such a snapshot is asked whole).
        ("sample_id", pa.string()),
        ("task", pa.string()),
        ("split", pa.string()),
        # Prompt text stored once (storage/prompt_texts.py): ``messages`` is null, and the messages are
        # the lines ``parts`` numbers in the ``prompt_texts`` file ``texts_file`` names (same folder
        # layout).  Older snapshots hold ``messages`` whole and these as null.
        ("parts", pa.list_(pa.int32())),
        ("texts_file", pa.string()),
    ]
)
# The distinct lines of one prompt snapshot, in order: line ``i`` is row ``i`` (storage/prompt_texts.py).
PROMPT_TEXTS_SCHEMA = pa.schema([("benchmark", pa.string()), ("text", pa.string())])
TABLES: dict[str, pa.Schema] = {
    "responses": RESPONSES_SCHEMA,
    "prompts": PROMPTS_SCHEMA,
    "prompt_texts": PROMPT_TEXTS_SCHEMA,
}
PARTITION_COLUMNS: dict[str, tuple[str, ...]] = {
    "responses": ("model", "benchmark"),
    "prompts": ("benchmark",),
    "prompt_texts": ("benchmark",),
}
# Every lake file is zstd-compressed: text compresses ~3x against snappy's ~2x, and DuckDB and
# pyarrow read it alike.
COMPRESSION = "zstd"
SCHEMA_FILE = "_schema.parquet"
_TMP_DIR = "_tmp"
# Damaged files moved out of the tables (same relative path below it) and a ``.json`` note per file.
QUARANTINE_DIR = "_quarantine"
# pyarrow's dataset discovery skips these prefixes: the schema file and unfinished writes.
_IGNORED_PREFIXES = ("_", ".")


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _reason(exc: BaseException) -> str:
    """The first line of an error, for a one-line note (without the file's path: the note names it)."""
    text = re.sub(
        r"^Could not open Parquet input source '[^']*': ", "", (str(exc).strip().splitlines() or [""])[0]
    )
    return f"{type(exc).__name__}: {text}"[:300] if text else type(exc).__name__


@dataclass(frozen=True)
class Quarantined:
    """One damaged file moved aside: where it was, where it is, why and when (epoch seconds)."""

    file: str
    moved_to: str
    reason: str
    at: float

    def line(self) -> str:
        """The one line a user sees about it."""
        return (
            f"relreason: damaged lake file {self.file} ({self.reason}) moved to {self.moved_to}; "
            "the prompts it held are asked again by the next run"
        )


def _part_value(value: Any) -> str:
    return quote(str(value if value not in (None, "") else "_"), safe="")


@dataclass(frozen=True)
class Lake:
    """One lake: its URL as the user gave it, the pyarrow filesystem and the root path on it."""

    url: str
    fs: pafs.FileSystem
    root: str

    # ------------------------------------------------------------------ opening

    @classmethod
    def open(cls, url: str | Path) -> Lake:
        """The lake at ``url``; a URL no filesystem understands is a one-line ConfigError."""
        text = str(url)
        if "://" not in text:
            path = Path(text).expanduser().resolve()
            path.mkdir(parents=True, exist_ok=True)
            return cls(str(path), pafs.LocalFileSystem(), str(path))
        try:
            fs, root = pafs.FileSystem.from_uri(text)
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as exc:
            fs, root = _fsspec_filesystem(text, exc)
        if isinstance(fs, pafs.LocalFileSystem):
            Path(root).mkdir(parents=True, exist_ok=True)
        return cls(text, fs, root.rstrip("/"))

    @classmethod
    def default(cls) -> Lake:
        from relreason_dagster import paths

        return cls.open(paths.lake_url())

    @property
    def is_local(self) -> bool:
        return isinstance(self.fs, pafs.LocalFileSystem)

    def ensure(self) -> None:
        """Write each table's empty schema file (views over an empty lake need one file).

        A schema file of an older release (fewer columns) is replaced, so the
        DuckDB view finds every current column even when no data file has it yet;
        data files are never rewritten (readers fill their missing columns with null).
        """
        for table, schema in TABLES.items():
            path = f"{self.root}/{table}/{SCHEMA_FILE}"
            if self.fs.get_file_info(path).type == pafs.FileType.NotFound or not self._schema_current(
                path, schema
            ):
                self._write(path, schema.empty_table())

    def _schema_current(self, path: str, schema: pa.Schema) -> bool:
        try:
            found = pq.read_schema(path, filesystem=self.fs)
        except (OSError, pa.ArrowInvalid):  # unreadable (or deleted meanwhile): write a fresh one
            return False
        return found.remove_metadata().equals(schema)

    # ------------------------------------------------------------------ paths

    def table_path(self, table: str) -> str:
        return f"{self.root}/{table}"

    def partition_path(self, table: str, values: dict[str, Any]) -> str:
        folders = "/".join(f"{c}={_part_value(values.get(c))}" for c in PARTITION_COLUMNS[table])
        return f"{self.table_path(table)}/{folders}"

    def glob(self, table: str) -> str:
        """The pattern DuckDB's read_parquet reads for ``table`` (the schema file included)."""
        base = self.root if self.is_local else self.url.rstrip("/")
        return f"{base}/{table}/**/*.parquet"

    # ------------------------------------------------------------------ writing

    def _write(self, path: str, table: pa.Table) -> None:
        if self.is_local:
            # Write aside, then rename: a reader never sees a half-written file.
            tmp = f"{self.root}/{_TMP_DIR}/{uuid.uuid4().hex}.parquet.tmp"
            self.fs.create_dir(f"{self.root}/{_TMP_DIR}", recursive=True)
            pq.write_table(table, tmp, filesystem=self.fs, compression=COMPRESSION)
            self.fs.create_dir(path.rsplit("/", 1)[0], recursive=True)
            self.fs.move(tmp, path)
        else:
            pq.write_table(table, path, filesystem=self.fs, compression=COMPRESSION)

    def append(self, table: str, rows: pa.Table, prefix: str = "part") -> list[str]:
        """Write ``rows`` as new files, one per partition (model, benchmark); returns their paths."""
        return [path for path, _part in self.append_parts(table, rows, prefix)]

    def append_parts(self, table: str, rows: pa.Table, prefix: str = "part") -> list[tuple[str, pa.Table]]:
        """:meth:`append`, also returning what each new file holds (a writer that keeps them can
        :meth:`compact` its files without reading them back)."""
        if rows.num_rows == 0:
            return []
        rows = conform(rows, TABLES[table])
        columns = PARTITION_COLUMNS[table]
        keys = [rows.column(c).to_pylist() for c in columns]
        groups: dict[tuple, list[int]] = {}
        for i, key in enumerate(zip(*keys, strict=True)):
            groups.setdefault(key, []).append(i)
        written = []
        for key, index in groups.items():
            part = rows if len(groups) == 1 else rows.take(pa.array(index))
            folder = self.partition_path(table, dict(zip(columns, key, strict=True)))
            path = f"{folder}/{_file_name(prefix)}"
            self._write(path, part)
            written.append((path, part))
        return written

    def compact(
        self, table: str, paths: Sequence[str], held: Mapping[str, pa.Table] | None = None
    ) -> list[str]:
        """Merge files (of one writer) into one new file per partition, then delete them.

        Only the caller's own files are passed, so two writers never delete each
        other's; a reader between the write and the delete sees rows twice,
        which the readers' "latest row per key" rule absorbs.  ``held``: what some of the files
        hold, as :meth:`append_parts` wrote it; those are not read back (reading a run's small
        files again was most of the ~20 ms its end spent merging them).
        """
        held = held or {}
        by_folder: dict[str, list[str]] = {}
        for path in paths:
            by_folder.setdefault(path.rsplit("/", 1)[0], []).append(path)
        result = []
        for folder, files in by_folder.items():
            if len(files) < 2:
                result.extend(files)
                continue
            merged = pa.concat_tables(
                held[f] if f in held else pq.read_table(f, filesystem=self.fs, schema=TABLES[table])
                for f in files
            )
            path = f"{folder}/{_file_name('compact')}"
            self._write(path, merged)
            for f in files:
                self.fs.delete_file(f)
            result.append(path)
        return result

    # ------------------------------------------------------------------ reading

    def files(self, table: str, partition: dict[str, Any] | None = None) -> list[str]:
        """The data files of ``table``, or of its first partition folder (``{"model": m}`` for responses,
        ``{"benchmark": b}`` for prompts); the schema file and unfinished writes excluded."""
        base = self.table_path(table)
        first = PARTITION_COLUMNS[table][0]
        if partition and partition.get(first) is not None:
            base = f"{base}/{first}={_part_value(partition[first])}"
        selector = pafs.FileSelector(base, recursive=True, allow_not_found=True)
        out = []
        for info in self.fs.get_file_info(selector):
            name = info.base_name
            if (
                info.type == pafs.FileType.File
                and name.endswith(".parquet")
                and not name.startswith(_IGNORED_PREFIXES)
            ):
                out.append(info.path)
        return sorted(out)

    def read(
        self,
        table: str,
        *,
        columns: Iterable[str] | None = None,
        where: pads.Expression | None = None,
        partition: dict[str, Any] | None = None,
    ) -> pa.Table:
        """Rows of ``table`` (every stored version; callers choose the latest they need).

        A file deleted by a concurrent compaction between listing and reading is
        retried with a fresh listing: the merged file holds its rows.
        """
        schema = TABLES[table]
        cols = list(columns) if columns is not None else schema.names
        for attempt in range(5):
            files = self.files(table, partition)
            if not files:
                return schema.empty_table().select(cols)
            try:
                dataset = pads.dataset(files, schema=schema, filesystem=self.fs, format="parquet")
                return dataset.to_table(columns=cols, filter=where)
            except (FileNotFoundError, OSError, pa.ArrowInvalid) as exc:
                if attempt == 4:
                    raise
                gone = not isinstance(exc, pa.ArrowInvalid) and (
                    "No such file" in str(exc) or "not found" in str(exc).lower()
                )
                # A damaged file: moved aside (one line each), then read again without it.  A file
                # compacted away meanwhile: read again with a fresh listing.
                if not gone and not self.check(table, files, deep=True):
                    if set(files) <= set(self.files(table, partition)):
                        raise
                time.sleep(0.05 * (attempt + 1))
        raise AssertionError("unreachable")

    # ------------------------------------------------------------------ damaged files

    def damage(self, path: str, *, deep: bool = False) -> str | None:
        """Why the file at ``path`` cannot be read (one line), or None when it can (or is gone).

        The quick check reads the footer, which a truncated or partly written file lacks; ``deep``
        also reads every page (what a failed read calls, to find the file it failed on).
        """
        try:
            if deep:
                pq.read_table(path, filesystem=self.fs)
            else:
                pq.read_metadata(path, filesystem=self.fs)
        except FileNotFoundError:
            return None  # compacted or quarantined meanwhile: its rows are elsewhere or reported
        except (OSError, pa.ArrowException, ValueError) as exc:
            if self.fs.get_file_info(path).type == pafs.FileType.NotFound:
                return None
            return _reason(exc)
        return None

    def check(
        self,
        table: str | None = None,
        files: Sequence[str] | None = None,
        *,
        deep: bool = False,
        say: Callable[[str], None] | None = _say,
    ) -> list[Quarantined]:
        """Move every damaged data file of ``table`` (default: every table) aside; one line each.

        ``files`` limits the check to those files.  Returns what was moved.
        """
        moved = []
        for name in [table] if table else list(TABLES):
            for path in files if files is not None else self.files(name):
                why = self.damage(path, deep=deep)
                if why is not None:
                    entry = self.quarantine(path, why)
                    if entry is not None:
                        moved.append(entry)
                        if say is not None:
                            say(entry.line())
        return moved

    def quarantine(self, path: str, reason: str) -> Quarantined | None:
        """Move ``path`` under ``_quarantine/`` (same relative path) with a note; None if it is gone."""
        relative = (
            path[len(self.root) :].lstrip("/") if path.startswith(self.root) else path.rsplit("/", 1)[1]
        )
        target = f"{self.root}/{QUARANTINE_DIR}/{relative}"
        if self.fs.get_file_info(target).type != pafs.FileType.NotFound:
            target = f"{target}.{time.time_ns()}"
        self.fs.create_dir(target.rsplit("/", 1)[0], recursive=True)
        try:
            self.fs.move(path, target)
        except FileNotFoundError:
            return None  # another process moved it first (and said so)
        entry = Quarantined(self._shown(path), self._shown(target), reason, time.time())
        with self.fs.open_output_stream(f"{target}.json") as fh:
            fh.write(json.dumps(entry.__dict__, indent=1).encode("utf-8"))
        return entry

    def quarantined(self) -> list[Quarantined]:
        """Every file moved aside so far, oldest first (from the notes beside them)."""
        selector = pafs.FileSelector(f"{self.root}/{QUARANTINE_DIR}", recursive=True, allow_not_found=True)
        found = []
        for info in self.fs.get_file_info(selector):
            if info.type == pafs.FileType.File and info.base_name.endswith(".json"):
                try:
                    with self.fs.open_input_stream(info.path) as fh:
                        found.append(Quarantined(**json.loads(fh.read().decode("utf-8"))))
                except (OSError, ValueError, TypeError):
                    continue
        return sorted(found, key=lambda q: q.at)

    def _shown(self, path: str) -> str:
        """``path`` as the user knows it: a local path, or the lake URL's scheme in front."""
        if self.is_local:
            return path
        return f"{self.url.rstrip('/')}/{path[len(self.root) :].lstrip('/')}"


def conform(rows: pa.Table, schema: pa.Schema) -> pa.Table:
    """``rows`` with exactly ``schema``'s columns, in order and type; a missing column is all null.

    Rows built by an older caller (or migrated from an older file) lack columns added later.
    """
    if rows.schema.equals(schema, check_metadata=True):  # as the gateway's writer builds them: nothing to do
        return rows
    columns = [
        rows.column(f.name).cast(f.type) if f.name in rows.column_names else pa.nulls(rows.num_rows, f.type)
        for f in schema
    ]
    return pa.Table.from_arrays(columns, schema=schema)


def _file_name(prefix: str) -> str:
    """A new file's name: sorts by creation time (nanoseconds), unique across processes and machines."""
    return f"{prefix}-{time.time_ns():020d}-{os.getpid()}-{uuid.uuid4().hex[:12]}.parquet"


def _fsspec_filesystem(url: str, cause: Exception) -> tuple[pafs.FileSystem, str]:
    """A pyarrow filesystem for an fsspec-only protocol (``memory://``, ``sftp://``, …)."""
    try:
        import fsspec
    except ImportError:
        raise ConfigError(
            f"lake URL {url!r} is not a filesystem pyarrow knows ({cause}); use a local path, file://, "
            "s3://, gs:// or hdfs://, or install fsspec for other protocols"
        ) from None
    try:
        fs, root = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise ConfigError(f"lake URL {url!r}: {exc}; set RELREASON_LAKE to a URL you can write") from None
    fs.makedirs(root, exist_ok=True)
    return pafs.PyFileSystem(pafs.FSSpecHandler(fs)), root
