"""The whole pipeline on the real SmolLM2-135M: one nl prompt per relational task, six FLenQA prompts,
one generated KOR logic question with a self-correction round, dbt marts, cache on rerun."""

from __future__ import annotations

import duckdb
import pytest

from relreason_dagster import paths
from tests.profile_files import use_profiles

pytestmark = pytest.mark.e2e

# smoke with these knobs changed, and no Self-Contra section (null drops it).
TINY = {
    "extends": "smoke",
    "selfcontra": None,
    "relational": {
        "n_ood": 0,
        "split_settings": {"iid": ["nl"], "ood": []},
        "max_tokens": 24,
    },
    # One True and one False FLenQA instance per task at 250 tokens, direct prompt only: 6 prompts.
    "flenqa": {
        "lengths": [250],
        "minimal": False,
        "settings": ["direct"],
        "max_tokens": {"direct": 8},
    },
    # One generated KOR logic question (our own rule text, no reference data), one self-correction round.
    "kor": {
        "source": "generated",
        "categories": ["logic"],
        "generated_rules": {"logic": ["1"]},
        "mixed": {},
        "self_correction_rounds": 1,
        "max_tokens": 16,
    },
}


@pytest.fixture
def tiny_home(tmp_path, monkeypatch):
    monkeypatch.setenv("RELREASON_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RELREASON_MODELS", str(paths.REPO_ROOT / "models.yaml"))
    monkeypatch.delenv("DAGSTER_HOME", raising=False)
    monkeypatch.delenv("RELREASON_DUCKDB", raising=False)
    use_profiles(monkeypatch, tmp_path / "profiles.yaml", {"e2e-tiny": TINY})
    return tmp_path


def test_local_model_end_to_end_then_fully_cached(tiny_home):
    from relreason_dagster.pipeline import run_models

    first = run_models(["smollm2-135m"], profile="e2e-tiny")
    assert first.failures == []
    corrections = first.calls["smollm2-135m"]["self_correction_calls"]
    assert corrections in (0, 1)  # asked again only if the first answer was wrong
    assert first.calls["smollm2-135m"]["model_calls"] == 9 + 6 + 1 + corrections

    con = duckdb.connect(str(paths.duckdb_path()), read_only=True)
    rows = con.execute(
        "SELECT task, split, setting, n, f1_all_answers FROM marts.relational_f1 WHERE model = 'smollm2-135m'"
    )
    rows = rows.fetchall()
    flenqa = con.execute(
        "SELECT task, n, n_refused, accuracy FROM marts.flenqa_accuracy ORDER BY task"
    ).fetchall()
    statuses = con.execute(
        "SELECT DISTINCT parse_status FROM raw.parsed_answers WHERE benchmark = 'flenqa'"
    ).fetchall()
    contents = con.execute("SELECT content FROM raw.responses WHERE error IS NULL").fetchall()
    kor = con.execute("SELECT n, n_correct FROM marts.kor_accuracy WHERE category = 'logic'").fetchall()
    curve = con.execute(
        "SELECT round, n FROM marts.kor_self_correction WHERE category = 'overall' ORDER BY round"
    ).fetchall()
    con.close()
    assert len(kor) == 1 and kor[0][0] == 1
    assert curve == [(0, 1), (1, 1)] if corrections else curve == [(0, 1)]
    assert len(rows) == 9 and all(r[3] == 1 and 0.0 <= r[4] <= 1.0 for r in rows)
    assert [(t, n) for t, n, _, _ in flenqa] == [("MonoRel", 2), ("PIR", 2), ("Ruletaker", 2)]
    assert all(0.0 <= acc <= 1.0 and 0 <= refused <= 2 for _, _, refused, acc in flenqa)
    assert {s for (s,) in statuses} <= {"ok", "refused"}
    assert len(contents) == 9 + 6 + 1 + corrections and all(c[0] is not None for c in contents)

    second = run_models(["smollm2-135m"], profile="e2e-tiny", run_dbt=False)  # about calls only
    assert second.total_calls == 0
    assert second.calls["smollm2-135m"]["already_stored"] == 9 + 6 + 1
