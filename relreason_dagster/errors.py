"""Errors that reach a user as one line (the CLI prints them without a traceback)."""


class ConfigError(Exception):
    """Bad configuration or arguments; the message says what to fix."""


class LaunchStopped(BaseException):
    """A launch ended by a signal the user sent: SIGINT (Ctrl-C) or SIGTERM.

    A BaseException, like KeyboardInterrupt, so that no ``except Exception`` on the way up (a run's
    outcome, a report) takes it for one failure among others and carries on to dbt.  ``stored`` says
    what the launch kept (filled on the way up, where the lake is known); ``terminal`` is a copy of
    the stderr file descriptor from before the stop muted it (``defs/launch_stop.py``), for
    :meth:`tell`.
    """

    def __init__(self, signum: int, terminal: int | None = None, stored: str = "") -> None:
        super().__init__(signum)
        self.signum = signum
        self.terminal = terminal
        self.stored = stored

    @property
    def exit_code(self) -> int:
        """128 + the signal, as a shell reports a process it ended: 130 for SIGINT, 143 for SIGTERM."""
        return 128 + self.signum

    def line(self) -> str:
        """The one line the user gets: which signal, what was kept, how to resume."""
        import signal

        name = {signal.SIGINT: "Ctrl-C (SIGINT)"}.get(self.signum, signal.Signals(self.signum).name)
        stored = self.stored or "the answers stored before it are kept in the lake"
        return (
            f"relreason: stopped by {name}; {stored}; dbt did not run. "
            "`relreason run` again resumes from the lake, asking only what is not stored"
        )

    def tell(self) -> None:
        """Write :meth:`line` to the terminal, also when stderr was muted for the stop."""
        import os
        import sys

        text = (self.line() + "\n").encode()
        if self.terminal is not None:
            try:
                os.write(self.terminal, text)
                return
            except OSError:
                pass
        sys.stderr.write(text.decode())
        sys.stderr.flush()
