"""The reasoning marts read every draw of ``--samples K``, their intervals clustered by prompt (issue 55,
item 5); FLenQA's reasoning marts stay on draw 0, as its study asked each prompt once.

A scripted reasoning model (the ``scripted`` LiteLLM provider, named as such) answers four FLenQA direct
prompts three times each through the real gateway (``samples: 3``), a ``<think>`` trace before each
answer.  Per prompt, two draws think long (a trace of hundreds of tokens) and one thinks short (a few
tokens); the long draws of prompts 0-2 are right and those of 3 wrong, the short draw of prompt 3
alone is right.  Draw 0 is parsed as the pipeline parses it, draws 1-2 by ``refresh_parsed_draws``.
So, by construction:

  long bin   8 draws of 4 prompts, 6 right, each prompt's draws alike: design effect 8/3, and the
             interval is Wilson's on an effective 3 answers, wider than one on 8 independent ones;
  short bin  4 draws of 4 prompts (one each), 1 right: the plain Wilson interval on 4, as before draws.
"""

from __future__ import annotations

import json
import math
import threading
from collections import Counter
from typing import Any

import duckdb
import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.results.report_tables import wilson
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.parsed_answers import parse_response_row
from relreason_dagster.storage.parsed_draws import refresh_parsed_draws
from relreason_dagster.storage.responses import ResponseStore
from relreason_dagster.storage.schema import ensure_schema
from tests.dbt_home import dbt_build, dicts, insert
from tests.fakes.scripted_provider import register_scripted_provider, set_responder

MODEL = "scripted-drawer"
SCRIPTED = "every-draw"
K = 3
LONG = " ".join(f"Step {i}: I weigh the paragraph about item {i} once more." for i in range(40))
SHORT = "Quick."


