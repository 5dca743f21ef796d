"""Errors that reach a user as one line (the CLI prints them without a traceback)."""


class ConfigError(Exception):
    """Bad configuration or arguments; the message says what to fix."""
