"""A three-level effort sweep run end to end on FLenQA and KOR smoke: partitions, calls, budget marts and
the report's figures in Chromium (issue 55, acceptance 1).

One launch (``run_pipeline``, as `relreason run` calls it: the CLI's ``--benchmark`` takes one family,
so the two studies are named here in one launch) of the entry ``o4`` with
``sweep: {reasoning_effort: [low, medium, high]}`` against the fake OpenAI server answering by a
*scripted* reasoning model (tests/fakes/scripted_effort.py, a script and not a model): it returns a
prompt's gold answer when the prompt's bucket (a stable hash of its messages, mod 10) is below the
level's threshold (low 3, medium 7, high 9), unreadable text otherwise, and thinks 12, 48 or 192 words.
Then the dbt build, and `relreason report` on the home.

Every expected number is computed here from the stored prompts and the script's own rule
(:func:`~tests.fakes.scripted_effort.is_right`), never typed: per cell of each study's axis, the
accuracy, the N/A count, the mean reasoning tokens, and between adjacent levels the items gained and
lost, their exact McNemar p and its Holm adjustment over the base model's tests.  Higher levels are
right on a superset of the items of lower ones, so "lost" is 0 and "gained" the items whose bucket lies
between two thresholds.

KOR asks a self-correction round of the items a level got wrong (kind ``self_correction`` in
raw.prompts): those follow-ups are the only requests besides the test prompts.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from math import comb
from pathlib import Path
from typing import Any

import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import get_family
from tests.browser import image_widths, offline_page
from tests.fakes.openai_server import prompt_key
from tests.fakes.scripted_effort import LEVELS, THINKING_WORDS, ScriptedEffort, is_right
from tests.pipeline_home import isolated_home, rows

# The first test builds the module's home: one launch of three sweep levels on FLenQA and KOR, its dbt
# build and report (~104 s of CPU, 173 s at load 8); 1200 s keeps a busy CI run within a fifth
# (tests/timeout_budget.py).
pytestmark = [pytest.mark.integration, pytest.mark.timeout(1200)]

KEY_ENV = "RELREASON_TEST_BUDGET_SWEEP_KEY"
STUDIES = ("flenqa", "kor")
VARIANTS = [f"o4@reasoning_effort={level}" for level in LEVELS]

# Per study: the budget mart's axis columns, and the test prompts of its rows with those axes, read
# from raw.prompts and raw.samples with the filter the mart's SQL file states (its `where`).
AXES: dict[str, tuple[str, ...]] = {
    "flenqa": ("task", "setting", "length"),
    "kor": ("source", "setting", "category"),
}
ITEMS_SQL: dict[str, str] = {
    "flenqa": (
        "SELECT p.prompt_id, p.messages, p.task, p.setting,"
        " coalesce(json_extract(s.variant, '$.length')::integer, 0)"
        " FROM raw.prompts p JOIN raw.samples s USING (sample_id)"
        " WHERE p.benchmark = 'flenqa' AND p.kind = 'test' AND p.setting IN ('direct', 'cot')"
    ),
    "kor": (
        "SELECT p.prompt_id, p.messages, p.split, p.setting, p.task FROM raw.prompts p"
        " WHERE p.benchmark = 'kor' AND p.kind = 'test' AND p.task NOT IN ('mixed', 'cipher_step')"
        " AND p.setting <> 'trick' AND p.setting NOT LIKE '%_only_questions'"
    ),
}


def _models_yaml(api_base: str) -> str:
    return (
        "models:\n"
        "  - name: o4\n"
        "    litellm_model: openai/fake-o4\n"
        "    params: {temperature: 1}\n"
        f"    api_base: {api_base}\n"
        f"    api_key_env: {KEY_ENV}\n"
        "    concurrency: 8\n"
        "    timeout_s: 60\n"
        "    sweep: {reasoning_effort: [low, medium, high]}\n"
    )


def _gold_by_text() -> dict[str, str]:
    """Each smoke prompt's gold answer as its family renders it, by the prompt's last message."""
    gold: dict[str, str] = {}
    for name in STUDIES:
        family = get_family(name)
        profile = profiles.get_profile("smoke", name)
        samples = family.generate(profile, profiles.DEFAULT_SEED)
        by_id = {s.sample_id: s for s in samples}
        for p in family.build_prompts(samples, profile):
            gold[p.messages[-1]["content"]] = family.render_gold(by_id[p.sample_id], p.setting)
    return gold


@pytest.fixture(scope="module")
def sweep(tmp_path_factory) -> Any:
    """The launch's report and request log, the dynamic partitions and the built report's page."""
    import dagster as dg

    from relreason_dagster.cli import main
    from relreason_dagster.defs.partitions import MODELS_PARTITION
    from relreason_dagster.pipeline import run_models

    root = tmp_path_factory.mktemp("budget_sweep")
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, "sk-fake-budget-sweep")
    try:
        script = ScriptedEffort(_gold_by_text())
        with script.server() as server:
            isolated_home(mp, root, _models_yaml(server.api_base))
            report = run_models(["o4"], profile="smoke", benchmarks=list(STUDIES))
            log = server.entries()
        with dg.DagsterInstance.get() as instance:
            partitions = instance.get_dynamic_partitions(MODELS_PARTITION)
        out = root / "report"
        assert main(["report", "--out", str(out)]) == 0
        yield {"report": report, "log": log, "partitions": partitions, "html": out / "report.html"}
    finally:
        mp.undo()


def _keys(sql: str) -> set[str]:
    return {prompt_key(json.loads(messages)) for (messages,) in rows(sql)}


def _items(study: str) -> dict[tuple, list[list[dict]]]:
    """The study's budget-mart cells (axis values) with the messages of each of their items."""
    cells: dict[tuple, list[list[dict]]] = defaultdict(list)
    for _pid, messages, *axes in rows(ITEMS_SQL[study]):
        cells[tuple(axes)].append(json.loads(messages))
    return dict(cells)


