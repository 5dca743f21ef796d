select prompt_id, model, request_hash, litellm_model, content, finish_reason, prompt_tokens,
       completion_tokens, latency_s, attempts, error, from_cache, created_at, sanitized,
       reasoning, reasoning_tokens, cost_usd, served_model, system_fingerprint,
       error is null as succeeded
from {{ source('raw', 'responses') }}
