"""How an entry's timeout is chosen, and how possibly-billed sends are counted (issue 54, item 3).

A reasoning entry (``kind: reasoning``, or params that turn thinking on) gets a long default
``timeout_s`` (600 s) since a timeout there is a send the provider may still bill; every other entry
keeps 120 s, and an entry's own ``timeout_s`` always wins.  ``timeout_retries`` is checked like every
field.  The counters of possibly-billed sends add up across a run's worker processes, reach the
summary line and the sent-requests ledger, and `relreason status` shows the last launch's.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from relreason_dagster.errors import ConfigError
from relreason_dagster.llm.registry import (
    DEFAULT_TIMEOUT_S,
    REASONING_TIMEOUT_S,
    default_timeout_s,
    parse_registry,
    resolve_model,
)
from relreason_dagster.llm.run_stats import RunStats, add_counters, counters
from relreason_dagster.storage import sent_requests


def _entry(**fields) -> dict:
    return {"name": "m", "litellm_model": "openai/m", **fields}


def _spec(**fields):
    return parse_registry({"models": [_entry(**fields)]}, "models.yaml")["m"]


@pytest.mark.parametrize(
    "fields,timeout",
    [
        ({}, DEFAULT_TIMEOUT_S),
        ({"kind": "base"}, DEFAULT_TIMEOUT_S),
        ({"kind": "reasoning"}, REASONING_TIMEOUT_S),
        ({"params": {"reasoning_effort": "high"}}, REASONING_TIMEOUT_S),
        ({"params": {"thinking": {"type": "enabled", "budget_tokens": 4096}}}, REASONING_TIMEOUT_S),
        ({"params": {"reasoning": {"effort": "medium"}}}, REASONING_TIMEOUT_S),
        (
            {"params": {"extra_body": {"chat_template_kwargs": {"enable_thinking": True}}}},
            REASONING_TIMEOUT_S,
        ),
        # Params that switch thinking off are not a reasoning entry.
        ({"params": {"reasoning_effort": "none"}}, DEFAULT_TIMEOUT_S),
        ({"params": {"thinking": {"type": "disabled"}}}, DEFAULT_TIMEOUT_S),
        ({"params": {"chat_template_kwargs": {"enable_thinking": False}}}, DEFAULT_TIMEOUT_S),
        # The entry's own timeout wins, whatever it is.
        ({"kind": "reasoning", "timeout_s": 30}, 30.0),
        ({"timeout_s": 900}, 900.0),
    ],
)
def test_default_timeout_by_entry(fields, timeout):
    assert DEFAULT_TIMEOUT_S == 120.0 and REASONING_TIMEOUT_S == 600.0
    assert _spec(**fields).timeout_s == timeout


def test_a_reasoning_option_on_the_command_line_gets_the_long_default(tmp_path):
    path = tmp_path / "models.yaml"
    path.write_text(
        "models:\n  - name: m\n    litellm_model: openai/m\n  - name: t\n    litellm_model: openai/t\n"
        "    timeout_s: 45\n"
    )
    assert resolve_model(path, "m").timeout_s == DEFAULT_TIMEOUT_S
    assert resolve_model(path, "m", {"reasoning_effort": "high"}).timeout_s == REASONING_TIMEOUT_S
    assert resolve_model(path, "m", {"kind": "reasoning"}).timeout_s == REASONING_TIMEOUT_S
    # A timeout the entry (or the option) sets stays.
    assert resolve_model(path, "t", {"reasoning_effort": "high"}).timeout_s == 45.0
    assert resolve_model(path, "m", {"reasoning_effort": "high", "timeout_s": 50}).timeout_s == 50.0


def test_timeout_retries_is_checked():
    assert _spec().timeout_retries == 1
    assert _spec(timeout_retries=0).timeout_retries == 0
    with pytest.raises(
        ConfigError, match=r"models\[0\]\.timeout_retries: expected a number of retries, 0 or more"
    ):
        _spec(timeout_retries=-1)
    with pytest.raises(ConfigError, match=r"models\[0\]\.timeout_retries: expected"):
        _spec(timeout_retries="2")


def test_default_timeout_reads_kind_and_params_only():
    assert default_timeout_s("chat", {}) == DEFAULT_TIMEOUT_S
    assert default_timeout_s("reasoning", {}) == REASONING_TIMEOUT_S


def test_possibly_billed_in_the_summary_and_across_workers():
    one, two = RunStats(model="m"), RunStats(model="m")
    one.possibly_billed, one.possibly_billed_usd = 1, 0.01
    two.possibly_billed, two.possibly_billed_usd = 2, 0.0023
    total = RunStats(model="m", total=3, called=3)
    add_counters(total, [counters(one), counters(two)])
    assert total.possibly_billed == 3 and total.possibly_billed_usd == pytest.approx(0.0123)
    assert "3 timed-out sends possibly billed (~$0.0123 estimated)" in total.summary()
    unpriced = RunStats(model="m", possibly_billed=1)
    assert "1 timed-out send possibly billed (no price known)" in unpriced.summary()
    assert "possibly billed" not in RunStats(model="m").summary()


def test_the_ledger_keeps_possibly_billed_sends(lake):
    counts = {"requests": 4, "errors": 1, "answers": 3, "possibly_billed": 2, "possibly_billed_usd": 0.5}
    sent_requests.write_sent(lake, "run-a", "m", "w1", counts)
    sent_requests.write_sent(lake, "run-a", "m", "w2", {**counts, "possibly_billed_usd": 0.25})
    sent_requests.write_sent(
        lake, "run-b", "m", "w3", {"requests": 1, "possibly_billed": 1, "possibly_billed_usd": 1.0}
    )
    sent_requests.write_sent(lake, "run-b", "other", "w4", {"requests": 1})
    read = sent_requests.read_sent(lake, ["run-a"])["m"]
    assert (read["requests"], read["possibly_billed"], read["possibly_billed_usd"]) == (8, 4, 0.75)
    # What a later run's max_cost adds: every kept ledger's estimate of the model.
    assert sent_requests.billed_estimate(lake, "m") == pytest.approx(1.75)
    assert sent_requests.billed_estimate(lake, "other") == 0.0
    assert sent_requests.billed_estimate(lake, "never-run") == 0.0


def test_status_shows_the_last_launchs_possibly_billed_sends(lake, monkeypatch):
    """The status section reads the ledgers of the newest launch's Dagster runs (tagged by launch)."""
    from relreason_dagster.defs import status as status_module
    from relreason_dagster.defs.launcher import LAUNCH_TAG

    sent_requests.write_sent(
        lake, "r-new", "m", "w", {"requests": 3, "possibly_billed": 2, "possibly_billed_usd": 0.0123}
    )
    sent_requests.write_sent(
        lake, "r-old", "m", "w", {"requests": 9, "possibly_billed": 5, "possibly_billed_usd": 1.0}
    )

    def record(run_id: str, launch: str) -> SimpleNamespace:
        return SimpleNamespace(dagster_run=SimpleNamespace(run_id=run_id, tags={LAUNCH_TAG: launch}))

    newest_first = [record("r-new", "L2"), record("r-old", "L1")]

    class Instance:
        def get_run_records(self, filters=None, limit=None):
            if filters is None:
                return newest_first[:limit]
            return [r for r in newest_first if r.dagster_run.tags[LAUNCH_TAG] == filters.tags[LAUNCH_TAG]]

    monkeypatch.setattr("relreason_dagster.paths.lake_url", lambda: lake.url)
    report = status_module.StatusReport(
        lambda: None, print, lambda cols, rows: repr((list(cols), list(rows)))
    )
    report.instance = status_module._Lazy(Instance)
    lines = report.last_launch_sends()
    assert lines == [
        repr(
            (
                ["model", "requests", "errors", "possibly billed sends", "estimated USD"],
                [("m", 3, 0, 2, "~$0.0123")],
            )
        )
    ]
