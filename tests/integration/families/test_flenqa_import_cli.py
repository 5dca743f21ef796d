"""The re-audit's `relreason flenqa import`, as a user runs it: a real process (issue 53, defect 6).

A released-format file (the made-up rows of ``tests/unit/flenqa/test_flenqa_dataset.py``) carrying
the re-audit's bad values: a ``mixin`` far too long for its 250-token row, ``ctx_size`` 10^30, a
``sample_id`` that is a JSON object, ``"ctx_size": Infinity``, and a last line cut off mid-row.  The
command must exit 1, print one line per problem and a count on stderr (no traceback), and import
nothing; the fixed file then imports whole.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from relreason_dagster.benchmarks.flenqa import release_bounds
from tests.unit.flenqa.test_flenqa_dataset import released_rows

ROOT = Path(__file__).resolve().parents[3]


def _import(path: Path, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "RELREASON_HOME": str(home),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.run(
        [sys.executable, "-m", "relreason_dagster.cli", "flenqa", "import", str(path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_reaudit_file_is_refused_line_by_line_and_nothing_is_imported(tmp_path):
    good = released_rows()
    huge = "The ferry left at dawn. " * (release_bounds.mixin_chars(250)[1] // 24 + 1)
    lines = [json.dumps(row) for row in good]
    lines[3] = json.dumps({**good[3], "mixin": huge})
    lines[5] = json.dumps({**good[5], "ctx_size": 10**30})
    lines[7] = json.dumps({**good[7], "sample_id": {"id": 7}})
    lines[9] = json.dumps(good[9]).replace(f'"ctx_size": {good[9]["ctx_size"]}', '"ctx_size": Infinity')
    path = tmp_path / "FLenQA_hf.jsonl"
    body = "\n".join(lines) + "\n"
    path.write_text(body[: len(body) - 40], encoding="utf-8")  # the download cut off in line 40
    home = tmp_path / "home"

    done = _import(path, home)

    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"line 4: mixin is {len(huge):,} characters; a 250-token row of the study's has 237 to 4,920",
        "line 6: ctx_size 1000000000000000000000000000000 is not one of the study's lengths "
        "(250, 500, 1000, 2000, 3000)",
        "line 8: sample_id is a JSON object; an id is a text or a whole number",
        "line 10: holds Infinity, which is not JSON (no field of the release is a non-number)",
        "line 40: the file ends mid-row here: it is truncated; download it again",
        "FLenQA_hf.jsonl: 5 problem(s) in 5 of 40 rows; nothing imported "
        "(fix them, or download the release again)",
    ]
    assert not (home / "imports" / "flenqa" / "FLenQA.jsonl").exists()

    path.write_text("\n".join(json.dumps(row) for row in good) + "\n", encoding="utf-8")
    done = _import(path, home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("imported 40 rows from FLenQA_hf.jsonl")
    stored = (home / "imports" / "flenqa" / "FLenQA.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in stored] == good
