"""Training jobs (dlm/jobs.py): a training in this process uses one torch thread, as a worker does.

Why it matters: torch's default threads (one per core) wait on each other's time slices on a busy
machine; a 15 s smoke training took 534 s in a `make test` run beside others.
"""

from __future__ import annotations

import dataclasses

import torch

from relreason_dagster.benchmarks.relational.dlm import jobs
from relreason_dagster.benchmarks.relational.dlm import train as train_module
from relreason_dagster.benchmarks.relational.dlm.config import config_for
from relreason_dagster.benchmarks.relational.dlm.plan import DLMRun
from relreason_dagster.benchmarks.relational.generate import make_sample


def test_a_training_in_this_process_uses_one_torch_thread(tmp_path, monkeypatch):
    seen: list[int] = []
    real_train = train_module.train

    def recording_train(*args, **kwargs):
        seen.append(torch.get_num_threads())
        return real_train(*args, **kwargs)

    monkeypatch.setattr(train_module, "train", recording_train)
    before = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        run = DLMRun(
            task="HasFather",
            seed=0,
            config=dataclasses.replace(config_for("HasFather"), max_epochs=1),
            train=tuple(make_sample("HasFather", "fewshot", i, 5, 20240101) for i in range(2)),
            run_id="one-thread",
        )
        (row,) = jobs.train_runs([run], tmp_path, workers=1)
    finally:
        torch.set_num_threads(before)
    assert seen == [1]
    assert row["run_id"] == "one-thread" and (tmp_path / row["checkpoint_path"]).exists()
