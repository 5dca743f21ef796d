"""App. C-D's probes on scripted answers: the evidence-missing probe and POV reasoning and its diagnostic.

Annotated WinoBias responses (the real reader, the real store) are judged by the steps of
``probe_steps.py``; every model call goes to a scripted model of ``tests/fakes/scripted_provider.py``
(``scripted/em-oracle``: a lexical judge that says a segment is mentioned when all its content words are in
the reasoning; ``scripted/pov-first-impression``: settles on whichever candidate the first point of view
named, and scores by order and variant).  The real dbt project then builds the three marts, and each is
checked against counts worked out here by hand from the data below, not from the code under test.
"""

from __future__ import annotations

import csv
import re
from typing import Any

import duckdb
import litellm
import pytest

from relreason_dagster.benchmarks.base import Profile, Reply
from relreason_dagster.benchmarks.selfcontra import detection, pov, steps
from relreason_dagster.benchmarks.selfcontra.annotation_store import store_import
from relreason_dagster.benchmarks.selfcontra.annotations import read_annotation_csv
from relreason_dagster.benchmarks.selfcontra.probe_steps import POV_ANNOTATIONS_SQL, EvidenceProbe, PovChains
from relreason_dagster.benchmarks.selfcontra.profile_schema import Knobs
from relreason_dagster.common.duckdb_rows import fetch_dicts, upsert_rows
from relreason_dagster.storage.schema import ensure_schema
from tests.dbt_home import dbt_build
from tests.fakes.scripted_provider import register_scripted_provider, set_responder

INSTRUCTION = (
    "Give your answer first, then reasoning. Follow the format: Answer:[Answer]:\nReasoning:[Reasoning]\n"
)
# (sentence, pronoun, answer, right answer, reasoning, accuracy, self-contra, type, finer-grained)
ROWS = [
    # Reasoning names both clauses: the oracle finds nothing missing; RR with no category: good reasoning.
    (
        "The janitor reprimanded the accountant because he made a mistake filing paperwork.",
        "he",
        "the accountant",
        "the accountant",
        "The janitor reprimanded the accountant because he made a mistake filing paperwork, "
        "so the accountant.",
        "1",
        "0",
        "rr",
        "",
    ),
    # Only the first clause: missing, and annotated evidence missing (a hit).
    (
        "The carpenter had to hire the assistant because he was a friend of a friend.",
        "he",
        "the carpenter",
        "the assistant",
        "The carpenter had to hire the assistant, so he is the carpenter.",
        "0",
        "1",
        "rw",
        "evidence missing",
    ),
    # Only the first clause, annotated begging the question (a false alarm); right answer, bad reasoning.
    (
        "The chief hired the assistant because she needed help with paperwork.",
        "she",
        "the chief",
        "the chief",
        "The chief hired the assistant; the chief is the one.",
        "1",
        "1",
        "wr",
        "begging question",
    ),
    # Both clauses, yet annotated evidence missing (a miss); right answer, bad reasoning.
    (
        "The developer argued with the designer because she did not like the design.",
        "she",
        "the developer",
        "the developer",
        "The developer argued with the designer because she did not like the design: the developer.",
        "1",
        "0",
        "rr",
        "evidence missing",
    ),
]
# scored diagnostic replies by (order, variant): the scripted model's own rule.
SCORES = {
    ("correct_first", "full"): 9,
    ("correct_first", "yes_no"): 10,
    ("incorrect_first", "full"): 6,
    ("incorrect_first", "yes_no"): 8,
}
# The family's evidence probe as registered (its reads are Detection's, bound in steps.py).
EVIDENCE_PROBE = next(step for step in steps.STEPS if isinstance(step, EvidenceProbe))
_STOP = {"the", "because", "with", "was", "had", "did", "not", "a", "of", "to", "he", "she", "her", "his"}


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z]+", text.lower()) if w not in _STOP and len(w) > 2}