def _other(label: str) -> str:
    return {"True": "False", "False": "True"}[label.strip()]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("reasoning_every_draw")
    mp = pytest.MonkeyPatch()
    mp.setenv("RELREASON_HOME", str(root / "home"))
    mp.delenv("RELREASON_LAKE", raising=False)
    register_scripted_provider()
    family = get_family("flenqa")
    profile = profiles.get_profile("smoke", "flenqa")
    samples = {s.sample_id: s for s in family.generate(profile, profiles.DEFAULT_SEED)}
    distinct = {}
    for p in family.build_prompts(list(samples.values()), profile):
        if p.setting == "direct":
            distinct.setdefault(json.dumps(p.messages, sort_keys=True), p)
    picked = list(distinct.values())[:4]
    assert len(picked) == 4
    # Per prompt text: (its index, its gold label); each call takes the next of its three scripted draws.
    script = {
        json.dumps(p.messages, sort_keys=True): (i, family.render_gold(samples[p.sample_id], p.setting))
        for i, p in enumerate(picked)
    }
    calls: Counter[str] = Counter()
    lock = threading.Lock()

    def responder(messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
        key = json.dumps(messages, sort_keys=True)
        with lock:
            c = calls[key]
            calls[key] += 1
        i, gold = script[key]
        long = c < 2
        right = i < 3 if long else i == 3
        return f"<think>{LONG if long else SHORT}</think>\n{gold if right else _other(gold)}"

    set_responder(SCRIPTED, responder)
    db = root / "draws.duckdb"
    con = duckdb.connect(str(db))
    try:
        ensure_schema(con)
        insert(con, "samples", [samples[p.sample_id].row() for p in picked])
        insert(con, "prompts", [p.row() for p in picked])
        spec = ModelEntry(name=MODEL, litellm_model=f"scripted/{SCRIPTED}", concurrency=2, max_attempts=1)
        asked = [{**p.row(), "benchmark": "flenqa", "messages": p.messages, "samples": K} for p in picked]
        stats = run_model(ResponseStore(Lake.default()), spec, asked)
        assert stats.errors == 0
        stored = {
            r["prompt_id"]: r for r in dicts(con, "SELECT * FROM raw.responses WHERE model = ?", [MODEL])
        }
        insert(
            con,
            "parsed_answers",
            [
                parse_response_row(
                    MODEL, {**samples[p.sample_id].row(), **stored[p.prompt_id], "setting": p.setting}
                )
                for p in picked
            ],
        )
        refresh_parsed_draws(con, MODEL)
        n_draws = con.execute("SELECT count(*) FROM raw.response_draws WHERE model = ?", [MODEL]).fetchone()
    finally:
        con.close()
    set_responder(SCRIPTED, None)
    dbt_build(db, root, select="+reasoning_accuracy +reasoning_correlation +flenqa_reasoning_length")
    read = duckdb.connect(str(db), read_only=True)
    yield {"con": read, "n_draws": n_draws[0] if n_draws else 0, "calls": dict(calls)}
    read.close()
    mp.undo()


def _bins(built: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows = dicts(built["con"], "SELECT * FROM marts.reasoning_accuracy WHERE model = ? ORDER BY bin", [MODEL])
    assert len(rows) == 2, rows
    return {"short": rows[0], "long": rows[1]}


def test_every_prompt_was_drawn_three_times(built):
    assert built["n_draws"] == 4 * K
    assert sorted(built["calls"].values()) == [K] * 4


def test_reasoning_accuracy_reads_every_draw(built):
    bins = _bins(built)
    got = {k: (r["answered"], r["n_prompts"], r["n_correct"], r["accuracy"]) for k, r in bins.items()}
    assert got == {"long": (8, 4, 6, 0.75), "short": (4, 4, 1, 0.25)}


def test_the_long_bin_interval_is_clustered_by_prompt(built):
    row = _bins(built)["long"]
    # Clusters (k_i, n_i): (2, 2) three times and (0, 2); p = 3/4.  Ratio-estimator variance
    # g/(g-1) * sum((k_i - p n_i)^2) / n^2 = 4/3 * 3 / 64 = 1/16; binomial p(1-p)/n = 3/128; deff = 8/3.
    clustered = 4 / 3 * sum((k - 0.75 * n) ** 2 for k, n in ((2, 2), (2, 2), (2, 2), (0, 2))) / 8**2
    deff = clustered / (0.75 * 0.25 / 8)
    assert deff == pytest.approx(8 / 3)
    n_eff = 8 / deff
    low, high = wilson(0.75 * n_eff, n_eff)  # type: ignore[arg-type]
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low, abs=6e-5), pytest.approx(high, abs=6e-5))
    naive_low, naive_high = wilson(6, 8)
    assert row["ci_low"] < naive_low and row["ci_high"] > naive_high  # wider than 8 independent answers


def test_one_draw_per_prompt_keeps_the_plain_wilson_interval(built):
    row = _bins(built)["short"]
    low, high = wilson(1, 4)
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(low, abs=6e-5), pytest.approx(high, abs=6e-5))


def test_the_correlation_counts_prompts_in_its_p_value(built):
    (row,) = dicts(built["con"], "SELECT * FROM marts.reasoning_correlation WHERE model = ?", [MODEL])
    assert (row["answered"], row["n_prompts"], row["n_correct"]) == (12, 4, 7)
    rho = row["spearman_rho"]
    assert rho is not None and 0 < rho < 1  # the long draws are the right ones more often
    # Two-sided t-test p with n = 4 prompts (2 degrees of freedom has a closed form), not n = 12 draws.
    t = rho * math.sqrt(2 / (1 - rho * rho))
    assert row["spearman_p"] == pytest.approx(1 - abs(t) / math.sqrt(2 + t * t), abs=1e-9)


def test_flenqa_reasoning_stays_on_draw_zero(built):
    rows = dicts(built["con"], "SELECT * FROM marts.flenqa_reasoning_length WHERE model = ?", [MODEL])
    assert sum(r["n"] for r in rows) == 4 and sum(r["n_with_trace"] for r in rows) == 4
