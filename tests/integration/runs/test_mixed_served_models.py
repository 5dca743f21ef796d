"""An alias that moved to a new snapshot mid-way: status and the report name both, with their counts
(issue 55, acceptance 3).

The rows are stored by the gateway into a temporary home's lake from the fake OpenAI server (a
scripted stand-in for a provider) whose ``served_model`` knob answers ``snap-1`` for its first
answers and ``snap-2`` after (``snapshots``: a count of answers, so the counts are exact whatever
order the requests arrive in).  A second entry, answered by one snapshot throughout, is not named.
Then `relreason status`, `relreason report` and `relreason sql` read the home as a user would.
"""

from __future__ import annotations

import pytest

from relreason_dagster import paths
from relreason_dagster.cli import main
from relreason_dagster.llm.gateway import run_model
from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore
from tests.fakes.openai_server import FakeOpenAIServer, snapshots

pytestmark = pytest.mark.integration

KEY_ENV = "RELREASON_TEST_SNAPSHOT_KEY"
FIRST, THEN = 4, 3  # answers by snap-1, then by snap-2


@pytest.fixture
def home(tmp_path, monkeypatch):
    """RELREASON_HOME under the test's folder with an empty results file; no inherited Dagster home."""
    path = tmp_path / "home"
    monkeypatch.setenv("RELREASON_HOME", str(path))
    monkeypatch.setenv(KEY_ENV, "sk-test-snapshot-0000")
    for name in ("DAGSTER_HOME", "RELREASON_DUCKDB", "RELREASON_PROFILE", "RELREASON_LAKE"):
        monkeypatch.setenv(name, "")  # status sets some for its process: set here so they are undone
        monkeypatch.delenv(name)
    from relreason_dagster.storage.duckdb_io import connect

    path.mkdir()
    connect(paths.duckdb_path()).close()  # the raw schema and the lake views, as a first run leaves them
    return path


def _prompts(n: int, tag: str) -> list[dict]:
    return [
        {
            "prompt_id": f"{tag}{i}",
            "messages": [{"role": "user", "content": f"{tag} question {i}: true or false?"}],
            "max_tokens": 16,
            "benchmark": "toy",
        }
        for i in range(n)
    ]


def _spec(server: FakeOpenAIServer, name: str, served: str) -> ModelEntry:
    return ModelEntry(
        name=name,
        litellm_model=f"openai/{served}",
        params={"temperature": 0},
        concurrency=2,
        api_base=server.api_base,
        api_key_env=KEY_ENV,
        timeout_s=30.0,
        max_attempts=1,
    )


def _store_rows() -> None:
    store = ResponseStore(Lake.default())
    with FakeOpenAIServer(served_model=snapshots(FIRST, "snap-1", "snap-2")) as server:
        stats = run_model(store, _spec(server, "gpt-x", "gpt-x"), _prompts(FIRST + THEN, "x"))
        assert stats.called == FIRST + THEN and stats.errors == 0
    with FakeOpenAIServer(served_model=lambda _key, _number: "steady-1") as server:
        run_model(store, _spec(server, "gpt-y", "gpt-y"), _prompts(3, "y"))


def _section(out: str, title: str) -> str:
    start = out.index(f"== {title}")
    end = out.find("\n== ", start + 1)
    return out[start : end if end >= 0 else None]


def test_status_report_and_sql_name_both_snapshots_with_their_counts(home, tmp_path, capsys):
    _store_rows()
    assert main(["status"]) == 0
    out = capsys.readouterr().out
    assert "Traceback" not in out
    served = _section(out, "served models")
    assert f"gpt-x: served by snap-1 ({FIRST} rows) and snap-2 ({THEN})" in served, served
    assert "gpt-y" not in served and "steady-1" not in served  # one snapshot throughout: no warning

    assert main(["report", "--out", str(tmp_path / "report"), "--max-samples", "1"]) == 0
    capsys.readouterr()
    page = (tmp_path / "report" / "report.html").read_text(encoding="utf-8")
    assert '<div class="warn" id="served-models">' in page
    assert f"<li>gpt-x: served by snap-1 ({FIRST} rows) and snap-2 ({THEN})</li>" in page
    assert "gpt-y: served" not in page

    query = "select model, served_model, count(*) as n from raw.responses group by all order by all"
    assert main(["sql", query, "--csv"]) == 0
    got = capsys.readouterr().out.strip().splitlines()
    assert got == [
        "model,served_model,n",
        f"gpt-x,snap-1,{FIRST}",
        f"gpt-x,snap-2,{THEN}",
        "gpt-y,steady-1,3",
    ]
