-- FLenQA true/false answers (direct and CoT prompts) of models with reasoning traces, each with its
-- reasoning tokens when it has a trace (int_reasoning_tokens: the provider's count, else the trace
-- counted with the project's tokenizer; reasoning_tokens_source says which).  A model none of whose
-- answers has a trace has no rows.  Draw 0 only: the study asked each prompt once and every FLenQA
-- mart's accuracy is draw 0's (int_flenqa_answers), so the thinking set beside it is that same reply's;
-- accuracy against thinking over every draw of --samples K is marts.reasoning_accuracy.
with thinking as (
    select distinct model from {{ ref('int_reasoning_tokens') }} where sample_index = 0
)
select a.prompt_id, a.model, a.task, a.setting, a.length, a.padding, a.position,
       coalesce(a.correct, false) as correct, t.reasoning_tokens is not null as has_trace,
       t.reasoning_tokens, t.reasoning_tokens_source
from {{ ref('int_flenqa_answers') }} a
left join {{ ref('int_reasoning_tokens') }} t
       on t.prompt_id = a.prompt_id and t.model = a.model and t.sample_index = 0
where a.setting in ('direct', 'cot') and a.model in (select model from thinking)
