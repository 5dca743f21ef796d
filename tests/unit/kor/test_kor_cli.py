"""`relreason kor rescore`: one row per published evaluation file, JSON output, one-line errors."""

from __future__ import annotations

import json

import pytest

from relreason_dagster import paths
from relreason_dagster.cli import main

RESPONSES = paths.reference_dir() / "korbench" / "responses"


def _files() -> list[str]:
    files = sorted(str(p) for p in RESPONSES.glob("evaluation_*_zero-shot.jsonl.json"))
    if not files:
        pytest.skip(f"KOR-Bench reference responses not found under {RESPONSES}")
    return files


def test_rescore_prints_one_row_per_file_matching_the_published_verdicts(capsys):
    files = _files()
    assert main(["kor", "rescore", *files]) == 0
    out = capsys.readouterr().out
    table = [line.split() for line in out.splitlines() if line.split()[:1] and line.split()[0] != "model"]
    rows = [r for r in table if len(r) == 12 and r[2] == "official"]
    assert len(rows) == len(files) + 3 == 18  # one row per file, one overall row per model
    for _model, category, _mode, n, accuracy, real_life, *_table2, file_accuracy, agreement, _d, _s in rows:
        assert int(n) == (1250 if category == "overall" else 250)
        assert accuracy == file_accuracy and float(agreement) == 1.0
        assert (real_life == "-") == (category != "counterfactual")


def test_rescore_json_lists_disagreements_in_robust_mode(capsys):
    files = [f for f in _files() if "gpt-4o_operation" in f]
    assert main(["kor", "rescore", *files, "--mode", "robust", "--json"]) == 0
    result, overall = json.loads(capsys.readouterr().out)
    assert (result["model"], result["category"], result["mode"]) == ("gpt-4o", "operation", "robust")
    assert (overall["category"], overall["n"], overall["accuracy"]) == ("overall", 250, result["accuracy"])
    assert (
        result["accuracy"] > result["file_accuracy"]
    )  # the published Operation verdicts lacked symbolic equality
    assert result["disagreements"] and {"idx", "ours", "theirs", "reason"} <= set(result["disagreements"][0])


def test_rescore_errors_are_one_line(capsys, tmp_path):
    assert main(["kor", "rescore", str(tmp_path / "missing.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing.json" in err
    bad = tmp_path / "results.json"
    bad.write_text("[]")
    assert main(["kor", "rescore", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "results.json" in err
    with pytest.raises(SystemExit) as exc:
        main(["kor", "rescore", str(bad), "--mode", "lenient"])
    assert exc.value.code == 2
