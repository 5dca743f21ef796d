"""The gateway's count of requests per Dagster run (storage/sent_requests.py): summed per model over a
run's files, a rewrite replaces a file's count, other runs are apart, old runs are forgotten."""

from __future__ import annotations

import os
import time

from relreason_dagster.storage import sent_requests
from relreason_dagster.storage.lake import Lake


def test_a_runs_counts_are_the_sum_of_its_gateway_runs(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    w1, w2 = sent_requests.new_writer(), sent_requests.new_writer()
    sent_requests.write_sent(lake, "r1", "m", w1, {"requests": 1, "errors": 0, "answers": 4})
    sent_requests.write_sent(
        lake,
        "r1",
        "m",
        w1,
        {
            "requests": 5,
            "errors": 1,
            "answers": 19,
            "possibly_billed": 1,
            "possibly_billed_usd": 0.25,
            "error": "x: y",
        },
    )
    sent_requests.write_sent(
        lake,
        "r1",
        "m",
        w2,
        {"requests": 2, "errors": 0, "answers": 2, "possibly_billed": 2, "possibly_billed_usd": 0.5},
    )
    sent_requests.write_sent(lake, "r1", "judge", w1, {"requests": 3})
    sent_requests.write_sent(lake, "r2", "m", w1, {"requests": 100})
    assert sent_requests.read_sent(lake, ["r1"]) == {
        "m": {
            "requests": 7,
            "errors": 1,
            "answers": 21,
            "possibly_billed": 3,
            "possibly_billed_usd": 0.75,
            "error": "x: y",
        },
        "judge": {
            "requests": 3,
            "errors": 0,
            "answers": 0,
            "possibly_billed": 0,
            "possibly_billed_usd": 0.0,
            "error": None,
        },
    }
    assert sent_requests.read_sent(lake, ["r1", "r2"])["m"]["requests"] == 107
    assert sent_requests.billed_estimate(lake, "m") == 0.75
    assert sent_requests.read_sent(lake, ["never-ran"]) == {}


def test_old_runs_are_forgotten_and_kept_ones_are_not(tmp_path):
    lake = Lake.open(tmp_path / "lake")
    for run in ("old", "old-but-kept", "new"):
        sent_requests.write_sent(lake, run, "m", "w", {"requests": 1})
    long_ago = time.time() - 2 * sent_requests.KEEP_S
    for run in ("old", "old-but-kept"):
        for path in (tmp_path / "lake" / sent_requests.STATE_DIR / run).iterdir():
            os.utime(path, (long_ago, long_ago))
    sent_requests.forget_old(lake, keep=["old-but-kept"])
    assert sorted(p.name for p in (tmp_path / "lake" / sent_requests.STATE_DIR).iterdir()) == [
        "new",
        "old-but-kept",
    ]
