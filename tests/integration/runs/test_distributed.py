"""Scale-out on a real distributed engine: Dagster's Celery executor, a Redis broker, two workers.

The test starts ``redis-server`` and two ``relreason worker`` processes (Celery workers), then runs
two models with ``RELREASON_EXECUTOR=celery`` against a local fault-free fake OpenAI server.  The
server holds every request until both models have asked, so their overlap is observed.  Each
model step records the process it ran in; they must be the two different workers.  The rows and
marts must equal those of an in-process run.  Without redis-server or dagster-celery it skips,
saying which is missing.
"""

from __future__ import annotations

import importlib.util
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.integration.runs.test_orchestration import (
    REPO,
    RUN,
    db_rows,
    env_for,
    lake_rows,
    models_yaml,
    relreason,
)

pytestmark = pytest.mark.integration

REDIS = shutil.which("redis-server")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def broker(tmp_path):
    if REDIS is None:
        pytest.skip("redis-server is not installed (Debian package redis-server; .ci/run installs it)")
    if importlib.util.find_spec("dagster_celery") is None:
        pytest.skip("dagster-celery is not installed (pip install -e '.[distributed]')")
    port = _free_port()
    proc = subprocess.Popen(
        [
            REDIS,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.skip(f"redis-server did not start on port {port}")
            time.sleep(0.1)
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(timeout=30)


def _materializations(home: Path) -> dict[str, dict]:
    """model_responses metadata per partition, from the run's Dagster instance."""
    import dagster as dg

    instance = dg.DagsterInstance.from_config(str(home / "dagster"))
    try:
        records = instance.fetch_materializations(dg.AssetKey("model_responses"), limit=100).records
        out = {}
        for record in records:
            mat = record.asset_materialization
            out.setdefault(mat.partition, {k: v.value for k, v in mat.metadata.items()})
        return out
    finally:
        instance.dispose()


# Two Celery workers, a Redis broker and two model runs: ~140 s on an idle 2-core machine, 225 s in CI
# beside the other xdist worker; 1200 s keeps that within a fifth (tests/timeout_budget.py).
@pytest.mark.timeout(1200)
def test_two_model_partitions_on_two_celery_workers(tmp_path, broker):
    with FakeOpenAIServer(delay_s=0.05, meet_models=2, meet_timeout_s=240) as server:
        models = tmp_path / "models.yaml"
        models.write_text(models_yaml(server.api_base, ["alpha", "beta"]))
        env = env_for(
            tmp_path / "celery", models, RELREASON_EXECUTOR="celery", RELREASON_CELERY_BROKER=broker
        )
        workers = [
            subprocess.Popen(
                [sys.executable, "-m", "relreason_dagster.cli", "worker", "--name", f"w{i}"],
                cwd=REPO,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.STDOUT,
            )
            for i in (1, 2)
        ]
        try:
            done = relreason([*RUN, "--model", "alpha", "--model", "beta"], env, timeout=1200)
            assert done.returncode == 0, done.stdout + done.stderr
            assert server.met.is_set(), "the two model partitions never were in flight at the same time"
            alive = [w.poll() is None for w in workers]
        finally:
            for w in workers:
                w.terminate()
            for w in workers:
                try:
                    w.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    w.kill()
        assert all(alive)
        server.meet_models = 0
        reference = env_for(tmp_path / "inproc", models, RELREASON_EXECUTOR="in_process")
        ref = relreason([*RUN, "--model", "alpha", "--model", "beta"], reference)
        assert ref.returncode == 0, ref.stdout + ref.stderr

    home, ref_home = tmp_path / "celery" / "home", tmp_path / "inproc" / "home"
    meta = _materializations(home)
    worker_pids = {str(w.pid) for w in workers}
    ran_in = {p: meta[p]["worker"].rsplit(":", 1)[1] for p in ("alpha", "beta")}
    assert set(ran_in.values()) <= worker_pids and ran_in["alpha"] != ran_in["beta"], ran_in
    windows = [(meta[p]["started_at"], meta[p]["finished_at"]) for p in ("alpha", "beta")]
    assert max(w[0] for w in windows) < min(w[1] for w in windows), windows

    query = (
        "SELECT model, prompt_id, request_hash, content, error FROM raw.responses ORDER BY model, prompt_id"
    )
    rows = db_rows(home, query)
    assert len(rows) > 40 and rows == db_rows(ref_home, query)
    assert lake_rows(home, "SELECT count(*), count(DISTINCT (model, prompt_id)) FROM LAKE") == [
        (len(rows), len(rows))
    ]
    for mart in ("relational_f1", "parse_rate"):
        sql = f"SELECT * FROM marts.{mart} ORDER BY ALL"
        assert db_rows(home, sql) == db_rows(ref_home, sql), mart
