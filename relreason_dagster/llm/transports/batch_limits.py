"""Which providers run batch jobs, and how big one job may be: one table (issue 54).

Why apart from ``batch.py``: the registry checks ``batch: true`` and ``relreason run --batch`` picks the
models that can batch while reading models.yaml, which must load neither LiteLLM nor the transport.
"""

from __future__ import annotations

MB = 1024 * 1024
# (lines, bytes) one job may hold, per LiteLLM provider: OpenAI's documented 50,000 requests / 200 MB
# input file; Azure OpenAI's 100,000 / 200 MB; Anthropic's Message Batches 100,000 / 256 MB.  Vertex AI's
# and Bedrock's own limits are higher than OpenAI's, whose are used for them (more jobs, never a
# refused one).
LIMITS: dict[str, tuple[int, int]] = {
    "openai": (50_000, 200 * MB),
    "azure": (100_000, 200 * MB),
    "anthropic": (100_000, 256 * MB),
    "vertex_ai": (50_000, 200 * MB),
    "gemini": (50_000, 200 * MB),
    "bedrock": (50_000, 200 * MB),
}
# The providers LiteLLM 1.110's batch API (acreate_file / acreate_batch / aretrieve_batch) serves; an
# OpenAI-compatible api_base counts as openai.
BATCH_PROVIDERS = tuple(LIMITS)


def batch_provider(litellm_model: str) -> str | None:
    """The LiteLLM provider batch calls use for ``litellm_model``, or None when it cannot batch."""
    provider = litellm_model.split("/", 1)[0] if "/" in litellm_model else ""
    return provider if provider in LIMITS else None