def _mart(study: str) -> list[dict[str, Any]]:
    found = rows(f"SELECT * FROM marts.{study}_budget")
    names = [name for (name,) in rows(f"SELECT column_name FROM (DESCRIBE marts.{study}_budget)")]
    return [dict(zip(names, row, strict=True)) for row in found]


def _mcnemar_p(b: int, c: int) -> float:
    """The exact two-sided McNemar p of b and c discordant pairs (1 with none)."""
    n = b + c
    return 1.0 if n == 0 else min(1.0, 2 * sum(comb(n, i) for i in range(min(b, c) + 1)) / 2**n)


def _holm(ps: list[float]) -> list[float]:
    """Holm's step-down adjustment of ``ps``, in their order."""
    out = [0.0] * len(ps)
    running = 0.0
    for step, i in enumerate(sorted(range(len(ps)), key=lambda i: ps[i])):
        running = max(running, min(1.0, (len(ps) - step) * ps[i]))
        out[i] = running
    return out


def test_the_launch_runs_three_partitions(sweep):
    assert sweep["report"].failures == []
    assert set(VARIANTS) <= set(sweep["partitions"])
    launched = {run["partition"] for run in sweep["report"].runs if run["job"] == "model_work"}
    assert launched == set(VARIANTS)
    got = rows("SELECT model, base_model, level, level_rank FROM raw.model_sweeps ORDER BY level_rank")
    assert got == [
        (name, "o4", level, rank) for rank, (name, level) in enumerate(zip(VARIANTS, LEVELS, strict=True))
    ]
    n_test = rows(f"SELECT count(*) FROM raw.prompts WHERE kind = 'test' AND benchmark IN {STUDIES}")[0][0]
    stored = rows(
        "SELECT r.model, count(*) FROM raw.responses r JOIN raw.prompts p USING (prompt_id)"
        " WHERE p.kind = 'test' AND r.error IS NULL GROUP BY 1"
    )
    assert dict(stored) == dict.fromkeys(VARIANTS, n_test)


