"""Self-Contra detection end to end with the real SmolLM2-135M as the judge (acceptance: the F1 mart
fills from a local judge on a slice of the study's human annotations)."""

from __future__ import annotations

import duckdb
import pytest

from relreason_dagster import paths
from tests.profile_files import use_profiles

# The real local model as the judge: over a minute on two cores.  The local model's own end-to-end run
# (test_pipeline_local_model.py) stays in make test; this one is in the slow set.
pytestmark = [pytest.mark.e2e, pytest.mark.slow]

SOURCE = "wino/selfcontra_annotations/winobias_zero_answer_gpt3.5.csv"
SLICE = 2
PROFILE = {
    "selfcontra": {
        "sources": {"generated": 2},
        "settings": ["zero_answer"],
        "max_tokens": 48,
        "judge": "smollm2-135m",
        "detect_methods": ["iro", "binary", "fge"],
        "judge_max_tokens": 4,
        "annotation_files": [SOURCE],
        "annotation_limit": SLICE,
        "detect_limit": SLICE,
    }
}


def test_local_judge_fills_the_detection_f1_mart(tmp_path, monkeypatch):
    if not (paths.reference_dir() / SOURCE).exists():
        pytest.skip("reference annotations not found; set RELREASON_REFERENCE_DIR")
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RELREASON_MODELS", str(paths.REPO_ROOT / "models.yaml"))
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    monkeypatch.delenv("RELREASON_DUCKDB", raising=False)
    use_profiles(monkeypatch, tmp_path / "profiles.yaml", {"e2e-selfcontra": PROFILE})
    from relreason_dagster.pipeline import run_models

    report = run_models(["smollm2-135m"], profile="e2e-selfcontra")
    assert report.failures == []
    judge = report.calls["smollm2-135m (judge)"]
    assert judge["errors"] == 0 and judge["model_calls"] > 0

    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    f1 = con.execute(
        "SELECT method, judge, dataset, model, n, n_unparsed, tp + fp + fn + tn, f1 "
        "FROM marts.selfcontra_detection_f1 ORDER BY method"
    ).fetchall()
    judged = con.execute("SELECT method, n FROM marts.selfcontra_judged ORDER BY method").fetchall()
    replies = con.execute(
        "SELECT count(*) FROM raw.responses r JOIN raw.prompts p USING (prompt_id) "
        "WHERE p.kind = 'judge' AND r.model = 'smollm2-135m' AND r.content IS NOT NULL"
    ).fetchone()[0]
    con.close()
    assert [r[0] for r in f1] == ["binary", "fge", "iro"]
    for _method, judge_name, dataset, model, n, unparsed, counted, score in f1:
        expected = ("smollm2-135m", "winobias", "gpt3.5", SLICE, SLICE)
        assert (judge_name, dataset, model, n, counted) == expected
        assert 0 <= unparsed <= SLICE and 0.0 <= score <= 1.0
    assert judged == [("binary", 2), ("fge", 2), ("iro", 2)]
    assert replies == judge["model_calls"]
