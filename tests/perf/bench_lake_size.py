"""The lake's and the DuckDB file's size after a long FLenQA smoke run, against its distinct text.

Why: issue 56 acceptance 4.  A long-context grid pads every prompt with up to 64k tokens drawn from
one finite source and asks each text in three settings; stored whole per prompt, that is hundreds of
megabytes of the same paragraphs.  The lake stores a snapshot's text once (``storage/prompt_texts.py``),
and this measures it on the real pipeline: ``run_pipeline`` with a scripted model (answers "True" at
once: no model is measured, only what is stored) on the grid 3 tasks x 10 base instances x lengths
250 .. 64,000 x 3 paddings (random position, plus the minimal texts), in a fresh RELREASON_HOME.

*Distinct text* is the UTF-8 bytes of the distinct lines of every prompt's messages (their JSON text
cut at each newline, each distinct line counted once: ``prompt_texts.distinct_text_bytes``), i.e. the
distinct paragraphs plus the instructions around them.  The target is lake < 2 x distinct text.  For
comparison the same prompts are also written as the lake held them before (messages whole per prompt).

The *different* padding beyond ~25k tokens needs more prose than the built-in Python docs: the run
points ``prose_dir`` at a folder assembled here from the docstrings of this Python's standard library
(sorted files, until the filtered prose holds ~200k tokens), so the numbers reproduce on the same
Python.  Usage::

    .venv/bin/python tests/perf/bench_lake_size.py          # prints a Markdown section
"""

from __future__ import annotations

import ast
import inspect
import json
import sys
import sysconfig
import time
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:  # run as a script: make `tests.` and the package importable
    sys.path.insert(0, str(REPO_ROOT))

MODEL = "bench"
PROFILE = "longsmoke"
LENGTHS = [250, 500, 1000, 2000, 3000, 8000, 16000, 32000, 64000]
PROSE_CHARS = 900_000  # ~200k tokens of filtered prose (~4.5 characters a token)
TARGET_RATIO = 2.0

MODELS_YAML = f"""\
models:
  - name: {MODEL}
    litellm_model: scripted/{MODEL}
    params: {{temperature: 0}}
    concurrency: 16
    context_window: 131072
"""


def assemble_prose(folder: Path, min_chars: int = PROSE_CHARS) -> int:
    """Docstrings of the standard library's modules as ``.txt`` files in ``folder``, in sorted order,
    until the prose the FLenQA filter keeps holds ``min_chars`` characters; returns that count."""
    from relreason_dagster.benchmarks.flenqa.prose import _clean_paragraphs

    folder.mkdir(parents=True, exist_ok=True)
    kept = 0
    for n, path in enumerate(sorted(Path(sysconfig.get_paths()["stdlib"]).rglob("*.py"))):
        if "test" in path.parts or "tests" in path.parts:
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        docs = [
            inspect.cleandoc(doc)
            for node in ast.walk(tree)
            if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            and (doc := ast.get_docstring(node))
        ]
        if not docs:
            continue
        text = "\n\n".join(docs)
        (folder / f"doc_{n:05d}.txt").write_text(text, encoding="utf-8")
        kept += sum(len(" ".join(p)) for p in _clean_paragraphs(text))
        if kept >= min_chars:
            break
    return kept


