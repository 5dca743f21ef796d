"""`relreason ui` from a shell without the venv on PATH: every asset loads, and a kill stops it all.

Issue 37 items 1 and 7: started as README says (`.venv/bin/relreason ui` from a plain shell), the UI
showed a code-location error (dbt not on PATH); and a `kill` of `relreason ui` left the `dagster dev`
tree running, holding the port.  This starts the real UI on a free port, asks its GraphQL API for the
code location and its assets, then sends SIGTERM to `relreason ui` and checks that no process of
the `dagster dev` group is left and the port is free.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.integration

PLAIN_PATH = "/usr/bin:/bin"
START_TIMEOUT_S = 600  # a busy 2-core machine: dagster dev, its daemon and the code server all import
WORKSPACE_QUERY = """{ workspaceOrError { __typename ... on Workspace { locationEntries { name loadStatus
  locationOrLoadError { __typename ... on PythonError { message } } } } } }"""
ASSETS_QUERY = "{ assetNodes { assetKey { path } } }"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _graphql(port: int, query: str) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/graphql",
        data=json.dumps({"query": query}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())["data"]


def _group_members(pgid: int) -> list[int]:
    """Live (not zombie) processes whose process group is ``pgid``."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return members


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _wait_for_location(port: int, ui: subprocess.Popen) -> dict:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert ui.poll() is None, "relreason ui exited before the UI came up"
        try:
            workspace = _graphql(port, WORKSPACE_QUERY)["workspaceOrError"]
        except OSError:
            time.sleep(2)
            continue
        entries = workspace.get("locationEntries") or []
        if entries and all(e["loadStatus"] == "LOADED" for e in entries):
            return entries[0]
        time.sleep(2)
    raise AssertionError("the UI's code location did not load in time")


LIST_ASSETS = (
    "import json\n"
    "from relreason_dagster.definitions import defs\n"
    "print(json.dumps([key.path for key in defs.resolve_asset_graph().get_all_asset_keys()]))\n"
)


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="reads /proc (Linux)")
def test_ui_from_a_plain_shell_loads_every_asset_and_kill_stops_the_group(tmp_path):
    port = _free_port()
    venv_bin = Path(sys.executable).parent
    env = {
        **os.environ,
        "PATH": PLAIN_PATH,
        "RELREASON_HOME": str(tmp_path / "home"),
    }
    for name in ("VIRTUAL_ENV", "DAGSTER_HOME", "RELREASON_DUCKDB"):
        env.pop(name, None)
    # Every asset the code location defines, read in a fresh process as the UI's reads it (this process
    # may hold definitions built while a test's toy family was registered).
    listed = subprocess.run(
        [sys.executable, "-c", LIST_ASSETS],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert listed.returncode == 0, listed.stderr[-3000:]
    expected = {tuple(path) for path in json.loads(listed.stdout.strip().splitlines()[-1])}
    ui = subprocess.Popen(
        [str(venv_bin / "relreason"), "ui", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    pgid = None
    try:
        location = _wait_for_location(port, ui)
        assert location["locationOrLoadError"]["__typename"] == "RepositoryLocation", location
        loaded = {tuple(node["assetKey"]["path"]) for node in _graphql(port, ASSETS_QUERY)["assetNodes"]}
        assert loaded == expected

        (dagster_dev,) = _children(ui.pid)
        pgid = os.getpgid(dagster_dev)
        assert pgid != os.getpgid(ui.pid) and len(_group_members(pgid)) >= 2  # webserver, daemon, ...
        ui.send_signal(signal.SIGTERM)
        ui.wait(timeout=120)
        deadline = time.monotonic() + 60
        while _group_members(pgid) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _group_members(pgid) == []
        with socket.socket() as s:  # the port is free again (closed connections may linger in TIME_WAIT)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(("127.0.0.1", port))
            s.listen()
    finally:
        if ui.poll() is None:
            ui.kill()
            ui.wait()
        if pgid is not None and _group_members(pgid):
            os.killpg(pgid, signal.SIGKILL)
