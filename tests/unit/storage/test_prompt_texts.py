"""Long prompts stored once (issue 56 item 4): a lake snapshot keeps each distinct line of its prompt
set one time, and every reader still gets the exact messages back, so request hashes do not move.

The size test writes prompts that share one long padding, the case FLenQA's long profile makes (a
prompt per setting of each sample, and many samples drawing the same paragraphs).  It also writes the
same rows as the lake stored them before (``messages`` whole in the snapshot) and checks that layout
is over the bound, so the test cannot pass on the old storage.
"""

from __future__ import annotations

import json
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.request_key import request_hash
from relreason_dagster.storage.lake import PROMPTS_SCHEMA, Lake
from relreason_dagster.storage.prompt_snapshots import current_prompts, snapshot_rows, write_snapshot
from relreason_dagster.storage.prompt_texts import SEPARATOR, TextTable, distinct_text_bytes, join

SETTINGS = ("direct", "cot", "next_word")


def _paragraphs(rng: random.Random, n: int, words: int = 60) -> list[str]:
    """Paragraphs of random made-up words: text zstd cannot shrink much, so only dedup saves space."""
    vocab = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))
        for _ in range(4000)
    ]
    return [" ".join(rng.choice(vocab) for _ in range(words)).capitalize() + "." for _ in range(n)]


def _prompt_row(sample: int, setting: str, text: str) -> dict:
    """A raw.prompts row as FLenQA builds one: its paragraphs joined by newlines inside one message."""
    messages = [
        {"role": "system", "content": "Answer with True or False."},
        {"role": "user", "content": f"{text}\n\nQuestion {sample} ({setting}): is it so?"},
    ]
    return {
        "prompt_id": f"p{sample:03d}-{setting}",
        "sample_id": f"s{sample:03d}",
        "benchmark": "flenqa",
        "task": "pidr",
        "split": "test",
        "setting": setting,
        "messages": json.dumps(messages),
        "max_tokens": 16,
    }


def _padded_rows(n_samples: int, padding: list[str], rng: random.Random) -> list[dict]:
    """Each sample: the shared padding in its own order around two key paragraphs of its own."""
    rows = []
    for i in range(n_samples):
        own = [f"Key fact {i}: the box {i} is left of the lamp.", f"Key fact {i}: the lamp is red."]
        body = rng.sample(padding, len(padding))
        at = rng.randrange(len(body))
        text = "\n".join(body[:at] + own[:1] + body[at:] + own[1:])
        rows.extend(_prompt_row(i, setting, text) for setting in SETTINGS)
    return rows


def _old_layout(rows: list[dict]) -> pa.Table:
    """``rows`` as a snapshot held them before this storage: ``messages`` whole, no ``parts``."""
    columns = [f for f in PROMPTS_SCHEMA if f.name not in ("parts", "texts_file")]
    return pa.Table.from_pylist(
        [{f.name: r.get(f.name) for f in columns} for r in rows], schema=pa.schema(columns)
    )


def _lake_bytes(lake: Lake, tables: tuple[str, ...] = ("prompts", "prompt_texts")) -> int:
    return sum(lake.fs.get_file_info(f).size for t in tables for f in lake.files(t))


def test_lines_join_back_byte_for_byte():
    texts = [
        json.dumps([{"role": "user", "content": "a\nb\n\nc\n"}]),
        json.dumps([{"role": "user", "content": "\n\\n literal backslash-n \\\n\u00e9\u4e2d \U0001f600\n"}]),
        json.dumps([]),
        "",
        SEPARATOR * 3,
    ]
    table = TextTable()
    refs = [table.add(t) for t in texts]
    assert [join(r, table.lines) for r in refs] == texts
    assert len(table.lines) == len(set(table.lines))
    assert table.size == distinct_text_bytes(texts)


