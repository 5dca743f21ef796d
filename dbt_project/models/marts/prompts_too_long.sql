-- The test prompts each model left out because they do not fit its context window with their max_tokens
-- (relreason run --skip-too-long; a family's prompts checked at the model step, llm/context_window.py):
-- never sent, so never in accuracy or parse_rate, and counted here so no length is missing in silence.
-- needed_tokens: the prompt's tokens (the project's tokenizer) plus its reply's max_tokens.
select p.benchmark, t.model, p.task, p.setting,
       count(*) as n_too_long,
       max(t.context_window) as context_window,
       max(t.window_source) as window_source,
       min(t.needed_tokens) as min_needed_tokens,
       max(t.needed_tokens) as max_needed_tokens
from {{ source('raw', 'too_long') }} t
join {{ ref('stg_prompts') }} p using (prompt_id)
group by p.benchmark, t.model, p.task, p.setting
order by p.benchmark, t.model, p.task, p.setting
