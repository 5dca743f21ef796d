"""Token counts as the paper's Table 7 counts them: OpenAI's ``cl100k_base`` (tiktoken).

The encoding file ships inside LiteLLM (its bundled tiktoken cache), so counting never downloads
anything; importing LiteLLM's default encoding sets that cache up.  Special-token text in a model's
answer is counted as ordinary text (never refused).
"""

from __future__ import annotations

import functools
from typing import Any

ENCODING = "cl100k_base"


@functools.cache
def _encoding() -> Any:
    from litellm.litellm_core_utils.default_encoding import encoding

    if encoding.name != ENCODING:
        raise RuntimeError(f"LiteLLM's default encoding is {encoding.name}, not {ENCODING}")
    return encoding


def count_cl100k(text: str) -> int:
    """How many ``cl100k_base`` tokens ``text`` is."""
    return len(_encoding().encode(text, disallowed_special=()))
