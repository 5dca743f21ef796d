"""A second identical run changes nothing: every raw table, staging view and mart is byte-identical
after run 1 and run 2, and run 2 makes no model call.  A third, not forced to rerun, starts no run at
all (``storage/launch_record.py``).

The run covers the follow-up prompts that once broke this: KOR self-correction rounds (kind
``self_correction``) and Self-Contra judge prompts (kind ``judge``).  They used to be parsed as extra
test settings (``round1``..``round5``) on the second run, growing ``raw.parsed_answers`` and the marts
with zero calls.  The scripted model ``mixed`` answers a third of the KOR questions right, corrects a
third at the second follow-up and never corrects the rest, so rounds 1..3 all happen.

Left out of the comparison: ``created_at`` of ``raw.detections`` and of ``staging.stg_detections`` (when
the judge's verdicts were last written, not what they are; see :data:`WHEN_COLUMNS`).
"""

from __future__ import annotations

import hashlib
from typing import Any

import duckdb
import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.kor import prompts as kor_prompts
from relreason_dagster.benchmarks.kor.family import MIXED_TASK
from relreason_dagster.benchmarks.registry import get_family
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import isolated_home, scripted_models_yaml
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

PROFILE = "it-idempotent"
ROUNDS = 3
MODELS_YAML = scripted_models_yaml("mixed", "judge", concurrency=4)
WRONG = "After careful thought: [[not the answer]]"

# Columns that record *when* a step ran rather than what it stored; everything else must match.
WHEN_COLUMNS: dict[str, tuple[str, ...]] = {
    "raw.detections": ("created_at",),
    "staging.stg_detections": ("created_at",),
}


def table_checksums(path: str) -> dict[str, tuple[int, str]]:
    """(rows, md5 of the sorted rows) of every table and view in schemas raw, staging and marts."""
    con = duckdb.connect(path, read_only=True)
    try:
        tables = con.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_schema IN ('raw', 'staging', 'marts') ORDER BY 1"
        ).fetchall()
        out: dict[str, tuple[int, str]] = {}
        for (name,) in tables:
            skip = WHEN_COLUMNS.get(name)
            select = f"SELECT * EXCLUDE ({', '.join(skip)})" if skip else "SELECT *"
            rows = [str(r) for r in con.execute(f"{select} FROM {name}").fetchall()]
            digest = hashlib.md5("\n".join(sorted(rows)).encode("utf-8", "surrogatepass")).hexdigest()
            out[name] = (len(rows), digest)
        return out
    finally:
        con.close()


def _kor_answers(profile: Any) -> tuple[dict[str, str], dict[str, str], dict[str, int]]:
    """First answers and gold answers by question text, and after how many follow-ups each is right."""
    family = get_family("kor")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    first: dict[str, str] = {}
    gold: dict[str, str] = {}
    fixed_after: dict[str, int] = {}
    for i, p in enumerate(sorted(family.build_prompts(samples, profile), key=lambda p: p.prompt_id)):
        sample = by_id[p.sample_id]
        text = p.messages[0]["content"]
        gold[text] = family.render_gold(sample, p.setting)
        if sample.task == MIXED_TASK or i % 3 == 0:
            fixed_after[text] = 0
        else:
            fixed_after[text] = 2 if i % 3 == 1 else ROUNDS + 1  # corrected at round 2, or never
        first[text] = gold[text] if fixed_after[text] == 0 else WRONG
    return first, gold, fixed_after


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("idempotent")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, MODELS_YAML)
    kor = {"questions_per_rule": 2, "self_correction_rounds": ROUNDS}
    selfcontra = {
        "settings": ["zero_answer", "zero_reason"],
        "judge": "judge",
        "detect_methods": ["binary", "fge"],
    }
    # smoke's KOR and Self-Contra sections with these knobs changed; relational and FLenQA dropped (null).
    profile = {"extends": "smoke", "relational": None, "flenqa": None, "kor": kor, "selfcontra": selfcontra}
    use_profiles(mp, root / "profiles.yaml", {PROFILE: profile})
    first, gold, fixed_after = _kor_answers(profiles.get_profile(PROFILE, "kor"))
    sc = get_family("selfcontra")
    sc_profile = profiles.get_profile(PROFILE, "selfcontra")
    sc_samples = {s.sample_id: s for s in sc.generate(sc_profile, profiles.DEFAULT_SEED)}
    sc_answers = {}
    for i, p in enumerate(
        sorted(sc.build_prompts(list(sc_samples.values()), sc_profile), key=lambda p: p.prompt_id)
    ):
        sc_answers[p.messages[-1]["content"]] = (
            sc.render_gold(sc_samples[p.sample_id], p.setting) if i % 2 == 0 else "I cannot tell."
        )

    def mixed(messages, params):
        if messages[-1]["content"] in sc_answers:
            return sc_answers[messages[-1]["content"]]
        original = messages[0]["content"]
        told = sum(1 for m in messages if m["role"] == "user" and m["content"] == kor_prompts.FOLLOW_UP)
        return gold[original] if told >= fixed_after[original] else first[original]

    def judge(messages, params):
        text = messages[-1]["content"]
        flag = int(hashlib.md5(text.encode()).hexdigest(), 16) % 2
        if text.rstrip().endswith("Type:"):
            return str(flag)
        return "yes" if flag else "no"

    register_scripted_provider()
    set_responder("mixed", mixed)
    set_responder("judge", judge)
    yield {"n_kor": len(first)}
    mp.undo()


