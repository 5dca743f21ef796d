-- Prompts of the benchmark families.  The Self-Contra judge's prompts (benchmark selfcontra_judge) are
-- about responses, not samples; their verdicts are in stg_detections.  KOR self-correction prompts
-- (benchmark kor_selfcorrect) hold one model's own earlier answers; they are in stg_kor_rounds.
select prompt_id, sample_id, benchmark, task, split, setting, template_version, max_tokens, input_tokens, tokenizer
from {{ source('raw', 'prompts') }}
where benchmark not in ('selfcontra_judge', 'kor_selfcorrect')
