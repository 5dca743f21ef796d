-- Every scored draw of a sweep variant (raw.model_sweeps: `<name>@<param>=<level>` of an entry's `sweep:`),
-- with its base model, level and the level's rank, what the budget marts of every family start from
-- (macros/budget.sql, issue 55 item 2).  Draws: int_draw_scores (draw 0 and draws 1 .. K-1 of --samples
-- K, scored alike; provider errors left out).  cut: the budget stopped the reply (macros/cut.sql).
-- reasoning_tokens: int_reasoning_tokens' count where the draw has a trace (the provider's, else the
-- project's tokenizer), else the provider's count of a hidden trace, else 0 (no thinking stored);
-- answer_tokens: the completion's tokens less the reasoning ones (providers count the thinking in
-- completion_tokens), null when the provider sent no completion count.  variant: the sample's
-- coordinates, from which a family reads its own axis (an input length, say).  Other models are not here.
with draws as (
    select s.benchmark, w.base_model, w.param, w.level, w.level_rank, s.model, s.prompt_id, s.sample_id,
           s.sample_index, s.task, s.split, s.setting, s.parse_status, s.correct, s.f1,
           coalesce({{ is_cut('r.finish_reason', 'r.content', 'r.reasoning', 'r.error') }}, false) as cut,
           coalesce(t.reasoning_tokens, r.reasoning_tokens, 0) as reasoning_tokens,
           r.completion_tokens
    from {{ ref('int_draw_scores') }} s
    join {{ source('raw', 'model_sweeps') }} w on w.model = s.model
    left join {{ source('raw', 'response_draws') }} r
      on r.prompt_id = s.prompt_id and r.model = s.model and r.sample_index = s.sample_index
    left join {{ ref('int_reasoning_tokens') }} t
      on t.prompt_id = s.prompt_id and t.model = s.model and t.sample_index = s.sample_index
)
select d.benchmark, d.base_model, d.param, d.level, d.level_rank, d.model, d.prompt_id, d.sample_id,
       d.sample_index, d.task, d.split, d.setting, d.parse_status, d.correct, d.f1, d.cut,
       d.reasoning_tokens,
       greatest(d.completion_tokens - d.reasoning_tokens, 0) as answer_tokens,
       smp.variant
from draws d
join {{ ref('stg_samples') }} smp using (sample_id)
