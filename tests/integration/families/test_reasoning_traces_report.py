"""The report's "Reasoning traces" section after a real run (issue 47, acceptance 2), and the marts it reads.

Two scripted models (the in-process ``scripted/`` LiteLLM provider, named as such) answer KOR-Bench's
smoke profile through the whole pipeline: ``plain`` without thinking, then ``thinker`` with a
``<think>`` block before each answer.  The thinker's script is known: on four prompts it thinks briefly
(a few tokens) and answers right, on two it thinks long (a paragraph repeated, hundreds of tokens) and
gives no readable answer.  So ``marts.reasoning_accuracy`` must hold exactly bin 0: 4 of 4 right and
bin 2: 0 of 2 (both N/A), counted by the tokenizer (no provider count), and ``reasoning_correlation`` a
rho of -1 (longer thinking, wrong answers).  After the plain run the report has no such section; after
the thinker's it has the section, its tables and a family's ``TRACE_FIGURES`` (a toy figure here, set on
KOR's report module and found through the registry as every family's are).
"""

from __future__ import annotations

import duckdb
import pytest

from relreason_dagster import paths, profiles
from relreason_dagster.benchmarks.base import FigureSpec
from relreason_dagster.benchmarks.kor import report as kor_report
from relreason_dagster.benchmarks.plotting import no_data, plt
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.results.report import build_report
from tests.fakes.scripted_provider import register_scripted_provider, set_responder
from tests.pipeline_home import build_only_the_runs_marts, isolated_home, rows, scripted_models_yaml

pytestmark = pytest.mark.integration

SHORT = "Checking the rule."
LONG = " ".join(["Let me apply the rule to this step once more and check every part again."] * 30)
SECTION = '<section id="reasoning-traces"><h2>Reasoning traces</h2>'


def _draw_toy(rows_by_mart):
    """A toy trace figure: accuracy per reasoning-token bin (what a family's TRACE_FIGURES draws from)."""
    pyplot = plt()
    fig, ax = pyplot.subplots(1, 1, figsize=(4, 2.5))
    points = rows_by_mart["marts.reasoning_accuracy"]
    if not points:
        no_data(ax, "no reasoning traces yet")
    else:
        ax.bar([r["bin_label"] for r in points], [r["accuracy"] for r in points])
    return fig


TOY = FigureSpec(
    name="toy_trace_accuracy",
    asset_name="toy_trace_accuracy_figure",
    study="kor",
    title="Toy trace figure",
    caption="Accuracy per reasoning-token bin (a test's toy figure).",
    marts=("marts.reasoning_accuracy",),
    draw=_draw_toy,
    hint="relreason run",
)


def _script() -> tuple[dict[str, str], int, int]:
    """Each KOR smoke prompt text -> the thinker's reply, and how many get short and long thinking."""
    family = get_family("kor")
    profile = profiles.get_profile("smoke", "kor")
    samples = family.generate(profile, profiles.DEFAULT_SEED)
    by_id = {s.sample_id: s for s in samples}
    prompts = sorted(family.build_prompts(samples, profile), key=lambda p: p.prompt_id)
    replies = {}
    for i, p in enumerate(prompts):
        if i < len(prompts) - 2:
            replies[p.messages[-1]["content"]] = (
                f"<think>{SHORT}</think>\n{family.render_gold(by_id[p.sample_id], p.setting)}"
            )
        else:
            replies[p.messages[-1]["content"]] = f"<think>{LONG}</think>\nI cannot tell."
    return replies, len(prompts) - 2, 2


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("reasoning_traces")
    mp = pytest.MonkeyPatch()
    register_scripted_provider()
    isolated_home(mp, root, scripted_models_yaml("plain", "thinker", concurrency=4))
    build_only_the_runs_marts(mp)  # its tests read the shared reasoning marts and the report's section
    mp.setattr(kor_report, "TRACE_FIGURES", (TOY,), raising=False)
    replies, n_short, n_long = _script()
    set_responder("plain", lambda messages, params: "I cannot tell.")
    set_responder("thinker", lambda messages, params: replies.get(messages[-1]["content"], "I cannot tell."))
    from relreason_dagster.pipeline import run_models

    pages = {}
    try:
        for model in ("plain", "thinker"):
            report = run_models([model], profile="smoke", benchmarks=["kor"])
            assert report.failures == [], report.failures
            con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
            try:
                summary = build_report(con, root / f"report-{model}")
            finally:
                con.close()
            pages[model] = (summary, summary.path.read_text(encoding="utf-8"))
        yield {"pages": pages, "short": n_short, "long": n_long}
    finally:
        set_responder("plain", None)
        set_responder("thinker", None)
        mp.undo()


def test_no_section_after_a_run_without_traces(home):
    summary, page = home["pages"]["plain"]
    assert SECTION not in page and 'href="#reasoning-traces"' not in page
    assert TOY.file_name not in [p.name for p in summary.figures]


def test_the_section_with_its_tables_and_figure_after_a_reasoning_run(home):
    summary, page = home["pages"]["thinker"]
    assert SECTION in page and 'href="#reasoning-traces"' in page
    section = page.split(SECTION, 1)[1].split("</section>", 1)[0]
    assert 'id="table-reasoning-correlation"' in section and 'id="table-reasoning-accuracy"' in section
    assert 'id="figure-toy_trace_accuracy"' in section and 'src="data:image/png;base64,' in section
    assert "thinker" in section and "<b>plain</b>" not in section
    assert (summary.path.parent / TOY.file_name).is_file()


def test_the_marts_hold_the_scripted_counts(home):
    short, long = home["short"], home["long"]
    got = rows(
        "SELECT benchmark, model, reasoning_tokens_source, bin, bin_label, answered, n_correct, n_na,"
        " accuracy FROM marts.reasoning_accuracy ORDER BY bin"
    )
    assert got == [
        ("kor", "thinker", "tokenizer", 0, "0-63", short, short, 0, 1.0),
        ("kor", "thinker", "tokenizer", 2, "256-1023", long, 0, long, 0.0),
    ]
    (corr,) = rows(
        "SELECT model, answered, n_correct, spearman_rho, spearman_p,"
        " median_tokens_correct < median_tokens_wrong FROM marts.reasoning_correlation"
    )
    assert corr[:3] == ("thinker", short + long, short)
    assert corr[3] == pytest.approx(-1.0) and corr[4] == 0.0 and corr[5] is True
    # Every thinker response has its trace counted once, by the tokenizer; the plain model has none.
    tokens = rows(
        "SELECT model, count(*), min(reasoning_tokens) FROM intermediate.int_reasoning_tokens GROUP BY 1"
    )
    assert [(m, n) for m, n, _ in tokens] == [("thinker", short + long)] and tokens[0][2] > 0
