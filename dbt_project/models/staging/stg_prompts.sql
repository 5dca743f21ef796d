-- Prompts of the benchmark families.  The Self-Contra judge's prompts (benchmark selfcontra_judge) are
-- about responses, not samples; their verdicts are in stg_detections.
select prompt_id, sample_id, benchmark, task, split, setting, template_version, max_tokens, input_tokens, tokenizer
from {{ source('raw', 'prompts') }}
where benchmark <> 'selfcontra_judge'
