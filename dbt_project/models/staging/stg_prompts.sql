select prompt_id, sample_id, benchmark, task, split, setting, template_version, max_tokens, input_tokens, tokenizer
from {{ source('raw', 'prompts') }}