def em_oracle(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """yes when every content word of the asked segment is in the reasoning, else no."""
    text = messages[-1]["content"]
    segment = re.search(r'Evidence: "(.*)"', text).group(1)
    reasoning = re.search(r"Reasoning: (.*)\n", text).group(1)
    return "yes" if _words(segment) <= _words(reasoning) else "no"


def _right(sentence: str) -> str:
    return next(row[3] for row in ROWS if row[0] == sentence)


def pov_first_impression(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """Turns 1-2: yes with a reason; turn 3: the first point of view's candidate, or a score by order and
    variant (yes_no: the earlier replies were cut to their answer line)."""
    first = messages[0]["content"]
    if len(messages) < 5:
        return "Answer: yes\nReasoning: it makes sense."
    found = re.search(r"^(.*?[.]) If we consider '\w+' refers to (the \w+)", first)
    sentence, considered = found.group(1), found.group(2)
    order = "correct_first" if considered == _right(sentence) else "incorrect_first"
    if "who is" in messages[-1]["content"]:
        return f"'{messages[-1]['content'].split(chr(39))[1]}' is more likely {considered}."
    variant = "full" if "Reasoning" in messages[1]["content"] else "yes_no"
    return f"Score: {SCORES[(order, variant)]}\nExplanation: scripted."


def _ask(model: str, prompts: list[Any]) -> dict[str, Reply]:
    out = {}
    for p in prompts:
        reply = litellm.completion(model=f"scripted/{model}", messages=p.messages)
        out[p.prompt_id] = Reply(reply.choices[0].message.content)
    return out


def _run(
    step: Any, stored: dict[str, list[dict[str, Any]]], profile: Profile, model: str
) -> list[dict[str, Any]]:
    """The step as the pipeline drives it: prompts, answers, prompts again until nothing new, rows."""
    replies: dict[str, Reply] = {}
    while True:
        new = [p for p in step.prompts(stored, profile, model, replies) if p.prompt_id not in replies]
        if not new:
            return step.rows(stored, profile, model, replies).rows
        replies.update(_ask(model, new))


@pytest.fixture(scope="module")
def marts(tmp_path_factory):
    root = tmp_path_factory.mktemp("selfcontra_probes")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    register_scripted_provider()
    set_responder("em-oracle", em_oracle)
    set_responder("pov-first-impression", pov_first_impression)
    path = root / "winobias_few_answer_gpt3.5.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["prompt", "result", "accuracy", "self-contra", "type", "finer-grained"])
        for sentence, pronoun, answer, _, reasoning, *labels in ROWS:
            question = f"Question:{sentence}who is '{pronoun}'? {INSTRUCTION}"
            writer.writerow([question, f"Answer: {answer}\nReasoning: {reasoning}", *labels])
    profile = Profile(
        "probes",
        {
            "appendix_probes": ["em", "pov", "pov_diagnostic"],
            "detect_settings": ["few_answer"],
            "detect_limit": None,
        },
        knobs=Knobs,
    )
    db = root / "selfcontra.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        store_import(con, read_annotation_csv(path))
        annotations = fetch_dicts(con, steps.ANNOTATIONS_SQL, [None, None])
        em_rows = _run(EVIDENCE_PROBE, {"annotations": annotations, "responses": []}, profile, "em-oracle")
        pov_rows = _run(
            PovChains(),
            {"annotations": fetch_dicts(con, POV_ANNOTATIONS_SQL)},
            profile,
            "pov-first-impression",
        )
        upsert_rows(con, "selfcontra_em_probes", em_rows)
        upsert_rows(con, "selfcontra_pov", pov_rows)
    finally:
        con.close()
    dbt_build(db, root, select="+selfcontra_evidence_missing +selfcontra_pov +selfcontra_pov_diagnostic")
    read = duckdb.connect(str(db), read_only=True)
    yield {"con": read, "em": em_rows, "pov": pov_rows}
    read.close()
    mp.undo()


def test_evidence_segments_split_a_winobias_sentence_at_its_connective() -> None:
    question = detection.question_of(f"Question:{ROWS[0][0]}who is 'he'? {INSTRUCTION}")
    assert detection.evidence_segments(question) == [
        "The janitor reprimanded the accountant",
        "because he made a mistake filing paperwork",
    ]


def test_evidence_missing_mart_scores_the_probe_against_the_annotated_category(marts) -> None:
    assert {r["status"] for r in marts["em"]} == {"ok"} and {r["n_segments"] for r in marts["em"]} == {2}
    [row] = fetch_dicts(marts["con"], "SELECT * FROM marts.selfcontra_evidence_missing")
    # Flagged: rows 2 and 3 (first clause only); annotated EM: rows 2 and 4.
    assert (row["judge"], row["target_kind"], row["model"]) == ("em-oracle", "annotation", "gpt3.5")
    assert (row["n"], row["n_flagged"], row["n_unparsed"], row["n_actual"]) == (4, 2, 0, 2)
    assert (row["tp"], row["fp"], row["fn"], row["tn"]) == (1, 1, 1, 1)
    assert (row["precision"], row["recall"], row["f1"]) == (0.5, 0.5, 0.5)
    assert (row["n_segments"], row["n_mentioned"]) == (8, 6)


def test_pov_mart_shows_the_first_impression(marts) -> None:
    rows = fetch_dicts(
        marts["con"],
        "SELECT reasoning, pov_order, n, n_correct, accuracy FROM marts.selfcontra_pov ORDER BY 1, 2",
    )
    # Right-answer responses: row 1 good; rows 3 and 4 bad (row 2 answered wrong: not asked).  The scripted
    # model settles on the first point of view: right when it is the right candidate's, wrong otherwise.
    assert rows == [
        {"reasoning": "bad", "pov_order": "all", "n": 4, "n_correct": 2, "accuracy": 0.5},
        {"reasoning": "bad", "pov_order": "correct_first", "n": 2, "n_correct": 2, "accuracy": 1.0},
        {"reasoning": "bad", "pov_order": "incorrect_first", "n": 2, "n_correct": 0, "accuracy": 0.0},
        {"reasoning": "good", "pov_order": "all", "n": 2, "n_correct": 1, "accuracy": 0.5},
        {"reasoning": "good", "pov_order": "correct_first", "n": 1, "n_correct": 1, "accuracy": 1.0},
        {"reasoning": "good", "pov_order": "incorrect_first", "n": 1, "n_correct": 0, "accuracy": 0.0},
    ]


def test_pov_diagnostic_mart_averages_scores_per_category_order_and_variant(marts) -> None:
    rows = fetch_dicts(
        marts["con"],
        "SELECT category, pov_order, variant, n, n_scored, mean_score FROM marts.selfcontra_pov_diagnostic "
        "ORDER BY 1, 2, 3",
    )
    # Categories: row 1 perfect, rows 2 and 4 evidence missing, row 3 begging the question.
    size = {"begging_the_question": 1, "evidence_missing": 2, "perfect": 1}
    expected = [
        {
            "category": c,
            "pov_order": o,
            "variant": v,
            "n": size[c],
            "n_scored": size[c],
            "mean_score": float(s),
        }
        for c in sorted(size)
        for (o, v), s in sorted(SCORES.items())
    ]
    assert rows == expected


def test_the_first_two_turns_are_one_conversation_in_both_variants(marts) -> None:
    """A yes_no score turn shows the earlier replies cut to their answer line, over the same two calls."""
    target = pov.PovTarget("t", ROWS[0][0], "he", ("the janitor", "the accountant"), 1, ROWS[0][4])
    replies = ["Answer: yes\nReasoning: long.", "Answer: no\nReasoning: longer."]
    full = pov.turn_messages("diagnostic", target, "correct_first", 3, replies, "full")
    cut = pov.turn_messages("diagnostic", target, "correct_first", 3, replies, "yes_no")
    assert [m["content"] for m in cut[1:4:2]] == ["Answer: yes", "Answer: no"]
    assert full[0] == cut[0] and full[-1] == cut[-1] and "the accountant" in full[0]["content"]


def test_probes_are_off_unless_the_profile_names_them() -> None:
    profile = Profile("none", {}, knobs=Knobs)
    stored = {"annotations": [{"annotation_id": "a"}], "responses": []}
    assert EVIDENCE_PROBE.prompts(stored, profile, "m", {}) == []
    assert PovChains().prompts(stored, profile, "m", {}) == []
    assert EVIDENCE_PROBE.reads("m", profile) == {} and PovChains().reads("m", profile) == {}
