"""raw.prompt_tokens: the run models' own-tokenizer counts of the test prompts (issue 56 item 2).

A word-level tokenizer built in the test makes each count the number of words of the prompt.
"""

from __future__ import annotations

import json

import duckdb

from relreason_dagster.storage.prompt_tokens import count_for_models, model_tokenizers
from relreason_dagster.storage.schema import RAW_TABLES
from tests.fakes.word_tokenizer import word_tokenizer_folder as _hf_folder


def _con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("CREATE SCHEMA raw")
    for name in ("prompts", "prompt_tokens"):
        con.execute(f"CREATE TABLE raw.{name} ({RAW_TABLES[name]})")
    prompts = [
        ("p1", "flenqa", "test", "is the cat red"),
        ("p2", "flenqa", "test", "red"),
        ("p3", "kor", "test", "the cat"),
        ("p4", "flenqa", "judge", "the red cat"),
    ]
    for pid, benchmark, kind, text in prompts:
        con.execute(
            "INSERT INTO raw.prompts (prompt_id, sample_id, benchmark, task, split, setting, messages, kind)"
            " VALUES (?, 's', ?, 't', 'test', 'direct', ?, ?)",
            [pid, benchmark, json.dumps([{"role": "user", "content": text}]), kind],
        )
    return con


def _stored(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return con.execute(
        "SELECT prompt_id, model, tokenizer, input_tokens FROM raw.prompt_tokens ORDER BY ALL"
    ).fetchall()


def test_only_models_naming_a_tokenizer_are_counted():
    specs = [{"name": "a", "tokenizer": "x"}, {"name": "b", "tokenizer": None}, {"name": "c"}]
    assert model_tokenizers(specs) == {"a": "x"}


def test_the_run_families_test_prompts_are_counted_once_per_model(tmp_path):
    tok = str(_hf_folder(tmp_path / "tok", None))
    con = _con()
    assert count_for_models(con, {"m": tok}, ["flenqa"]) == {"m": 2}
    assert _stored(con) == [("p1", "m", tok, 4), ("p2", "m", tok, 1)]
    assert count_for_models(con, {"m": tok}, ["flenqa"]) == {}  # a second run counts nothing
    assert count_for_models(con, {"m": tok}, ["flenqa", "kor"]) == {"m": 1}


def test_a_model_given_another_tokenizer_is_counted_again(tmp_path):
    first = str(_hf_folder(tmp_path / "first", None))
    second = str(
        _hf_folder(tmp_path / "second", "{% for m in messages %}{{ m['content'] }} cat {% endfor %}")
    )
    con = _con()
    count_for_models(con, {"m": first}, ["flenqa"])
    assert count_for_models(con, {"m": second}, ["flenqa"]) == {"m": 2}
    assert _stored(con) == [("p1", "m", second, 5), ("p2", "m", second, 2)]
