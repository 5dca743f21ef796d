"""Hostile model text through the whole pipeline, for all four families: nothing lost, nothing raised.

A fake OpenAI-compatible server (a real LiteLLM ``openai/...`` model, real
JSON over HTTP) answers every prompt with one hostile kind: lone UTF-16
surrogates sent as raw ``\\ud800`` escapes, NUL bytes, a megabyte of text,
100,000-deep brackets, LaTeX bombs, ``__import__`` payloads, power towers
and a 1000 x 1000 matrix.  Each family's test prompts get every kind (the
two heavy ones once each); follow-up prompts (KOR self-correction, the
Self-Contra judge) get a kind by their key.  The run must finish; each
prompt has exactly one stored row, kept byte for byte or, where UTF-8 cannot
hold it, with U+FFFD and ``sanitized``; every test prompt has a parsed row.

"The parse step stays bounded" is checked by structure, never by a clock:
each reader looks at a fixed-size window of the answer (the same verdict
with or without megabytes of extra text beyond it).
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.storage.responses import clean_str
from tests.fakes.openai_server import (
    HOSTILE_KINDS,
    UNSTORABLE_KINDS,
    FakeOpenAIServer,
    hostile_answer,
    hostile_kind_for,
    prompt_key,
)
from tests.pipeline_home import isolated_home, rows
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

FAMILIES = ("relational", "flenqa", "selfcontra", "kor")
MODEL = "hostile"
HEAVY = ("megabyte", "matrix")  # once per family: they are megabytes each
LIGHT = tuple(k for k in HOSTILE_KINDS if k not in HEAVY)


def _models_yaml(api_base: str) -> str:
    return f"""\
