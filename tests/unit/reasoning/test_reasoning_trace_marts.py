"""Self-Contra and relational analyses of the reasoning trace (issue 47, acceptance 1 for their marts).

A scripted reasoning model (the ``scripted`` LiteLLM provider, named as such) answers through the real
gateway with a ``<think>…</think>`` trace before its answer, so the trace is stored in
``raw.responses.reasoning`` exactly as a provider's would be; a scripted plain model answers the same
without a trace.  Their answers are parsed by the real families, the real steps (the judge's detection,
the trace readings, the symbolic check) run on them under each ``reasoning_source`` setting — one model
name per setting, since a setting is a profile's — a scripted judge (it flags a reasoning that says
"Maybe") answers through the gateway too, and the real dbt project builds the marts once.  Every
expected count below follows from the scripts, by construction:

Self-Contra, six generated items, zero_answer (answer: gold unless said; trace's conclusion):
  0 agree: trace concludes gold | 1 answer gold, trace concludes the other ("Maybe") | 2 answer the
  other, trace concludes gold ("Maybe") | 3 trace names both, states no referent | 4 no trace |
  5 answer hedges (N/A), trace concludes gold.
Relational, four HasFather samples, nl_cot, every answer right and restating one given fact:
  trace 0: a given fact + a true derived one | 1: a false derived fact + an unsupported one
  (cousin: undefined) | 2: an unsupported one | 3: no trace.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import duckdb
import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.base import Profile, Prompt, Reply, Sample
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.benchmarks.relational import steps as relational_steps
from relreason_dagster.benchmarks.relational.generate import make_sample, sample_predicates
from relreason_dagster.benchmarks.relational.profile_schema import Knobs as RelationalKnobs
from relreason_dagster.benchmarks.selfcontra.family import item_of
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs as SelfContraKnobs
from relreason_dagster.benchmarks.selfcontra.steps import Detection
from relreason_dagster.benchmarks.selfcontra.trace_readings import TraceReadings
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from relreason_dagster.storage.schema import ensure_schema
from tests.dbt_home import dbt_build, dicts, insert
from tests.fakes.scripted_provider import register_scripted_provider, set_responder

SETTINGS = ("answer", "trace", "both", "auto")
# Model name -> (scripted provider name, reasoning_source): the reasoner under every setting, the plain
# model under auto (no traces: the answer only) and under trace (empty traces, never its answer).
MODELS = {
    **{f"r-{s}": ("trace-reasoner", s) for s in SETTINGS},
    "plain-auto": ("trace-plain", "auto"),
    "plain-trace": ("trace-plain", "trace"),
}
JUDGE = "scripted-judge"
MARTS = (
    "selfcontra_judged",
    "selfcontra_trace_vs_answer",
    "selfcontra_vs_study",
    "relational_trace_claims",
    "relational_symbolic_scr",
)


def _spec(name: str, scripted: str) -> ModelEntry:
    return ModelEntry(name=name, litellm_model=f"scripted/{scripted}", concurrency=4, max_attempts=1)


def _script(replies: dict[str, tuple[str, str | None]]) -> None:
    """The reasoner answers ``<think>trace</think>answer``, the plain model the answer alone."""

    def reasoner(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        answer, trace = replies[messages[-1]["content"]]
        return answer if trace is None else f"<think>{trace}</think>\n{answer}"

    set_responder("trace-reasoner", reasoner)
    set_responder("trace-plain", lambda messages, params: replies[messages[-1]["content"]][0])


def _answer_all(
    con: duckdb.DuckDBPyConnection, family: str, built: list[Prompt], samples: dict[str, Sample]
) -> None:
    """Every model answers ``built`` through the gateway; the family parses what was stored."""
    store = ResponseStore(Lake.default())
    asked = [{**p.row(), "benchmark": family, "messages": p.messages} for p in built]
    parser = get_family(family)
    for name, (scripted, _) in MODELS.items():
        stats = run_model(store, _spec(name, scripted), asked)
        assert stats.errors == 0
        stored = dict(
            con.execute("SELECT prompt_id, content FROM raw.responses WHERE model = ?", [name]).fetchall()
        )
        rows = []
        for p in built:
            keys = {
                "prompt_id": p.prompt_id,
                "model": name,
                "sample_id": p.sample_id,
                "benchmark": family,
                "task": p.task,
                "split": p.split,
                "setting": p.setting,
            }
            rows.append(parser.parse(samples[p.sample_id], p.setting, stored[p.prompt_id]).row(keys))
        insert(con, "parsed_answers", rows)


def _stored(con: duckdb.DuckDBPyConnection, step: Any, model: str | None, profile: Profile) -> dict[str, Any]:
    """What the generic layer hands a step: its reads, as row dicts."""
    return {name: dicts(con, sql, params) for name, (sql, params) in step.reads(model, profile).items()}


# ------------------------------------------------------------------------------------------ Self-Contra


def _selfcontra_profile(setting: str) -> Profile:
    params = dict(profiles.get_profile("smoke", "selfcontra").params)
    params.update(
        sources={"generated": 6},
        settings=["zero_answer"],
        detect_methods=["binary"],
        detect_limit=0,
        reasoning_source=setting,
    )
    return Profile(name="test", params=params, knobs=SelfContraKnobs)


def _selfcontra_replies(samples: list[Sample]) -> dict[str, str | None]:
    """Per sample id: (answer text, trace) as the module docstring scripts them."""
    out = {}
    for i, sample in enumerate(samples):
        item = item_of(sample)
        gold, other = item.candidates[item.gold], item.candidates[1 - item.gold]
        answer = f"Answer: {other if i == 2 else gold}\nReasoning: The sentence says so."
        if i == 5:
            answer = "Answer: It is not possible to determine.\nReasoning: Either could be meant."
        trace = {
            0: f"I read the sentence again. So the answer is {gold}.",
            1: f"Maybe the pronoun points back. So the answer is {other}.",
            2: f"Maybe it is about the work. So the answer is {gold}.",
            3: f"The sentence mentions {item.candidates[0]} and {item.candidates[1]}. Hard to tell.",
            4: None,
            5: f"I think it through. So the answer is {gold}.",
        }[i]
        out[sample.sample_id] = (answer, trace)
    return out


def _judge(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """Flags (1) the judged triple whose reasoning says "Maybe"; the demonstrations never do."""
    asked = messages[-1]["content"].rsplit("Question:", 1)[-1]
    return "1" if "Maybe" in asked else "0"


def _selfcontra(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    family = get_family("selfcontra")
    profile = _selfcontra_profile("both")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    built = family.build_prompts(samples, profile)
    assert len(samples) == len(built) == 6
    insert(con, "samples", [s.row() for s in samples])
    insert(con, "prompts", [p.row() for p in built])
    replies = _selfcontra_replies(samples)
    _script({p.messages[-1]["content"]: replies[p.sample_id] for p in built})
    _answer_all(con, "selfcontra", built, {s.sample_id: s for s in samples})

    step, readings = Detection(), TraceReadings()
    set_responder("trace-judge", _judge)
    judge = _spec(JUDGE, "trace-judge")
    store = ResponseStore(Lake.default())
    asked: dict[str, set[str]] = {}
    now = dt.datetime(2026, 1, 1)
    for name, (_, setting) in MODELS.items():
        profile = _selfcontra_profile(setting)
        # The judge step runs over every model; here each setting's own model is judged under it.
        stored = _stored(con, step, JUDGE, profile)
        stored["responses"] = [r for r in stored["responses"] if r["model"] == name]
        prompts = step.prompts(stored, profile, JUDGE, {})
        asked[name] = {p.prompt_id for p in prompts}
        run_model(store, judge, [{**p.row("selfcontra", "judge"), "messages": p.messages} for p in prompts])
        got = dict(
            con.execute(f"SELECT prompt_id, content FROM raw.responses WHERE model = '{JUDGE}'").fetchall()
        )
        out = step.rows(stored, profile, JUDGE, {pid: Reply(got[pid]) for pid in asked[name]})
        insert(con, "detections", [{**r, "created_at": now} for r in out.rows])
        read = readings.rows(_stored(con, readings, name, profile), profile, name, {})
        insert(con, "selfcontra_trace_readings", read.rows)
    # The same judge prompts asked again: the gateway answers every one from the store.
    again = _selfcontra_profile("both")
    stored = _stored(con, step, JUDGE, again)
    stored["responses"] = [r for r in stored["responses"] if r["model"] == "r-both"]
    prompts = step.prompts(stored, again, JUDGE, {})
    rerun = run_model(
        store, judge, [{**p.row("selfcontra", "judge"), "messages": p.messages} for p in prompts]
    )
    return {"asked": asked, "rerun_called": rerun.called}


# ------------------------------------------------------------------------------------------- relational


def _relational_profile(setting: str) -> Profile:
    return Profile(name="test", params={"reasoning_source": setting}, knobs=RelationalKnobs)


def _relational(con: duckdb.DuckDBPyConnection) -> None:
    family = get_family("relational")
    samples = [make_sample("HasFather", "iid", i, 10, profiles.DEFAULT_SEED) for i in range(4)]
    insert(con, "samples", [s.row() for s in samples])
    built, replies = [], {}
    for i, sample in enumerate(samples):
        messages = [{"role": "user", "content": f"Scripted relational question {i}: who has a father?"}]
        prompt = Prompt.for_sample(sample, relational_steps.COT_SETTING, messages, "scripted-v1", 256)
        built.append(prompt)
        x, y = sorted(sample_predicates(sample)["IsFather"])[0]  # P{y} is P{x}'s father
        a, b = [k for k in range(10) if k not in (x, y)][:2]  # two others: "P{a} is P{b}'s cousin"
        final = family.render_gold(sample, relational_steps.COT_SETTING).rsplit("Final answer:", 1)[1]
        answer = f"P{y} is P{x}'s father.\nFinal answer:{final}"
        trace = {
            0: f"P{y} is P{x}'s father. P{y} is male.",
            1: f"P{y} is P{x}'s son. P{a} is P{b}'s cousin.",
            2: f"P{a} is P{b}'s cousin.",
            3: None,
        }[i]
        replies[messages[-1]["content"]] = (answer, trace)
    insert(con, "prompts", [p.row() for p in built])
    _script(replies)
    _answer_all(con, "relational", built, {s.sample_id: s for s in samples})
    step = relational_steps.SymbolicChecks()
    for name, (_, setting) in MODELS.items():
        profile = _relational_profile(setting)
        out = step.rows(_stored(con, step, name, profile), profile, name, {})
        insert(con, "cot_checks", out.rows)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("reasoning_trace_marts")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    register_scripted_provider()
    db = root / "trace.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        facts = _selfcontra(con)
        _relational(con)
        traces = dict(
            con.execute(
                "SELECT model, count(*) FILTER (WHERE coalesce(reasoning, '') <> '') FROM raw.responses "
                "WHERE model LIKE 'r-%' OR model LIKE 'plain-%' GROUP BY model"
            ).fetchall()
        )
    finally:
        con.close()
    dbt_build(db, root, select=" ".join(f"+{mart}" for mart in MARTS))
    read = duckdb.connect(str(db), read_only=True)
    yield {"con": read, "traces": traces, **facts}
    read.close()
    for name in ("trace-reasoner", "trace-plain", "trace-judge"):
        set_responder(name, None)
    mp.undo()


def test_the_traces_are_stored_apart_from_the_answers(built):
    # 5 of 6 Self-Contra and 3 of 4 relational responses of the reasoner carry a trace; the plain none.
    assert built["traces"] == {**{f"r-{s}": 8 for s in SETTINGS}, "plain-auto": 0, "plain-trace": 0}


# Self-Contra: selfcontra_judged per model (its setting) and source.
ANSWER_ROW = {"n": 6, "n_judged": 6, "n_empty": 0, "judged_scr": 0.0, "n_type1": 0, "n_type2": 0}
TRACE_ROW = {"n": 6, "n_judged": 5, "n_empty": 1, "judged_scr": 0.4, "n_type1": 1, "n_type2": 1}
EMPTY_TRACE_ROW = {"n": 6, "n_judged": 0, "n_empty": 6, "judged_scr": None, "n_type1": 0, "n_type2": 0}
JUDGED = {
    "r-answer": {"answer": ANSWER_ROW},
    "r-trace": {"trace": TRACE_ROW},
    "r-both": {"answer": ANSWER_ROW, "trace": TRACE_ROW},
    "r-auto": {"answer": ANSWER_ROW, "trace": TRACE_ROW},
    "plain-auto": {"answer": ANSWER_ROW},
    "plain-trace": {"trace": EMPTY_TRACE_ROW},
}


def test_selfcontra_judged_by_source(built):
    rows = dicts(built["con"], "SELECT * FROM marts.selfcontra_judged WHERE judge = 'scripted-judge'")
    got: dict[str, dict[str, dict[str, Any]]] = {}
    for r in rows:
        got.setdefault(r["model"], {})[r["source"]] = {k: r[k] for k in ANSWER_ROW}
        assert r["accuracy"] == round(4 / 6, 4)  # items 2 (the other) and 5 (N/A) are wrong
    assert got == JUDGED


def test_a_trace_is_its_own_judge_request_and_a_rerun_asks_nothing(built):
    asked = built["asked"]
    # Answer-side prompts are the same for every model (identical texts share a prompt); the trace's are
    # others: five traces with text (the sixth asks nothing), none shared with the answer's.
    assert len(asked["r-answer"]) == 6 and asked["plain-auto"] == asked["r-answer"]
    assert len(asked["r-trace"]) == 5 and not asked["r-trace"] & asked["r-answer"]
    assert asked["r-both"] == asked["r-auto"] == asked["r-answer"] | asked["r-trace"]
    assert asked["plain-trace"] == set()
    assert built["rerun_called"] == 0


def test_selfcontra_trace_vs_answer(built):
    rows = {r["model"]: r for r in dicts(built["con"], "SELECT * FROM marts.selfcontra_trace_vs_answer")}
    # The answer setting and a model without traces under auto read no trace: no row.
    assert set(rows) == {"r-trace", "r-both", "r-auto", "plain-trace"}
    expected = {
        "dataset": "generated",
        "n": 6,
        "n_with_trace": 5,
        "n_trace_referent": 4,  # items 0, 1, 2, 5 (3 states none, 4 has no trace)
        "n_answer_referent": 4,  # items 0-3 (5 is N/A)
        "n_both": 3,
        "n_agree": 1,
        "n_contradicting": 2,
        "n_trace_right_answer_wrong": 1,
        "n_trace_wrong_answer_right": 1,
        "rate": 0.4,
    }
    for model in ("r-trace", "r-both", "r-auto"):
        assert {k: rows[model][k] for k in expected} == expected, model
        assert rows[model]["ci_low"] < 0.4 < rows[model]["ci_high"]
    plain = rows["plain-trace"]
    assert (plain["n"], plain["n_with_trace"], plain["n_contradicting"], plain["rate"]) == (6, 0, 0, None)


def test_the_published_comparison_reads_the_answer_only(built):
    models = {r["model"] for r in dicts(built["con"], "SELECT model FROM marts.selfcontra_vs_study")}
    assert "r-trace" not in models and "plain-trace" not in models
    assert {"r-answer", "r-both"} <= models


# Relational: relational_trace_claims and relational_symbolic_scr per model and source.
ANSWER_CLAIMS = {
    "n": 4,
    "n_empty": 0,
    "n_claims": 4,
    "n_checked": 4,
    "n_derived": 0,
    "n_unsupported_derived": 0,
    "n_false_derived": 0,
    "n_with_false_derived": 0,
    "claims_per_response": 1.0,
    "unsupported_derived_per_response": 0.0,
    "false_derived_per_response": 0.0,
}
TRACE_CLAIMS = {
    "n": 4,
    "n_empty": 1,
    "n_claims": 5,
    "n_checked": 3,
    "n_derived": 4,
    "n_unsupported_derived": 2,
    "n_false_derived": 1,
    "n_with_false_derived": 1,
    "claims_per_response": 1.25,
    "unsupported_derived_per_response": 0.5,
    "false_derived_per_response": 0.25,
}
EMPTY_CLAIMS = {
    **{k: 0 for k in ANSWER_CLAIMS},
    "n": 4,
    "n_empty": 4,
    "claims_per_response": 0.0,
    "unsupported_derived_per_response": 0.0,
    "false_derived_per_response": 0.0,
}
CLAIMS = {
    "r-answer": {"answer": ANSWER_CLAIMS},
    "r-trace": {"trace": TRACE_CLAIMS},
    "r-both": {"answer": ANSWER_CLAIMS, "trace": TRACE_CLAIMS},
    "r-auto": {"answer": ANSWER_CLAIMS, "trace": TRACE_CLAIMS},
    "plain-auto": {"answer": ANSWER_CLAIMS},
    "plain-trace": {"trace": EMPTY_CLAIMS},
}


def test_relational_trace_claims(built):
    got: dict[str, dict[str, dict[str, Any]]] = {}
    for r in dicts(built["con"], "SELECT * FROM marts.relational_trace_claims"):
        assert (r["task"], r["split"]) == ("HasFather", "iid")
        got.setdefault(r["model"], {})[r["source"]] = {k: r[k] for k in ANSWER_CLAIMS}
    assert got == CLAIMS


def test_relational_symbolic_scr_by_source(built):
    got = {
        (r["model"], r["source"]): (
            r["n_checked"],
            r["n_rr"],
            r["n_type2"],
            r["n_unchecked"],
            r["symbolic_scr"],
        )
        for r in dicts(built["con"], "SELECT * FROM marts.relational_symbolic_scr")
    }
    answer, trace, empty = (4, 4, 0, 0, 0.0), (2, 1, 1, 2, 0.5), (0, 0, 0, 4, None)
    assert got == {
        ("r-answer", "answer"): answer,
        ("r-trace", "trace"): trace,
        ("r-both", "answer"): answer,
        ("r-both", "trace"): trace,
        ("r-auto", "answer"): answer,
        ("r-auto", "trace"): trace,
        ("plain-auto", "answer"): answer,
        ("plain-trace", "trace"): empty,
    }


# ------------------------------------------------------------------------------ the pure readings alone


def test_a_trace_reaches_its_last_explicit_referent_statement():
    from relreason_dagster.benchmarks.selfcontra.items import WinoItem
    from relreason_dagster.benchmarks.selfcontra.parsing import trace_referent

    item = WinoItem(
        dataset="generated",
        item_id="t",
        sentence="The janitor reprimanded the accountant because he made a mistake.",
        pronoun="he",
        candidates=("the janitor", "the accountant"),
        gold=1,
        style="who",
    )
    explored = (
        "Maybe 'he' refers to the janitor. But the mistake is paperwork. So 'he' refers to the accountant."
    )
    assert trace_referent(explored, item) == 1  # the last statement, not the first
    assert trace_referent("So the answer is the janitor. Hmm, hard to say more.", item) == 0
    assert trace_referent("'He' does not refer to the accountant.", item) is None  # negated: states nothing
    assert trace_referent("The sentence names the janitor and the accountant.", item) is None  # a mention
    assert trace_referent("", item) is None


def test_a_restated_base_fact_is_given_and_everything_else_derived():
    from relreason_dagster.benchmarks.relational.cot_relations import Claim
    from relreason_dagster.benchmarks.relational.cot_verdict import is_given

    preds = {"IsFather": {(2, 6)}, "HasEdge": {(1, 3)}}  # P6 is P2's father; an edge P1-P3

    def claim(subject: int, relation: str, obj: int | None, negated: bool = False) -> Claim:
        return Claim(subject=subject, relation=relation, obj=obj, negated=negated, step=0, text="")

    assert is_given(claim(6, "father", 2), preds)
    assert not is_given(claim(2, "father", 6), preds)  # the converse is no fact of the prompt
    assert not is_given(claim(6, "father", 2, negated=True), preds)
    assert not is_given(claim(6, "male", None), preds)  # true, but derived
    assert not is_given(claim(6, "grandfather", 2), preds)
    assert is_given(claim(3, "edge", 1), preds) and not is_given(claim(1, "edge", 2), preds)
