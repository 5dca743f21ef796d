"""Train a DLM on a task's samples and predict with its hard (argmax) program.

Training follows the DLM authors' supervised recipe (see ``config``): AdamW,
mini-batches, binary cross-entropy on every target cell, the selection
temperature and Gumbel scale decayed once per epoch, early stop once the
training loss is below ``stop_loss``.  Seeding ``torch`` makes a CPU run
reproducible, which is what lets a checkpoint stand for its (config, seed).
"""

from __future__ import annotations

import dataclasses
import random
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field

import torch

from relreason_dagster.benchmarks.base import Sample
from relreason_dagster.benchmarks.relational.dlm.config import DLMConfig
from relreason_dagster.benchmarks.relational.dlm.data import base_tensor, cells_of, stack
from relreason_dagster.benchmarks.relational.dlm.model import DLM, Noise, bce
from relreason_dagster.benchmarks.relational.tasks import task_spec


@dataclass
class TrainResult:
    """A trained model and how its training went."""

    model: DLM
    epochs: int
    final_loss: float
    train_hard_errors: int  # wrong cells of the hard program on the training samples
    wall_s: float
    peak_rss_mb: float
    rss_increase_mb: float
    losses: list[float] = field(default_factory=list)
    attempts: int = 1
    total_epochs: int = 0  # over every attempt
    updates: int = 0  # optimizer steps of this attempt
    total_updates: int = 0  # over every attempt


def _rss_mb() -> float:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * 4096 / 2**20
    except OSError:  # not Linux: the process-wide high-water mark is the best we have
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class _PeakMemory:
    """Samples this process's resident memory every 20 ms while training runs."""

    def __init__(self) -> None:
        self.start = self.peak = _rss_mb()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.wait(0.02):
            self.peak = max(self.peak, _rss_mb())

    def __enter__(self) -> _PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, _rss_mb())


def build_model(task: str, config: DLMConfig, n_base: int) -> DLM:
    return DLM(n_base=n_base, target_arity=task_spec(task).arity, config=config)


def seed_everything(seed: int) -> None:
    random.seed(seed)
    torch.manual_seed(seed)


def hard_errors(model: DLM, samples: Sequence[Sample]) -> int:
    """Cells the argmax program gets wrong on ``samples``."""
    wrong = 0
    with torch.no_grad():
        for group in _by_size(samples).values():
            x, y = stack(group)
            pred = model(x)
            wrong += int(((pred > 0.5).float() != y).sum())
    return wrong


def _by_size(samples: Sequence[Sample]) -> dict[int, list[Sample]]:
    groups: dict[int, list[Sample]] = {}
    for s in samples:
        groups.setdefault(int(s.input["n"]), []).append(s)
    return groups


def train(
    task: str,
    samples: Sequence[Sample],
    config: DLMConfig,
    seed: int,
    log: Callable[[str], None] | None = None,
) -> TrainResult:
    """Fit a DLM for ``task`` on ``samples`` (all of one world size) from ``seed``.

    Attempt ``k`` (``0..config.restarts``) starts from seed ``seed * 1000 + k``; the first whose hard
    program fits the training set wins, else the one with the fewest training errors, then lowest loss.
    """
    if not samples:
        raise ValueError(f"no training samples for {task}")
    x_all, y_all = stack(samples)
    start = time.perf_counter()
    best: TrainResult | None = None
    total_epochs = total_updates = 0
    with _PeakMemory() as memory:
        for attempt in range(config.restarts + 1):
            result = _fit(task, samples, x_all, y_all, config, seed * 1000 + attempt, log)
            total_epochs += result.epochs
            total_updates += result.updates
            result.attempts = attempt + 1
            if best is None or (result.train_hard_errors, result.final_loss) < (
                best.train_hard_errors,
                best.final_loss,
            ):
                best = result
            if best.train_hard_errors == 0:
                break
    assert best is not None
    best.total_epochs = total_epochs
    best.total_updates = total_updates
    best.wall_s = time.perf_counter() - start
    best.peak_rss_mb = round(memory.peak, 1)
    best.rss_increase_mb = round(memory.peak - memory.start, 1)
    return best


def _fit(
    task: str,
    samples: Sequence[Sample],
    x_all: torch.Tensor,
    y_all: torch.Tensor,
    config: DLMConfig,
    seed: int,
    log: Callable[[str], None] | None,
) -> TrainResult:
    """One training attempt from ``seed``."""
    seed_everything(seed)
    model = build_model(task, config, n_base=x_all.shape[-1])
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    generator = torch.Generator().manual_seed(seed)
    noise = Noise(
        config.temperature,
        config.gumbel_scale,
        config.dropout,
        config.straight_through,
        drop_weights=config.drop_weights,
    )
    losses: list[float] = []
    errors = -1
    updates = 0
    log_every = 100 if not config.updates_per_epoch else 10
    for epoch in range(config.max_epochs):
        model.train()
        epoch_loss, seen = 0.0, 0
        for idx in _epoch_batches(config, len(samples), generator):
            step_noise = dataclasses.replace(noise, per_sample=len(idx)) if config.sample_noise else noise
            loss = bce(model(x_all[idx], step_noise), y_all[idx], config.loss_eps)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            epoch_loss += loss.item() * len(idx)
            seen += len(idx)
            updates += 1
        epoch_loss /= seen
        losses.append(epoch_loss)
        noise = dataclasses.replace(
            noise,
            temperature=noise.temperature * config.temperature_decay,
            gumbel_scale=noise.gumbel_scale * config.gumbel_decay,
            dropout=noise.dropout * config.dropout_decay,
        )
        if epoch_loss < config.stop_loss:
            break
        if (epoch + 1) % config.check_every == 0 and epoch_loss < config.exact_stop_loss:
            model.eval()
            errors = hard_errors(model, samples)
            if errors == 0:
                break
        if log is not None and epoch % log_every == 0:
            log(f"{task} seed {seed} epoch {epoch + 1}: loss {epoch_loss:.3g}")
    model.eval()
    errors = hard_errors(model, samples)
    if log is not None:
        log(
            f"{task} seed {seed}: {len(losses)} epochs, {updates} updates, loss {losses[-1]:.3g}, "
            f"{errors} wrong training cells"
        )
    return TrainResult(
        model=model,
        epochs=len(losses),
        final_loss=losses[-1],
        train_hard_errors=errors,
        wall_s=0.0,
        peak_rss_mb=0.0,
        rss_increase_mb=0.0,
        losses=losses,
        updates=updates,
    )


def _epoch_batches(config: DLMConfig, n: int, generator: torch.Generator) -> Iterator[torch.Tensor]:
    """The sample indices of each update of one epoch.

    ``updates_per_epoch`` > 0 is the DLM authors' epoch: that many batches, each ``batch_size``
    distinct samples drawn at random.  Otherwise ``passes`` shuffled passes over all ``n`` samples.
    """
    if config.updates_per_epoch:
        size = min(config.batch_size, n)
        for _ in range(config.updates_per_epoch):
            yield torch.randperm(n, generator=generator)[:size]
        return
    for _pass in range(config.passes):
        order = torch.randperm(n, generator=generator)
        for i in range(0, n, config.batch_size):
            yield order[i : i + config.batch_size]


def predict(model: DLM, sample: Sample) -> set[tuple[int, ...]]:
    """The cells the hard program calls true on ``sample``."""
    model.eval()
    with torch.no_grad():
        pred = model(base_tensor(sample).unsqueeze(0))[0]
    return cells_of(pred)
