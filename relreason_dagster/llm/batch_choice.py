"""What ``relreason run --batch / --no-wait / --batch-fallback`` make of each model of a launch.

Why one place: the launch (``launch_plan.build_plan``) and the dry run (``dry_run.py``) must agree on
which models send batch jobs.  ``--batch`` turns every model that can batch (a provider LiteLLM's batch
API serves, ``transports/batch_limits.py``) to the ``batch`` transport; a model that cannot gets one
line and runs live, because a launch of several models should not fail for one self-hosted server.
"""

from __future__ import annotations

from dataclasses import dataclass

from relreason_dagster.llm.registry import ModelEntry
from relreason_dagster.llm.transports.batch_limits import BATCH_PROVIDERS, batch_provider


@dataclass(frozen=True)
class BatchChoice:
    """The run's batch flags: ``batch`` (``--batch``), ``wait`` (False: ``--no-wait``), ``fallback``
    (``--batch-fallback``; None keeps each entry's ``batch_fallback``)."""

    batch: bool = False
    wait: bool = True
    fallback: str | None = None

    @property
    def any(self) -> bool:
        return self.batch or not self.wait or self.fallback is not None

    def apply(self, spec: ModelEntry, notes: list[str] | None = None) -> ModelEntry:
        """``spec`` as this run sends it; a model ``--batch`` cannot batch adds a line to ``notes``."""
        if self.batch and spec.transport_used != "batch":
            if batch_provider(spec.litellm_model) is None:
                if notes is not None:
                    notes.append(
                        f"relreason: {spec.name} runs live: {spec.provider or 'its provider'} runs no batch "
                        f"jobs LiteLLM can send (only {', '.join(BATCH_PROVIDERS)})"
                    )
                return spec
            spec = spec.model_copy(update={"batch": True, "transport": None})
        if spec.transport_used != "batch":
            return spec
        return spec.model_copy(
            update={
                "batch_wait": self.wait and spec.batch_wait,
                "batch_fallback": self.fallback or spec.batch_fallback,
            }
        )
