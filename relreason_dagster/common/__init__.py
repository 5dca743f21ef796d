"""The bottom folder: helpers every layer may use, families included, that import no other folder of
the project (only the root modules ``errors``, ``env`` and ``paths``).

What is here: token counts with a real tokenizer (``tokenizer.py``), the model kinds a ``models.yaml``
entry may name (``model_kinds.py``), row writes and reads on an open DuckDB connection
(``duckdb_rows.py``) and Great Expectations validation of a dataframe (``gx_validation.py``).  Each
used to sit in the folder of its subject (``llm/``, ``storage/``, ``data_quality/``), so a family
importing it pointed up at a folder above the families; here the folders stack as the layers do
(``tests/unit/codebase/test_layers.py``).  A module belongs here only if it knows no family, no model and no
Dagster, and importing it is cheap.
"""
