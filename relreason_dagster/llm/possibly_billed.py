"""What a send that timed out after it was sent may have cost: its *possibly billed* estimate.

Why: a provider bills a request it finished even when the client stopped waiting, and a reply that
never arrived carries no token counts.  So the gateway charges each such send (``provider_errors``'
``possibly_billed`` kinds: ``timeout``) the most it can cost: the prompt's tokens at the model's input
price plus the request's ``max_tokens`` (times the draws it asks) at the output price, from LiteLLM's
offline cost map (``litellm_overhead.call_cost``, the price every stored answer gets).  The prompt is
counted as the gateway counts it for ``tpm`` (characters / 4, ``draw_plan.work_tokens``): no
tokenizer is loaded for a failure, and the estimate says it is one (~).  It goes into the run's spent
total (so ``max_cost`` counts it), its :class:`~relreason_dagster.llm.run_stats.RunStats` and the
run's sent-requests ledger (``storage/sent_requests.py``).  A model without a price has no estimate
(None, never a made-up 0): its possibly-billed sends are still counted.
"""

from __future__ import annotations

from relreason_dagster.llm.draw_plan import Work, work_size
from relreason_dagster.llm.litellm_overhead import call_cost
from relreason_dagster.llm.rate_limits import CHARS_PER_TOKEN
from relreason_dagster.llm.registry import ModelEntry


def estimate_usd(spec: ModelEntry, work: Work, draws: int = 1) -> float | None:
    """The most one send of ``work`` asking ``draws`` choices can cost in USD; None: no price known."""
    prompt_tokens = work_size(work) // CHARS_PER_TOKEN
    completion_tokens = int(work.params.get("max_tokens") or 0) * max(1, draws)
    return call_cost(spec.litellm_model, prompt_tokens, completion_tokens)
