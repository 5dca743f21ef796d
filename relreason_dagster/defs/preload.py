"""What the multiprocess executor's forkserver imports once, so each step's process starts warm.

Every step runs in a process forked from the forkserver; without this each
would import the definitions (~9 s on 2 cores) and each check would build a
Great Expectations context (~5 s).  Importing this module does both, and
loads the tokenizer, before the first fork.
"""

from __future__ import annotations

import relreason_dagster.definitions  # noqa: F401  (assets, checks, jobs, dbt manifest)
from data_quality import suites
from relreason_dagster.llm.tokenizer import count_tokens

suites._context()  # noqa: SLF001 - the cached ephemeral context every check reuses
count_tokens([{"role": "user", "content": "warm"}])