def test_each_prompt_is_asked_once_per_level(sweep):
    log = sweep["log"]
    assert log and all(entry.status == 200 for entry in log)
    tests = _keys(f"SELECT messages FROM raw.prompts WHERE kind = 'test' AND benchmark IN {STUDIES}")
    asked = Counter((entry.key, entry.params.get("reasoning_effort")) for entry in log)
    assert {pair: n for pair, n in asked.items() if pair[0] in tests} == {
        (key, level): 1 for key in tests for level in LEVELS
    }
    # Anything else asked is KOR's self-correction round (of a level's wrong answers), never a repeat.
    follow_ups = {pair for pair in asked if pair[0] not in tests}
    assert {key for key, _ in follow_ups} <= _keys("SELECT messages FROM raw.prompts WHERE kind <> 'test'")
    assert all(asked[pair] == 1 for pair in follow_ups)


@pytest.mark.parametrize("study", STUDIES)
def test_budget_mart_holds_the_scripted_accuracies(sweep, study):
    cells = _items(study)
    mart = _mart(study)
    assert cells and {row["base_model"] for row in mart} == {"o4"}
    got = {(tuple(row[a] for a in AXES[study]), row["level"]): row for row in mart}
    assert set(got) == {(cell, level) for cell in cells for level in LEVELS}  # three levels per cell
    for (cell, level), row in got.items():
        items = cells[cell]
        n_right = sum(is_right(messages, level) for messages in items)
        assert row["level_rank"] == LEVELS.index(level) and row["param"] == "reasoning_effort"
        counts = (row["n"], row["n_items"], row["n_correct"])
        assert counts == (len(items), len(items), n_right), (cell, level)
        assert row["accuracy"] == pytest.approx(n_right / len(items), abs=1e-4)
        assert row["ci_low"] <= row["accuracy"] <= row["ci_high"]
        # The scripted wrong answer is text no parser reads; nothing was cut by a budget.
        assert (row["n_na"], row["n_cut"], row["cut_share"]) == (len(items) - n_right, 0, 0)
        assert row["mean_reasoning_tokens"] == THINKING_WORDS[level]
    # Pooled over the study, each level is right on more items than the one below: the script separates
    # the levels on these prompts (else the paired counts below would test nothing).
    pooled = [sum(is_right(m, level) for items in cells.values() for m in items) for level in LEVELS]
    assert pooled[0] < pooled[1] < pooled[2]


@pytest.mark.parametrize("study", STUDIES)
def test_paired_tests_between_adjacent_levels(sweep, study):
    cells = _items(study)
    tested: list[tuple[dict[str, Any], int, int]] = []
    for row in _mart(study):
        cell = tuple(row[a] for a in AXES[study])
        rank = row["level_rank"]
        if rank == 0:
            assert row["n_paired"] is None and row["mcnemar_p"] is None and row["p_holm"] is None
            continue
        below, level = LEVELS[rank - 1], LEVELS[rank]
        items = cells[cell]
        gained = sum(is_right(m, level) and not is_right(m, below) for m in items)
        lost = sum(is_right(m, below) and not is_right(m, level) for m in items)
        assert row["n_paired"] == len(items)  # the same items at both levels
        assert (row["n_gained"], row["n_lost"]) == (gained, lost), (cell, below, level)
        assert row["mcnemar_p"] == pytest.approx(_mcnemar_p(gained, lost), abs=1e-6)
        tested.append((row, gained, lost))
    assert sum(gained for _, gained, _ in tested) > 0
    assert len(tested) == 2 * len(cells)
    expected = _holm([_mcnemar_p(gained, lost) for _, gained, lost in tested])
    for (row, _, _), p_holm in zip(tested, expected, strict=True):
        assert row["p_holm"] == pytest.approx(p_holm, abs=1e-6)
        assert row["p_holm"] >= row["mcnemar_p"]


def test_report_shows_a_budget_figure_per_study_in_chromium(sweep):
    html: Path = sweep["html"]
    page_text = html.read_text(encoding="utf-8")
    assert '<section id="thinking-budget"><h2>Thinking budget</h2>' in page_text
    requested: list[str] = []
    with offline_page(html, requested) as page:
        figures = page.eval_on_selector_all(
            "#thinking-budget figure.plot img", "imgs => imgs.map(i => i.dataset.figure)"
        )
        assert figures == [f"{study}_budget" for study in STUDIES]
        widths = image_widths(page, "#thinking-budget figure.plot img")
        assert len(widths) == len(STUDIES) and all(w > 0 for w in widths), widths
        assert page.locator("nav a[href='#thinking-budget']").count() == 1
    assert requested == []