def _bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def bench_lake_size() -> dict[str, Any]:
    import os

    import duckdb
    import pyarrow as pa
    import pyarrow.parquet as pq
    import yaml

    from relreason_dagster import paths
    from relreason_dagster.pipeline import run_models
    from relreason_dagster.profiles import PROFILE_FILE_ENV
    from relreason_dagster.storage.prompt_texts import distinct_text_bytes
    from tests.fakes.scripted_provider import register_scripted_provider, set_responder
    from tests.perf._common import isolated_env

    with isolated_env("lake-size", MODELS_YAML) as root:
        prose_chars = assemble_prose(root / "prose")
        profiles = {
            PROFILE: {
                "flenqa": {
                    "n_base": 10,
                    "lengths": LENGTHS,
                    "paddings": ["duplicate", "similar", "different"],
                    "positions": ["random"],
                    "minimal": True,
                    "prose_dir": str(root / "prose"),
                }
            }
        }
        (root / "profiles.yaml").write_text(yaml.safe_dump(profiles), encoding="utf-8")
        os.environ[PROFILE_FILE_ENV] = str(root / "profiles.yaml")
        register_scripted_provider()
        set_responder(MODEL, lambda messages, params: "True")
        start = time.perf_counter()
        report = run_models([MODEL], profile=PROFILE, run_dbt=False)
        run_s = time.perf_counter() - start
        if report.failures:
            raise RuntimeError(f"the run failed: {report.failures}")

        lake_dir, db = Path(paths.lake_url()), paths.duckdb_path()
        con = duckdb.connect(str(db), read_only=True)
        try:
            rows = con.execute(
                "SELECT prompt_id, benchmark, messages, max_tokens, setting, sample_id, task, split"
                " FROM raw.prompts ORDER BY sample_id, setting"  # a sample's settings side by side, as built
            ).fetchall()
            n_samples = con.execute("SELECT count(*) FROM raw.samples").fetchone()[0]
            n_answers = con.execute("SELECT count(*) FROM raw.responses").fetchone()[0]
        finally:
            con.close()
        messages = [r[2] for r in rows]
        distinct = distinct_text_bytes(messages)
        total = sum(len(m.encode("utf-8")) for m in messages)
        lake_bytes = _bytes(lake_dir)
        per_table = {t: _bytes(lake_dir / t) for t in ("prompts", "prompt_texts", "responses")}

        # The same prompts as the lake held them before: each one's messages whole in one snapshot file,
        # written as it was (pyarrow's default, snappy) and with the zstd the lake writes now.
        cols = ["prompt_id", "benchmark", "messages", "max_tokens", "setting", "sample_id", "task", "split"]
        old = pa.Table.from_pylist([dict(zip(cols, r, strict=True)) for r in rows])
        old_bytes = {}
        for codec in ("snappy", "zstd"):
            pq.write_table(old, root / f"old-{codec}.parquet", compression=codec)
            old_bytes[codec] = (root / f"old-{codec}.parquet").stat().st_size
        return {
            "prompts": len(rows),
            "samples": n_samples,
            "answers": n_answers,
            "prose_chars": prose_chars,
            "run_s": round(run_s, 1),
            "prompt_text_mb": round(total / 1e6, 2),
            "distinct_text_mb": round(distinct / 1e6, 3),
            "lake_mb": round(lake_bytes / 1e6, 3),
            "lake_tables_mb": {t: round(b / 1e6, 3) for t, b in per_table.items()},
            "lake_ratio": round(lake_bytes / distinct, 2),
            "within_target": lake_bytes < TARGET_RATIO * distinct,
            "old_layout_snappy_mb": round(old_bytes["snappy"] / 1e6, 2),
            "old_layout_zstd_mb": round(old_bytes["zstd"] / 1e6, 2),
            "duckdb_mb": round(db.stat().st_size / 1e6, 2),
            "duckdb_ratio": round(db.stat().st_size / distinct, 2),
        }


def render(result: dict[str, Any]) -> str:
    ok = "within" if result["within_target"] else "**over**"
    tables = ", ".join(f"{t} {mb} MB" for t, mb in result["lake_tables_mb"].items())
    return (
        "## Long prompts stored once (FLenQA long smoke)\n\n"
        f"{result['prompts']:,} prompts of {result['samples']:,} samples, {result['answers']:,} answers "
        f"(scripted model), run in {result['run_s']} s.  Prompt text {result['prompt_text_mb']} MB; "
        f"**distinct text {result['distinct_text_mb']} MB**; **lake {result['lake_mb']} MB** "
        f"({result['lake_ratio']} x distinct, {ok} the < {TARGET_RATIO:g} x target; {tables}); the same "
        f"prompts in the old layout (messages whole) {result['old_layout_snappy_mb']} MB as it was "
        f"written (snappy), {result['old_layout_zstd_mb']} MB with zstd.  DuckDB file "
        f"{result['duckdb_mb']} MB ({result['duckdb_ratio']} x distinct).\n"
    )


if __name__ == "__main__":
    res = bench_lake_size()
    print(json.dumps(res, indent=1))
    print(render(res))
