"""What the multiprocess executor's forkserver imports once, so each step's process starts warm.

Every step runs in a process forked from the forkserver; without this each
would import the definitions (~9 s on 2 cores) and each check would build a
Great Expectations context (~5 s).  Importing this module does both, and
loads the tokenizer, before the first fork.
"""

from __future__ import annotations

from data_quality import validation
from relreason_dagster.defs.build import default_definitions
from relreason_dagster.llm.tokenizer import count_tokens

default_definitions()  # assets, checks, jobs, dbt manifest: what `definitions.defs` is
validation._context()  # noqa: SLF001 - the cached ephemeral context every check reuses
count_tokens([{"role": "user", "content": "warm"}])
