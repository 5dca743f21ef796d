"""Checkpoint files: the weights plus what is needed to rebuild the same network, and their hash."""

from __future__ import annotations

import hashlib
from pathlib import Path

import torch

from relreason_dagster.benchmarks.relational.dlm.config import DLMConfig
from relreason_dagster.benchmarks.relational.dlm.model import DLM
from relreason_dagster.common.atomic_files import atomic_open


def save_checkpoint(model: DLM, path: Path) -> None:
    """Weights and the config they belong to; ``load_checkpoint`` rebuilds the same network."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path, "wb") as handle:  # whole or not at all: a cut checkpoint would not load
        torch.save(
            {
                "config": model.config.to_dict(),
                "n_base": model.n_base,
                "target_arity": model.target_arity,
                "base_arity": model.base_arity,
                "state_dict": model.state_dict(),
            },
            handle,
        )


def load_checkpoint(path: Path) -> DLM:
    data = torch.load(path, map_location="cpu", weights_only=True)
    model = DLM(
        n_base=data["n_base"],
        target_arity=data["target_arity"],
        config=DLMConfig.from_dict(data["config"]),
        base_arity=data["base_arity"],
    )
    model.load_state_dict(data["state_dict"])
    model.eval()
    return model


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
