-- FLenQA true/false answers (direct and CoT prompts) with their response's reasoning: whether it has a
-- trace and its reasoning tokens (the provider's count, else the trace counted with the profile's
-- tokenizer; reasoning_tokens_source says which), read once per response from stg_flenqa_trace_reads
-- (its rows repeat them per source).  Only models the step has read and some of whose answers have a
-- trace or a positive reasoning-token count: a model without reasoning has no rows.
with reasoning as (
    select prompt_id, model, any_value(has_trace) as has_trace, any_value(reasoning_tokens) as reasoning_tokens,
           any_value(reasoning_tokens_source) as reasoning_tokens_source
    from {{ ref('stg_flenqa_trace_reads') }}
    group by prompt_id, model
),
thinking as (
    -- a trace, or a positive count: some providers report 0 reasoning tokens for a model that does not reason
    select model from reasoning
    group by model
    having count(*) filter (where has_trace or reasoning_tokens > 0) > 0
)
select a.prompt_id, a.model, a.task, a.setting, a.length, a.padding, a.position,
       coalesce(a.correct, false) as correct, r.has_trace, r.reasoning_tokens, r.reasoning_tokens_source
from {{ ref('int_flenqa_answers') }} a
join reasoning r using (prompt_id, model)
where a.model in (select model from thinking)
