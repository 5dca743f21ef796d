"""relreason: measure how well language models reason, as a Dagster + DuckDB + dbt pipeline."""

from relreason_dagster import env as _env  # noqa: F401  (offline defaults before anything imports litellm)
