"""The models partitions follow every run: added by each models file, never removed while in use."""

from __future__ import annotations

import datetime as dt

import dagster as dg

from relreason_dagster.defs.partitions import MODELS_PARTITION
from relreason_dagster.defs.sensors import register_model_partitions, stale_partitions
from relreason_dagster.storage.lake import Lake
from relreason_dagster.storage.responses import ResponseStore


def test_only_unregistered_empty_idle_partitions_are_stale(tmp_path, monkeypatch):
    monkeypatch.setenv("RELREASON_LAKE", str(tmp_path / "lake"))
    with dg.DagsterInstance.ephemeral() as instance:
        assert register_model_partitions(instance, ["ui-model", "cli-model"]) == ["cli-model", "ui-model"]
        assert register_model_partitions(instance, ["cli-model", "other"]) == [
            "other"
        ]  # a union, never a sync
        assert set(instance.get_dynamic_partitions(MODELS_PARTITION)) == {"ui-model", "cli-model", "other"}
        # cli-model has stored rows; nothing is in flight; the UI's file lists only ui-model.
        row = (
            "p",
            "cli-model",
            "kor",
            "h",
            "m",
            "x",
            "stop",
            1,
            1,
            0.1,
            1,
            None,
            False,
            dt.datetime(2026, 1, 1),
        )
        ResponseStore(Lake.open(tmp_path / "lake")).append([row])
        assert stale_partitions(instance, {"ui-model"}) == ["other"]