def test_second_identical_run_changes_nothing_and_calls_nothing(home):
    from relreason_dagster.pipeline import run_models

    reset_calls()
    first = run_models(["mixed"], profile=PROFILE, benchmarks=["kor", "selfcontra"])
    assert first.failures == []
    assert call_count("mixed") > home["n_kor"] and call_count("judge") > 0
    path = str(paths.duckdb_path())
    before = table_checksums(path)
    # The run did exercise the follow-ups: three rounds of self-correction and the judge.
    con = duckdb.connect(path, read_only=True)
    try:
        kinds = dict(con.execute("SELECT kind, count(*) FROM raw.prompts GROUP BY kind").fetchall())
        rounds = [
            r[0] for r in con.execute("SELECT DISTINCT round FROM raw.kor_rounds ORDER BY 1").fetchall()
        ]
        settings_parsed = {
            r[0] for r in con.execute("SELECT DISTINCT setting FROM raw.parsed_answers").fetchall()
        }
    finally:
        con.close()
    assert set(kinds) == {"test", "self_correction", "judge"}
    assert rounds == list(range(ROUNDS + 1))
    assert settings_parsed == {"zero_shot", "Multi-Q", "zero_answer", "zero_reason"}
    assert before["marts.kor_accuracy"][0] > 0 and before["marts.kor_self_correction"][0] > 0

    reset_calls()
    # rerun: every run starts although nothing changed (without it, the launch is skipped: below).
    second = run_models(["mixed"], profile=PROFILE, benchmarks=["kor", "selfcontra"], rerun=True)
    assert second.failures == [] and second.unchanged_since is None
    assert call_count() == 0 and second.total_calls == 0
    assert {run["job"] for run in second.runs} >= {"prepare", "model_work", "marts"}
    after = table_checksums(path)
    assert sorted(after) == sorted(before)
    changed = {name: (before[name], after[name]) for name in before if before[name] != after[name]}
    assert changed == {}

    # The same launch again, with nothing changed: no run starts, and the last launch's report returns.
    third = run_models(["mixed"], profile=PROFILE, benchmarks=["kor", "selfcontra"])
    assert third.unchanged_since is not None and third.succeeded
    assert third.runs == second.runs and third.checks == second.checks
    assert call_count() == 0 and table_checksums(path) == after


def test_old_file_gains_prompt_kinds(tmp_path):
    """A DuckDB file from before the kind column: follow-ups found by their old benchmark names."""
    from relreason_dagster.storage.lake import Lake
    from relreason_dagster.storage.schema import RAW_TABLES, ensure_schema

    con = duckdb.connect(str(tmp_path / "old.duckdb"))
    con.execute("CREATE SCHEMA raw")
    old_prompts = RAW_TABLES["prompts"].replace(",\n        kind VARCHAR NOT NULL DEFAULT 'test'", "")
    assert "kind" not in old_prompts
    con.execute(f"CREATE TABLE raw.prompts ({old_prompts})")
    con.execute(f"CREATE TABLE raw.parsed_answers ({RAW_TABLES['parsed_answers']})")
    for pid, benchmark, setting in [
        ("p-test", "kor", "zero_shot"),
        ("p-round", "kor_selfcorrect", "round1"),
        ("p-judge", "selfcontra_judge", "binary"),
    ]:
        con.execute(
            "INSERT INTO raw.prompts (prompt_id, sample_id, benchmark, task, split, setting, messages) "
            "VALUES (?, 's', ?, 't', 'official', ?, '[]')",
            [pid, benchmark, setting],
        )
    for pid in ("p-test", "p-round"):  # what an older parsed_answers made of a second run
        con.execute(
            "INSERT INTO raw.parsed_answers (prompt_id, model, parse_status) VALUES (?, 'm', 'ok')", [pid]
        )

    ensure_schema(con, Lake.open(tmp_path / "lake"))
    ensure_schema(con, Lake.open(tmp_path / "lake"))  # the second time changes nothing
    assert con.execute("SELECT prompt_id, benchmark, kind FROM raw.prompts ORDER BY 1").fetchall() == [
        ("p-judge", "selfcontra", "judge"),
        ("p-round", "kor", "self_correction"),
        ("p-test", "kor", "test"),
    ]
    assert con.execute("SELECT prompt_id FROM raw.parsed_answers").fetchall() == [("p-test",)]
    con.close()
