"""FLenQA's CoT reads of the reasoning trace, and reasoning tokens against input length (issue 47).

A scripted reasoning model (``scripted/fl-thinker``, named as such: a responder in Python, no model)
thinks in a ``<think>…</think>`` block before a short answer, and its traces are known by construction:
per sample, in turn, the trace reproduces both key sentences that the answer leaves out ("keys only in
the trace"), states the verdict in its first word and reasons after it ("early"), reproduces one key
sentence ("one key"), or both key sentences that the answer reproduces too ("keys in both").  Its
filler grows with the prompt (one more sentence per 150 words), so it thinks longer on longer texts,
and it is wrong exactly on the "one key" samples.  A scripted model without reasoning
(``fl-plain``) answers every prompt with the gold response.

One real run (CLI, DuckDB, the step, dbt) per value of the knob reasoning_source on the same prompts
(the later runs send no call); each new or changed mart is checked against counts derived from the
script alone: the reads from the construction, the reasoning tokens from the project's tokenizer on
the scripted traces.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any

import pytest
import yaml
from scipy import stats

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.cli import main
from relreason_dagster.common.tokenizer import DEFAULT_TOKENIZER, count_tokens
from tests.fakes.scripted_provider import call_count, register_scripted_provider, reset_calls, set_responder
from tests.pipeline_home import isolated_home, rows, scripted_models_yaml

pytestmark = pytest.mark.integration

THINKER, PLAIN = "fl-thinker", "fl-plain"
MODELS_YAML = scripted_models_yaml(THINKER, PLAIN)
KINDS = ("keys_in_trace", "early", "one_key", "keys_in_both")
KNOBS = ("both", "trace", "answer")
PROFILES = {
    f"fl_{knob}": {"extends": "smoke", "flenqa": {"settings": ["direct", "cot"], "reasoning_source": knob}}
    for knob in KNOBS
}
FILLER = "and then I read the next paragraph of the text carefully"


class Script:
    """What the scripted models answer, and every fact the marts must show, known per prompt."""

    def __init__(self) -> None:
        family = get_family("flenqa")
        profile = profiles.get_profile("fl_both", "flenqa")
        samples = sorted(family.generate(profile, profiles.DEFAULT_SEED), key=lambda s: s.sample_id)
        kind_of = {s.sample_id: KINDS[i % len(KINDS)] for i, s in enumerate(samples)}
        by_id = {s.sample_id: s for s in samples}
        self.prompts: list[dict[str, Any]] = []
        self.by_text: dict[str, dict[str, Any]] = {}
        for p in family.build_prompts(samples, profile):
            s = by_id[p.sample_id]
            text = p.messages[-1]["content"]
            # A text asked twice (smoke's 250-token text of an instance whose key paragraphs already fill
            # 250 tokens is its minimal text) is one call: the reply is the first asker's.
            reply = self.by_text.get(text) or self._reply(family, s, p.setting, text, kind_of[s.sample_id])
            self.by_text[text] = reply
            self.prompts.append(
                {
                    **reply,
                    "task": s.task,
                    "setting": p.setting,
                    "length": int(s.variant.get("length") or 0),
                    "padding": s.variant.get("padding") or "none",
                    "position": s.variant.get("position") or "none",
                }
            )

    @staticmethod
    def _reply(family: Any, s: Any, setting: str, text: str, kind: str) -> dict[str, Any]:
        """Both models' replies to one prompt text, and what §7's reads must find in each."""
        # It thinks longer on a longer text: one more filler sentence per 150 words of the prompt.
        repeats = 1 + len(text.split()) // 150
        correct = kind != "one_key"  # one key sentence found: the wrong verdict
        verdict = "True" if s.label else "False"
        said = verdict if correct else ("False" if s.label else "True")
        first, second = s.input["key_sentences"]
        filler = " ".join([FILLER] * repeats)
        trace = {
            "keys_in_trace": f"Let me find the facts. {first} {second} {filler}.",
            "early": f"{said}. I will still check it against the text step by step, {filler}.",
            "one_key": f"Let me find the facts. {first} {filler}.",
            "keys_in_both": f"Let me find the facts. {first} {second} {filler}.",
        }[kind]
        if setting == "direct":
            answer = said
        elif kind == "keys_in_both":
            answer = f"Step 1: {first}\nStep 2: {second}\nSo the answer is {said}."
        else:
            answer = f"So the answer is {said}."
        return {
            "correct": correct,
            "thinker": f"<think>{trace}</think>{answer}",
            "plain": family.render_gold(s, setting),
            "tokens": count_tokens(trace, DEFAULT_TOKENIZER),
            # §7's reads by construction, per model and source: (answer_first, keys_covered).
            "reads": {
                (THINKER, "trace"): (
                    kind == "early",
                    {"keys_in_trace": 2, "early": 0, "one_key": 1}.get(kind, 2),
                ),
                (THINKER, "answer"): (False, 2 if kind == "keys_in_both" and setting == "cot" else 0),
                (PLAIN, "trace"): (False, 0),
                (PLAIN, "answer"): (False, 2 if setting == "cot" else 0),
            },
        }


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    root = tmp_path_factory.mktemp("flenqa_traces")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, MODELS_YAML)
    profile_file = root / "traces.yaml"
    profile_file.write_text(yaml.safe_dump(PROFILES), encoding="utf-8")
    mp.setenv(profiles.PROFILE_FILE_ENV, str(profile_file))
    made = Script()
    register_scripted_provider()
    set_responder(THINKER, lambda messages, params: made.by_text[messages[-1]["content"]]["thinker"])
    set_responder(PLAIN, lambda messages, params: made.by_text[messages[-1]["content"]]["plain"])
    made.profile_file = profile_file  # type: ignore[attr-defined]
    yield made
    set_responder(THINKER, None)
    set_responder(PLAIN, None)
    mp.undo()


def _run(script: Script, knob: str) -> int:
    """One run of both models under the knob; the calls it made."""
    reset_calls()
    argv = ["run", "--profile-file", str(script.profile_file), "--profile", f"fl_{knob}"]  # type: ignore[attr-defined]
    argv += ["--benchmark", "flenqa", "--model", THINKER, "--model", PLAIN]
    assert main(argv) == 0
    return call_count()


def _sources(knob: str) -> dict[str, tuple[str, ...]]:
    return {
        "both": {THINKER: ("answer", "trace"), PLAIN: ("answer", "trace")},
        "trace": {THINKER: ("trace",), PLAIN: ("trace",)},
        "answer": {THINKER: ("answer",), PLAIN: ("answer",)},
    }[knob]


def _expected_cot(script: Script, knob: str) -> list[tuple]:
    """marts.flenqa_cot's counts: (model, source, task, length, n, n_answer_first, n_covered, n_correct)."""
    cells: dict[tuple, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for f in script.prompts:
        if f["setting"] != "cot":
            continue
        for model, sources in _sources(knob).items():
            for source in sources:
                first, covered = f["reads"][(model, source)]
                cell = cells[(model, source, f["task"], f["length"])]
                right = f["correct"] if model == THINKER else True
                cell[0] += 1
                cell[1] += first
                cell[2] += covered >= 2
                cell[3] += right
    return sorted((*k, *v) for k, v in cells.items())


def _expected_dependence(script: Script, knob: str) -> list[tuple]:
    """marts.flenqa_cot_dependence's counts: model, source, length, factor, n, n_exposed, n_exposed_wrong."""
    cells: dict[tuple, list[int]] = defaultdict(lambda: [0, 0, 0])
    for f in script.prompts:
        if f["setting"] != "cot":
            continue
        for model, sources in _sources(knob).items():
            wrong = not f["correct"] if model == THINKER else False
            for source in sources:
                first, covered = f["reads"][(model, source)]
                for factor, exposed in (("answer_first", first), ("incomplete_coverage", covered < 2)):
                    cell = cells[(model, source, f["length"], factor)]
                    cell[0] += 1
                    cell[1] += exposed
                    cell[2] += exposed and wrong
    return sorted((*k, *v) for k, v in cells.items())


def _expected_length(script: Script) -> list[tuple]:
    """marts.flenqa_reasoning_length: setting, task, length, padding, position, n, with trace, mean,
    median, correct."""
    cells: dict[tuple, list[dict[str, Any]]] = defaultdict(list)
    for f in script.prompts:
        cells[(f["setting"], f["task"], f["length"], f["padding"], f["position"])].append(f)
    return sorted(
        (
            *k,
            len(fs),
            len(fs),
            round(statistics.mean(f["tokens"] for f in fs), 2),
            round(float(statistics.median(f["tokens"] for f in fs)), 2),
            sum(f["correct"] for f in fs),
        )
        for k, fs in cells.items()
    )


def _expected_recovery(script: Script) -> list[tuple]:
    """marts.flenqa_reasoning_recovery: setting, length, n, n_long, its right answers (None when there is no
    long answer), n_short, its right answers, and the rank correlation."""
    out = []
    for setting in ("cot", "direct"):
        fs = [f for f in script.prompts if f["setting"] == setting]
        rho = round(float(stats.spearmanr([f["tokens"] for f in fs], [f["length"] for f in fs]).statistic), 4)
        for length in sorted({f["length"] for f in fs}):
            at = [f for f in fs if f["length"] == length]
            median = statistics.median(f["tokens"] for f in at)
            long = [f for f in at if f["tokens"] > median]
            short = [f for f in at if f["tokens"] <= median]
            out.append(
                (
                    setting,
                    length,
                    len(at),
                    len(long),
                    sum(f["correct"] for f in long) if long else None,
                    len(short),
                    sum(f["correct"] for f in short),
                    rho,
                )
            )
    return out


def _check_marts(script: Script, knob: str) -> None:
    got = rows(
        "SELECT model, source, task, length, n, round(answer_first_rate * n)::INT, n_covered,"
        " round(accuracy * n)::INT FROM marts.flenqa_cot ORDER BY ALL"
    )
    assert got == _expected_cot(script, knob), knob
    got = rows(
        "SELECT model, source, length, factor, n, n_exposed, n_exposed_wrong FROM marts.flenqa_cot_dependence"
        " ORDER BY ALL"
    )
    assert got == _expected_dependence(script, knob), knob
    # The reasoning marts read each response once, whatever the knob; the plain model has no row.
    got = rows(
        "SELECT setting, task, length, padding, position, n, n_with_trace, mean_reasoning_tokens,"
        " median_reasoning_tokens, n_correct FROM marts.flenqa_reasoning_length ORDER BY ALL"
    )
    assert got == _expected_length(script), knob
    assert rows("SELECT DISTINCT model, reasoning_tokens_source FROM marts.flenqa_reasoning_length") == [
        (THINKER, "tokenizer")
    ]
    got = rows(
        "SELECT setting, length, n, n_long, round(accuracy_long * n_long)::INT, n_short,"
        " round(accuracy_short * n_short)::INT, rank_corr_length FROM marts.flenqa_reasoning_recovery"
        " ORDER BY setting, length"
    )
    expected = _expected_recovery(script)
    assert [g[:7] for g in got] == [e[:7] for e in expected], knob
    assert [g[7] for g in got] == pytest.approx([e[7] for e in expected], abs=1e-4)


# `both` reads every source, so make test runs it alone; `trace` and `answer` (each a whole run that asks
# nothing) are the knob's narrower values, in the slow set (which sources a knob gives is unit-tested in
# tests/unit/flenqa/test_flenqa_trace_reads.py).
@pytest.mark.parametrize(
    "knob", [KNOBS[0], *(pytest.param(knob, marks=pytest.mark.slow) for knob in KNOBS[1:])]
)
def test_each_mart_holds_the_scripted_counts_for_each_source(script, knob):
    asked_before = getattr(script, "asked", False)
    calls = _run(script, knob)
    script.asked = True  # type: ignore[attr-defined]
    n_prompts = len(script.prompts)
    # The module's first run asks both models every distinct text once; a later run, whatever its knob, asks
    # nothing (the knob changes what is read, not what is asked).
    assert calls == (0 if asked_before else 2 * len(script.by_text))
    _check_marts(script, knob)
    sources = _sources(knob)
    got = rows("SELECT model, source, count(*) FROM raw.flenqa_trace_reads GROUP BY ALL ORDER BY ALL")
    assert got == sorted((m, s, n_prompts) for m, ss in sources.items() for s in ss)


def test_the_report_s_reasoning_traces_section_has_the_flenqa_figure(script):
    """Acceptance 2 on these runs: the report the last run above wrote has the section "Reasoning traces"
    with FLenQA's figure drawn from its rows (the figure asset's PNG is in plots/ as well)."""
    home = paths.relreason_home()
    if not (home / "report" / "report.html").is_file():  # this test alone (-k): make the runs' report
        _run(script, KNOBS[0])
    page = (home / "report" / "report.html").read_text(encoding="utf-8")
    head = '<section id="reasoning-traces"><h2>Reasoning traces</h2>'
    assert head in page
    section = page.split(head, 1)[1].split("</section>", 1)[0]
    assert 'id="figure-flenqa_reasoning_length"' in section and 'src="data:image/png;base64,' in section
    assert (home / "plots" / "flenqa_reasoning_length.png").is_file()
    assert rows("SELECT count(*) FROM marts.flenqa_reasoning_length") == [(18,)]