def test_readers_get_every_prompt_exactly_as_built(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    rows = _padded_rows(4, _paragraphs(random.Random(1), 30), random.Random(2))
    rows.append(_prompt_row(99, "direct", "caf\u00e9 \\n not a newline\nline two \U0001f600"))
    write_snapshot(lake, "flenqa", rows)
    back = current_prompts(lake, ["flenqa"])
    assert snapshot_rows(lake, "flenqa") == len(rows)
    want = sorted(rows, key=lambda r: r["prompt_id"])
    assert [r["prompt_id"] for r in back] == [r["prompt_id"] for r in want]
    for got, row in zip(back, want, strict=True):
        assert got["messages"] == row["messages"]  # the JSON text itself, not only its meaning
        assert {k: got[k] for k in ("benchmark", "setting", "sample_id", "task", "split", "max_tokens")} == {
            k: row[k] for k in ("benchmark", "setting", "sample_id", "task", "split", "max_tokens")
        }
    assert set(back[0]) == {
        "prompt_id",
        "benchmark",
        "messages",
        "max_tokens",
        "setting",
        "sample_id",
        "task",
        "split",
    }


def test_request_hashes_are_unchanged(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    rows = _padded_rows(3, _paragraphs(random.Random(3), 20), random.Random(4))
    write_snapshot(lake, "flenqa", rows)
    spec = ModelEntry(name="m", litellm_model="openai/m")
    built = {r["prompt_id"]: request_hash(spec, json.loads(r["messages"]), r["max_tokens"]) for r in rows}
    read = {
        r["prompt_id"]: request_hash(spec, r["messages"], r["max_tokens"])
        for r in current_prompts(lake, ["flenqa"])
    }
    assert read == built
    # The same prompts through a snapshot of the old layout (messages whole) hash alike.
    old_lake = Lake.open(tmp_path / "old")
    old_lake.append("prompts", _old_layout(rows), prefix="snapshot")
    old = {
        r["prompt_id"]: request_hash(spec, r["messages"], r["max_tokens"])
        for r in current_prompts(old_lake, ["flenqa"])
    }
    assert old == read


def test_a_snapshot_written_before_reads_as_before(tmp_path):
    """Older snapshots hold ``messages`` whole and no ``parts``: still read, nothing asked again."""
    lake = Lake.open(tmp_path / "lake")
    rows = _padded_rows(2, _paragraphs(random.Random(5), 5), random.Random(6))
    old = _old_layout(rows)
    folder = lake.partition_path("prompts", {"benchmark": "flenqa"})
    lake.fs.create_dir(folder, recursive=True)
    pq.write_table(old, f"{folder}/snapshot-00000000000000000001-1-old.parquet")
    assert snapshot_rows(lake, "flenqa") == len(rows)
    assert {r["prompt_id"]: r["messages"] for r in current_prompts(lake, ["flenqa"])} == {
        r["prompt_id"]: r["messages"] for r in rows
    }


def test_a_lost_text_file_makes_the_snapshot_stale_and_reading_it_one_line(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    write_snapshot(lake, "flenqa", _padded_rows(1, _paragraphs(random.Random(7), 3), random.Random(8)))
    for path in lake.files("prompt_texts"):
        lake.fs.delete_file(path)
    assert snapshot_rows(lake, "flenqa") is None  # the prompts asset then writes a new snapshot
    with pytest.raises(ConfigError, match="materialize prompts again"):
        current_prompts(lake, ["flenqa"])


def test_stored_size_grows_with_distinct_text_not_with_prompts(tmp_path):
    padding = _paragraphs(random.Random(9), 400)  # ~170 KB: a long prompt's worth of padding
    sizes, distinct = {}, {}
    for n in (1, 30):
        lake = Lake.open(tmp_path / f"lake-{n}")
        rows = _padded_rows(n, padding, random.Random(10))
        write_snapshot(lake, "flenqa", rows)
        sizes[n] = _lake_bytes(lake)
        distinct[n] = distinct_text_bytes(r["messages"] for r in rows)
        assert sizes[n] < 2 * distinct[n]
    raw = sum(len(r["messages"].encode()) for r in rows)
    assert raw > 80 * distinct[30]  # 90 prompts share the padding
    # 90 prompts with the same padding cost about what 3 do: the padding is stored once.
    assert sizes[30] - sizes[1] < 0.2 * distinct[1]

    # The old layout (each prompt's messages whole in the snapshot), written by the lake the same way,
    # is far over the bound: the check above would fail on it.
    old_lake = Lake.open(tmp_path / "old")
    old_lake.append("prompts", _old_layout(rows), prefix="snapshot")
    assert _lake_bytes(old_lake, ("prompts",)) > 4 * distinct[30]
