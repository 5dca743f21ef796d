"""A provider that echoes the API key in its 401 message: the key is nowhere a run or a reader leaves text.

Before: the echo was stored verbatim in the lake, then republished by the DuckDB views and marts,
``report.html`` (37 times in the audit), the exports and ``relreason samples``.  Here one pipeline
run (relational, smoke profile) goes against a fake OpenAI server (named as such: a scripted stand-in
for a provider) that refuses half the prompts with "Incorrect API key provided: <the key>" and
answers the other half; then ``samples``, ``report`` and ``export`` read the home.  Every file under
the home and the outputs, every line printed, is searched for the key's bytes; the error rows
themselves must still be there, with ``[redacted <variable>]`` in the key's place, so the test would
see an echo that was merely stored elsewhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from relreason_dagster.cli import main
from tests.fakes.openai_server import FakeOpenAIServer
from tests.pipeline_home import isolated_home, rows

pytestmark = pytest.mark.integration

MODEL = "echoing"
KEY_ENV = "RELREASON_TEST_ECHOED_KEY"
KEY = "sk-proj-Echo7rT4pLx9Wm2Nc8Vb1Hd5Kf3Gs6JaQ"
LABEL = f"[redacted {KEY_ENV}]"


def _models_yaml(api_base: str) -> str:
    return f"""\
models:
  - name: {MODEL}
    litellm_model: openai/fake-echo
    api_base: {api_base}
    api_key_env: {KEY_ENV}
    params: {{temperature: 0}}
    concurrency: 4
    timeout_s: 600
    max_attempts: 2
"""


def _refused(key: str, _attempt: int) -> int:
    return 401 if int(key, 16) % 2 == 0 else 200


def _files_holding(root: Path, needle: bytes) -> list[str]:
    return [str(p) for p in root.rglob("*") if p.is_file() and needle in p.read_bytes()]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    root = tmp_path_factory.mktemp("echoed-key")
    mp = pytest.MonkeyPatch()
    mp.setenv(KEY_ENV, KEY)
    with FakeOpenAIServer(faults=_refused) as server:
        isolated_home(mp, root, _models_yaml(server.api_base))
        from relreason_dagster.pipeline import run_models

        report = run_models([MODEL], profile="smoke", benchmarks=["relational"])
        requests = server.entries()
    assert report.failures == [], report.failures
    assert {e.status for e in requests} == {200, 401}  # some refused, some answered
    yield root
    mp.undo()


def test_the_echoed_key_is_stored_redacted(home):
    errors = rows(f"SELECT error FROM raw.responses WHERE model = '{MODEL}' AND error IS NOT NULL")
    answered = rows(f"SELECT count(*) FROM raw.responses WHERE model = '{MODEL}' AND error IS NULL")
    assert errors and answered[0][0] > 0
    for (error,) in errors:
        assert error.startswith("authentication: ") and LABEL in error, error
    assert _files_holding(home / "home", KEY.encode()) == []  # lake, DuckDB file, Dagster's storage and logs


def test_samples_report_and_export_never_show_the_key(home, capfd):
    capfd.readouterr()
    assert main(["samples", "--model", MODEL]) == 0
    assert main(["samples", "--model", MODEL, "--json"]) == 0
    out, err = capfd.readouterr()
    assert LABEL in out  # the error rows are shown, redacted
    assert KEY not in out + err
    samples = json.loads(out[out.index("\n[") + 1 :]) if "\n[" in out else []
    assert any(LABEL in str(s.get("response_error")) for s in samples)

    assert main(["report", "--out", str(home / "report")]) == 0
    assert main(["export", "--format", "csv", "--out", str(home / "export")]) == 0
    assert main(["export", "--format", "jsonl", "--out", str(home / "export-jsonl")]) == 0
    out, err = capfd.readouterr()
    assert KEY not in out + err
    html = (home / "report" / "report.html").read_text(encoding="utf-8")
    assert LABEL in html
    assert _files_holding(home, KEY.encode()) == []
