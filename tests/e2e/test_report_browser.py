"""`relreason report` in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

A small home is built with the real pipeline (DuckDB, dbt, checks) and scripted models, so it runs in
`make test` without the local model: ``oracle`` answers every prompt with its gold answer, ``coin``
answers half of them (by a hash of the prompt) with the gold answer and the rest with text no parser
reads, so the sample table has correct and unreadable rows to filter; ``judge`` labels Self-Contra "no".
The DLM trains on one task for a few epochs so Table 1 has a DLM column.

The page is opened from the file with every network request refused (the report must not need one),
then: each figure's image has decoded (naturalWidth > 0), the sample table has rows, one filter
changes the visible count, and a screenshot is saved under tmp (and ``RELREASON_SCREENSHOT_DIR``).
Playwright never downloads a browser here (tests/browser.py): it is pointed at the system's Chromium,
and the test skips, naming what is missing, without it.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

import pytest

from relreason_dagster import profiles
from relreason_dagster.benchmarks.registry import get_family
from relreason_dagster.results.figures import FIGURES
from tests.browser import image_widths, offline_page
from tests.fakes.scripted_provider import register_scripted_provider, set_responder
from tests.pipeline_home import isolated_home, rows, scripted_models_yaml
from tests.profile_files import use_profiles

pytestmark = pytest.mark.integration

MODELS_YAML = scripted_models_yaml("oracle", "coin", "judge")
JUNK = "Hmm, hard to say."


def _half(text: str) -> bool:
    return hashlib.sha256(text.encode()).digest()[0] % 2 == 0


@pytest.fixture(scope="module")
def report_html(tmp_path_factory) -> Path:
    """A home with two scripted models and the DLM on one task, then `relreason report` on it."""
    from relreason_dagster.cli import main
    from relreason_dagster.pipeline import run_models

    root = tmp_path_factory.mktemp("report")
    mp = pytest.MonkeyPatch()
    isolated_home(mp, root, MODELS_YAML)
    smoke = {
        "selfcontra": {"judge": "judge"},
        "relational": {"dlm_tasks": ["HasFather"], "dlm_overrides": {"max_epochs": 20}},
    }
    use_profiles(mp, root / "profiles.yaml", {"smoke": smoke})
    gold_by_text: dict[str, str] = {}
    for name in ("relational", "flenqa", "selfcontra", "kor"):
        family = get_family(name)
        profile = profiles.get_profile("smoke", name)
        samples = family.generate(profile, profiles.DEFAULT_SEED)
        by_id = {s.sample_id: s for s in samples}
        for p in family.build_prompts(samples, profile):
            gold_by_text[p.messages[-1]["content"]] = family.render_gold(by_id[p.sample_id], p.setting)
    register_scripted_provider()

    def coin(messages, params):
        text = messages[-1]["content"]
        return gold_by_text.get(text, JUNK) if _half(text) else JUNK

    set_responder("oracle", lambda messages, params: gold_by_text.get(messages[-1]["content"], JUNK))
    set_responder("coin", coin)
    set_responder("judge", lambda messages, params: "no")
    report = run_models(["oracle", "coin", "dlm"], profile="smoke")
    assert report.failures == []
    out = root / "report"
    assert main(["report", "--out", str(out)]) == 0
    yield out / "report.html"
    mp.undo()


def test_report_files_are_self_contained(report_html):
    page = report_html.read_text()
    for spec in FIGURES:
        png = report_html.parent / spec.file_name
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", spec.name
        assert f'data-figure="{spec.name}"' in page
    assert page.count('src="data:image/png;base64,') == len(FIGURES)
    assert "http://" not in page and "https://" not in page  # no CDN, no fetched script or font
    n_answers = rows("SELECT count(*) FROM marts.sample_results")[0][0]
    assert page.count('<tr class="sample"') == min(500, n_answers)


def test_report_renders_in_chromium(report_html, tmp_path):
    requested: list[str] = []
    with offline_page(report_html, requested) as page:
        widths = image_widths(page, "figure.plot img")
        assert len(widths) == len(FIGURES)
        assert all(w > 0 for w in widths), widths

        visible = "#samples tr.sample:not([hidden])"
        total = page.locator("#samples tr.sample").count()
        assert total > 0
        assert page.locator(visible).count() == total
        page.select_option('select[data-filter="outcome"]', "na")
        n_na = page.locator(visible).count()
        assert 0 < n_na < total  # coin's unreadable answers, nothing else
        outcomes = page.eval_on_selector_all(visible, "rs => [...new Set(rs.map(r => r.dataset.outcome))]")
        assert outcomes == ["na"]
        assert page.locator("#sample-count").inner_text() == f"{n_na} of {total} rows shown"
        page.select_option('select[data-filter="outcome"]', "")
        assert page.locator(visible).count() == total

        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot), full_page=True)
    assert requested == []
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("RELREASON_SCREENSHOT_DIR"):
        keep = Path(os.environ["RELREASON_SCREENSHOT_DIR"])
        keep.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, keep / "report.png")
