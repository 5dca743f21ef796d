"""The relational study's non-LLM baseline, the DLM, as the pipeline sees it (``BASELINES``).

The generic Dagster layer (``defs/baseline_assets.py``) trains and scores every baseline a family
declares here without knowing what it is: it hands over the stored few-shot samples, stores the
training rows the baseline returns in its ``runs_table`` and the answers as ``raw.parsed_answers``
rows of model ``name``.  Everything DLM-specific (torch, recipes, checkpoints, programs) stays in
this folder; torch is imported only when a method trains or predicts, so loading the Dagster
definitions does not pay for it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from relreason_dagster.benchmarks.base import Profile, Sample


class DLMBaseline:
    """The Differentiable Logic Machine, trained per task and seed on the prompts' few-shot samples."""

    name = "dlm"  # the model name its answers carry
    setting = "dlm"  # their setting: truth-value matrices in, truth values out
    title = "DLM (ours)"
    description = "Differentiable Logic Machine baseline"
    runs_table = "dlm_runs"
    train_splits = ("fewshot",)
    test_splits = ("iid", "ood")
    step_words = ("training the DLM (or reusing its checkpoints)", "scoring the DLM")

    def tasks(self, profile: Profile, train_size: int | None = None) -> tuple[str, ...]:
        """The tasks the profile trains (``dlm_tasks``); bad ``dlm_*`` knobs are one-line errors here."""
        from relreason_dagster.benchmarks.relational.dlm.plan import dlm_settings

        return dlm_settings(profile, train_size).tasks

    def plan(
        self, task: str, fewshot: list[Sample], profile: Profile, seed: int, train_size: int | None
    ) -> list[Any]:
        """One training run per seed of the profile; each has a ``run_id`` naming its weights."""
        from relreason_dagster.benchmarks.relational.dlm.plan import plan_runs

        return plan_runs(task, fewshot, profile, seed, train_size)

    def intact(self, row: dict[str, Any], home: Path) -> bool:
        """Whether a stored run's checkpoint file is still there, unchanged (else it trains again)."""
        from relreason_dagster.benchmarks.relational.dlm.checkpoint import file_sha256

        path = home / row["checkpoint_path"]
        return path.exists() and file_sha256(path) == row["checkpoint_sha256"]

    def train(
        self,
        runs: list[Any],
        home: Path,
        on_done: Callable[[dict[str, Any]], None],
        workers: int | None = None,
    ) -> list[dict[str, Any]]:
        """Train ``runs`` (side by side, one process each, ``workers`` at most); a row per run."""
        from relreason_dagster.benchmarks.relational.dlm.jobs import train_runs

        return train_runs(runs, home, workers=workers, on_done=on_done)

    def predictor(self, row: dict[str, Any], home: Path) -> Callable[[Sample], Any]:
        """The trained run's prediction function: a sample in, its predicted cells out."""
        from relreason_dagster.benchmarks.relational.dlm.checkpoint import load_checkpoint
        from relreason_dagster.benchmarks.relational.dlm.train import predict

        model = load_checkpoint(home / row["checkpoint_path"])
        return lambda sample: predict(model, sample)

    def done_line(self, task: str, row: dict[str, Any]) -> str:
        return (
            f"dlm {task} ({row.get('recipe')}) seed {row['seed']}: {row['total_epochs']} epochs in "
            f"{row['wall_s']:.0f} s, "
            f"{row['train_hard_errors']} wrong training cells; {row['program'][:200]}"
        )

    def summary(self, rows: list[dict[str, Any]]) -> dict[str, Any]:
        """What the UI shows of a task's runs: a table per seed, the extracted programs, the config."""
        return {
            "n_params": rows[0]["n_params"],
            "config": rows[0]["config"],
            "runs": [
                {
                    "recipe": r.get("recipe"),
                    "seed": r["seed"],
                    "epochs": r["epochs"],
                    "attempts": r["attempts"],
                    "final_loss": f"{r['final_loss']:.3g}",
                    "train_errors": r["train_hard_errors"],
                    "wall_s": round(r["wall_s"], 1),
                    "peak_rss_mb": r["peak_rss_mb"],
                    "params": r["n_params"],
                }
                for r in rows
            ],
            "programs": "\n\n".join(
                f"{r.get('recipe') or 'default'}, seed {r['seed']}:\n```\n{r['program']}\n```" for r in rows
            ),
        }


BASELINES = (DLMBaseline(),)
