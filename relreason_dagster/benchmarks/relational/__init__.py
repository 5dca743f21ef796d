"""Relational reasoning (family trees, general graphs) as in Li et al., "LLMs for Relational Reasoning"."""

from relreason_dagster.benchmarks.relational.family import RelationalFamily
from relreason_dagster.benchmarks.relational.tasks import TASKS

__all__ = ["TASKS", "RelationalFamily"]
