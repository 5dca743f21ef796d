-- One row per model and test prompt: how its draws (`relreason run --samples K`) agree.  n_draws
-- answered draws, n_correct right ones; majority_answer the most frequent readable answer (ties: the
-- one first drawn) and majority_correct whether it is right (maj@k's vote); agreement the share of
-- draws giving the majority answer (1: every draw said the same; unreadable draws never agree).
with counted as (
    select model, benchmark, task, split, setting, prompt_id, answer,
           count(*) as n_same, min(sample_index) as first_draw, bool_or(correct) as is_correct
    from {{ ref('int_draw_scores') }}
    where answer is not null
    group by all
),
majority as (
    select * from counted
    qualify row_number() over (partition by model, prompt_id order by n_same desc, first_draw) = 1
),
per_prompt as (
    select model, benchmark, task, split, setting, prompt_id,
           count(*) as n_draws,
           count(*) filter (where correct) as n_correct,
           avg(f1) as mean_f1
    from {{ ref('int_draw_scores') }}
    group by all
)
select p.model, p.benchmark, p.task, p.split, p.setting, p.prompt_id, p.n_draws, p.n_correct,
       round(p.n_correct::double / p.n_draws, 4) as accuracy,
       round(p.mean_f1, 4) as mean_f1,
       m.answer as majority_answer,
       coalesce(m.is_correct, false) as majority_correct,
       round(coalesce(m.n_same, 0)::double / p.n_draws, 4) as agreement
from per_prompt p
left join majority m using (model, prompt_id)
order by p.benchmark, p.model, p.task, p.split, p.setting, p.prompt_id
