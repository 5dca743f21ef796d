"""Reading stored results: per-sample rows, read-only queries, export and the report.

Plain Python on a DuckDB connection (no Dagster import), so the CLI and a notebook share it.
"""
