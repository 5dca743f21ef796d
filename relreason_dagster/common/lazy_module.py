"""A module imported on its first attribute access: :class:`LazyModule`.

Why: every `relreason` command loads the benchmark registry (the parser lists the families and their
options), and KOR's operator and math-answer modules pull SymPy in with it (~1 s of a 2-core machine,
3 s when it is busy), though only generating or scoring a KOR math question needs it.  A module
named through a :class:`LazyModule` costs nothing until it is used, so `relreason --help` and a
launch refused at the door (``launch_plan.py``) never import it.

Not ``importlib.util.LazyLoader``: before Python 3.12 its first load is not thread-safe, and the
model steps score answers from several threads; ``importlib.import_module`` holds the import lock.
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module ``name``: the first attribute read imports it, each read is passed on."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"
