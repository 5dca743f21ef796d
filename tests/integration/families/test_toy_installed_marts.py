"""A family from an installed package brings its own dbt marts: ``relreason run`` builds them and
``relreason sql`` reads them.

The toy family (``tests/toy_family/``, with its mart in ``dbt/marts/``) is copied as package
``relreason_toy`` into a folder that holds a ``.dist-info`` with a ``relreason.families`` entry point,
the way pip lays out an installed package; a fresh process with that folder on its path registers
the toy through the entry point, never through a ``register`` call, and its dbt folder lies outside
the repository.  The scripted model answers from the number in each prompt (wrong for numbers
ending in 2, unreadable for 5), so the mart's rows follow from the generated samples.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from relreason_dagster import paths
from tests.pipeline_home import scripted_models_yaml

pytestmark = pytest.mark.integration

# Run in the fresh process: the scripted model, then the CLI with the given arguments.
SCRIPT = """
import re, sys
from tests.fakes.scripted_provider import register_scripted_provider, set_responder

def answer(messages, params):
    number = int(re.search(r"\\d+", messages[-1]["content"]).group())
    if number % 10 == 5:
        return "I would rather not say."
    even = (number % 2 == 0) != (number % 10 == 2)
    return "yes" if even else "no"

register_scripted_provider()
set_responder("toy-answerer", answer)
from relreason_dagster.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _install_toy(site):
    """``tests/toy_family`` as an installed package ``relreason_toy`` under ``site``."""
    package = site / "relreason_toy"
    shutil.copytree(
        paths.REPO_ROOT / "tests" / "toy_family", package, ignore=shutil.ignore_patterns("__pycache__")
    )
    for module in package.glob("*.py"):
        module.write_text(module.read_text().replace("tests.toy_family", "relreason_toy"))
    info = site / "relreason_toy-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: relreason-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[relreason.families]\ntoy = relreason_toy.family:ToyFamily\n")


def test_an_installed_familys_mart_is_built_by_run_and_read_by_sql(tmp_path):
    site = tmp_path / "site"
    _install_toy(site)
    models = tmp_path / "models.yaml"
    models.write_text(scripted_models_yaml("toy-answerer", concurrency=4))
    env = {k: v for k, v in os.environ.items() if k not in ("DAGSTER_HOME", "RELREASON_DUCKDB")}
    env |= {
        "RELREASON_HOME": str(tmp_path / "home"),
        "RELREASON_MODELS": str(models),
        "PYTHONPATH": os.pathsep.join([str(site), str(paths.REPO_ROOT)]),
    }

    def relreason(*args: str) -> subprocess.CompletedProcess:
        done = subprocess.run(
            [sys.executable, "-c", SCRIPT, *args], env=env, cwd=tmp_path, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done

    relreason("run", "--model", "toy-answerer", "--profile", "smoke", "--benchmark", "toy")
    shown = relreason("sql", "SELECT parity, n, n_correct FROM marts.toy_by_parity ORDER BY parity").stdout
    asked = relreason("sql", "SELECT input->>'number' AS k FROM raw.samples WHERE benchmark = 'toy'").stdout
    numbers = [int(line) for line in asked.splitlines() if line.strip().isdigit()]
    even = [k for k in numbers if k % 2 == 0]
    odd = [k for k in numbers if k % 2 == 1]
    assert len(numbers) == 8  # the smoke profile's size
    expected = [
        ["even", len(even), sum(k % 10 != 2 for k in even)],  # numbers ending in 2 get the wrong answer
        ["odd", len(odd), sum(k % 10 != 5 for k in odd)],  # numbers ending in 5 an unreadable one
    ]
    table = [line.split() for line in shown.splitlines() if line.split()[:1] in (["even"], ["odd"])]
    assert [[p, int(n), int(c)] for p, n, c in table] == expected, shown