models:
  - name: {MODEL}
    litellm_model: openai/fake-hostile
    api_base: {api_base}
    api_key_env: RELREASON_TEST_FAKE_KEY
    params: {{temperature: 0}}
    concurrency: 4
    timeout_s: 600
    max_attempts: 2
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One pipeline run of the hostile model over the four families (smoke profile, KOR widened)."""
    root = tmp_path_factory.mktemp("hostile")
    marker = root / "evaluated-model-text"
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_TEST_FAKE_KEY", "sk-test")
    # Two questions per KOR rule: eleven prompts, enough for every kind.
    smoke = {"selfcontra": {"judge": MODEL}, "kor": {"questions_per_rule": 2}}
    use_profiles(mp, root / "profiles.yaml", {"smoke": smoke})

    kinds: dict[str, str] = {}  # prompt key -> kind, for each family's test prompts
    test_ids: dict[str, set[str]] = {}
    # The kinds each family's prompts meet: all of them, except where a family builds fewer distinct
    # prompts than there are kinds (KOR without the reference data: one embedded question per category).
    expected: dict[str, set[str]] = {}
    for name in FAMILIES:
        family = get_family(name)
        profile = profiles.get_profile("smoke", name)
        built = family.build_prompts(family.generate(profile, profiles.DEFAULT_SEED), profile)
        test_ids[name] = {p.prompt_id for p in built}
        keys = list(dict.fromkeys(prompt_key(p.messages) for p in built))
        for i, key in enumerate(keys):
            kinds[key] = HEAVY[i] if i < len(HEAVY) else LIGHT[(i - len(HEAVY)) % len(LIGHT)]
        expected[name] = {kinds[key] for key in keys}
        if paths.reference_dir().is_dir():
            assert expected[name] == set(HOSTILE_KINDS), (name, len(keys))
    assert set(kinds.values()) == set(HOSTILE_KINDS)  # every kind is met by some family

    def kind_of(messages: list[dict]) -> str:
        return kinds.get(prompt_key(messages)) or hostile_kind_for(messages)

    sent: dict[str, str] = {}

    def responder(messages: list[dict]) -> str:
        kind = kind_of(messages)
        sent[prompt_key(messages)] = kind
        return hostile_answer(kind, marker=str(marker))

    with FakeOpenAIServer(responder=responder) as server:
        isolated_home(mp, root, _models_yaml(server.api_base))
        from relreason_dagster.pipeline import run_models

        report = run_models([MODEL], profile="smoke")
    yield {
        "report": report,
        "kinds": kinds,
        "kind_of": kind_of,
        "sent": sent,
        "marker": marker,
        "test_ids": test_ids,
        "expected": expected,
        "home": root / "home",
    }
    mp.undo()


def _lake_counts(home: Path) -> list[tuple]:
    glob = str(home / "lake" / "responses" / "**" / "*.parquet")
    con = duckdb.connect()
    try:
        return con.execute(
            f"SELECT prompt_id, count(*) FROM read_parquet('{glob}', union_by_name = true)"
            f" WHERE model = '{MODEL}' GROUP BY prompt_id"
        ).fetchall()
    finally:
        con.close()


def test_the_run_finishes_and_every_prompt_has_exactly_one_row(run):
    assert run["report"].failures == []
    prompts = dict(rows("SELECT prompt_id, benchmark FROM raw.prompts"))
    per_prompt = dict(_lake_counts(run["home"]))
    assert set(per_prompt) == set(prompts)
    assert set(per_prompt.values()) == {1}  # one row each: nothing stored twice, nothing missing
    errors = rows(f"SELECT count(*) FROM raw.responses WHERE model = '{MODEL}' AND error IS NOT NULL")
    assert errors == [(0,)]
    # Every family's test prompts met every hostile kind.
    for name in FAMILIES:
        built_kinds = {
            run["kinds"][prompt_key(json.loads(m))]
            for pid, m in rows("SELECT prompt_id, messages FROM raw.prompts")
            if pid in run["test_ids"][name]
        }
        assert built_kinds == run["expected"][name], name
    assert not run["marker"].exists(), "model text was evaluated as code"


def test_text_is_stored_exactly_or_flagged(run):
    got = rows(
        "SELECT p.messages, r.content, r.sanitized FROM raw.responses r JOIN raw.prompts p USING (prompt_id)"
        f" WHERE r.model = '{MODEL}'"
    )
    assert got
    seen = set()
    for messages, content, sanitized in got:
        kind = run["kind_of"](json.loads(messages))
        seen.add(kind)
        sent = hostile_answer(kind, marker=str(run["marker"]))
        if kind in UNSTORABLE_KINDS:
            assert sanitized is True and content == clean_str(sent) and "\ufffd" in content
        else:
            assert sanitized is False and content == sent, kind  # NUL bytes and megabytes included
    assert seen == set(HOSTILE_KINDS)


def test_every_test_prompt_has_a_parsed_row(run):
    parsed = dict(rows(f"SELECT prompt_id, parse_status FROM raw.parsed_answers WHERE model = '{MODEL}'"))
    for name in FAMILIES:
        missing = run["test_ids"][name] - set(parsed)
        assert not missing, (name, sorted(missing)[:3])
        statuses = {parsed[pid] for pid in run["test_ids"][name]}
        assert statuses <= {"ok", "na", "refused"}, (name, statuses)
    # The metrics were built over them (dbt ran to the end).
    assert rows(f"SELECT count(*) > 0 FROM marts.parse_rate WHERE model = '{MODEL}'") == [(True,)]


FILLER = "lorem ipsum dolor sit amet " * 200_000  # 5.4 MB


@pytest.mark.parametrize("kind", HOSTILE_KINDS)
def test_readers_look_at_a_bounded_window(kind):
    """Megabytes of extra text beyond each reader's window change no verdict: its work is capped.

    Relational and FLenQA read the end of an answer (FLenQA's answer-first and coverage also its
    start); Self-Contra its start and end.  Text in the middle, however long, is never read.
    """
    from relreason_dagster.benchmarks.flenqa import parsing as flenqa_parsing
    from relreason_dagster.benchmarks.relational import parsing as relational_parsing
    from relreason_dagster.benchmarks.selfcontra import parsing as selfcontra_parsing

    answer = clean_str(hostile_answer(kind))
    assert len(selfcontra_parsing.clean_text(FILLER + answer)) <= selfcontra_parsing.MAX_CHARS + 5
    for name in ("relational", "flenqa", "selfcontra"):
        family = get_family(name)
        profile = profiles.get_profile("smoke", name)
        samples = family.generate(profile, profiles.DEFAULT_SEED)
        by_id = {s.sample_id: s for s in samples}
        checked = set()
        for prompt in family.build_prompts(samples, profile):
            sample = by_id[prompt.sample_id]
            if (sample.task, prompt.setting) in checked:
                continue
            checked.add((sample.task, prompt.setting))
            windows = {
                "relational": relational_parsing.MAX_CHARS,
                "flenqa": flenqa_parsing.MAX_CHARS,
                "selfcontra": selfcontra_parsing.MAX_CHARS // 2,
            }
            head = answer[: windows[name]] if name == "selfcontra" else ""
            tail = answer[-windows[name] :]
            short = family.parse(sample, prompt.setting, head + "\n" + FILLER[: windows[name]] + "\n" + tail)
            long = family.parse(sample, prompt.setting, head + "\n" + FILLER + "\n" + tail)
            assert (short.parse_status, short.parsed, short.correct) == (
                long.parse_status,
                long.parsed,
                long.correct,
            ), (name, sample.task, prompt.setting, kind)
