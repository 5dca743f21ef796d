-- The benchmark families' test prompts (kind 'test').  Follow-up prompts are stored in the same table
-- but are not test questions: a family's follow-up steps (kinds such as 'self_correction' or 'judge')
-- ask about a model's own earlier answers or about responses, and the family's own staging reads them.
select prompt_id, sample_id, benchmark, task, split, setting, template_version, max_tokens, input_tokens, tokenizer
from {{ source('raw', 'prompts') }}
where kind = 'test'
