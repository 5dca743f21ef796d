"""Released files of the studies that the reference copy may hold (``paths.reference_dir()``): tests that
check a reader on the study's own rows find them here and skip cleanly when they are absent."""

from __future__ import annotations

from pathlib import Path

from relreason_dagster import paths


def flenqa_release() -> list[Path]:
    """The FLenQA release's files (JSONL or Parquet) under ``<reference>/flenqa/``, if the copy holds any."""
    root = paths.reference_dir() / "flenqa"
    return sorted(p for p in root.glob("**/*") if p.suffix in (".jsonl", ".parquet")) if root.is_dir() else []
