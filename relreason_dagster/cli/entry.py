"""The `relreason` command's entry point: parse, run the handler, turn bad input into one line, exit.

``relreason_dagster.cli.main`` (the console script) and ``python -m relreason_dagster.cli`` end up
here; the commands themselves are in ``cli/commands/`` and the families' folders.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

from relreason_dagster import env, profiles
from relreason_dagster.cli.full_disk import SAID, report_no_space
from relreason_dagster.cli.parser import build_parser
from relreason_dagster.errors import ConfigError, LaunchStopped


def use_verbose(verbose: bool) -> None:
    """``-v``: runs started from here log Dagster's DEBUG lines and LiteLLM's INFO to the terminal."""
    env.set_verbose(verbose)
    if verbose:
        os.environ["LITELLM_LOG"] = "INFO"  # read when LiteLLM is first imported (llm/__init__.py)


def main(argv: Sequence[str] | None = None) -> int:
    """The command line (``argv``, default ``sys.argv``); as the `relreason` command it ends the
    process itself (:func:`exit_without_teardown`), called with ``argv`` it returns the exit code."""
    try:
        code = _main(argv)
    except LaunchStopped as stopped:
        # SIGINT or SIGTERM stopped a launch: its processes are gone and its runs cancelled
        # (defs/launch_stop.py); one line, then 130 / 143.  No thread is waited for: a run thread
        # ended mid-call has nothing left to finish.
        stopped.tell()
        if argv is None:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
            os._exit(stopped.exit_code)
        return stopped.exit_code
    if argv is None:
        exit_without_teardown(code)
    return code


def exit_without_teardown(code: int) -> NoReturn:
    """End the process as the interpreter would, less its teardown of every object.

    Why: after a run the heap holds about a million objects (Dagster, dbt, LiteLLM, pandas); Python
    frees them one by one at exit, 3-4 s on 2 cores after the last line was printed.  What exit
    does that matters is kept: non-daemon threads are joined, the at-exit handlers run (logging's
    flush, multiprocessing's reaping of children), stdout and stderr are flushed; then the process ends.
    """
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()  # noqa: SLF001 - what the interpreter runs at exit, in its order
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _main(argv: Sequence[str] | None) -> int:
    args = build_parser().parse_args(argv)
    SAID.clear()
    use_verbose(bool(getattr(args, "verbose", False)))
    try:
        if hasattr(args, "profile_file"):  # read here; the runs get the resolved profile by value
            profiles.use_profile_file(args.profile_file)
        return int(args.handler(args))
    except ConfigError as exc:
        print(f"relreason: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("relreason: interrupted; stored responses are kept, rerun to resume", file=sys.stderr)
        return 130
    except Exception as exc:  # a full disk is one line in every command, not a SQLite traceback
        if report_no_space(exc):
            return 1
        raise
    finally:
        profiles.forget_profile_file()
