-- The benchmark families' test prompts (kind 'test').  Follow-up prompts are stored in the same table
-- but are not test questions: KOR self-correction rounds (kind 'self_correction') hold one model's own
-- earlier answers and are in stg_kor_rounds; the Self-Contra judge's prompts (kind 'judge') are about
-- responses, and their verdicts are in stg_detections.
select prompt_id, sample_id, benchmark, task, split, setting, template_version, max_tokens, input_tokens, tokenizer
from {{ source('raw', 'prompts') }}
where kind = 'test'
