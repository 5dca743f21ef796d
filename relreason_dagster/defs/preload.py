"""What the multiprocess executor's forkserver imports once, so each step's process starts warm.

Every step (and every run the launcher runs side by side) runs in a process
forked from the forkserver; without this each would import the definitions
(~6 s on 2 cores), LiteLLM (~3 s, imported on first use since the definitions
do not need it) and each check would build a Great Expectations context (~2
s).  Importing this module does all of it, and loads the tokenizer, before the
first fork.
"""

from __future__ import annotations

from relreason_dagster.common import gx_validation
from relreason_dagster.common.tokenizer import count_tokens
from relreason_dagster.defs.build import default_definitions
from relreason_dagster.llm.litellm_overhead import litellm_module

default_definitions()  # assets, checks, jobs, dbt manifest: what `definitions.defs` is
gx_validation._context()  # noqa: SLF001 - the cached ephemeral context every check reuses
count_tokens([{"role": "user", "content": "warm"}])
litellm_module()
