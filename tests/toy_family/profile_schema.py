"""The toy family's profile knobs and their types."""

SCHEMA = {"n": int, "max_tokens": int}
