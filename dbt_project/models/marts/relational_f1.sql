-- The relational study's metric: mean per-sample F1 per model x task x split x setting,
-- with a 95% bootstrap interval over samples, n answers and how many were unreadable (n_na).
with scores as (
    select * from {{ ref('answer_scores') }} where benchmark = 'relational'
),
agg as (
    select model, task, split, setting,
           count(*) as n,
           count(*) filter (where parse_status = 'na') as n_na,
           avg(f1) as f1,
           case when sum(tp) = 0 and sum(fp) + sum(fn) = 0 then 1.0
                else 2.0 * sum(tp) / nullif(2.0 * sum(tp) + sum(fp) + sum(fn), 0) end as f1_micro
    from scores group by model, task, split, setting
),
ci as (
    {{ bootstrap_ci('scores', ['model', 'task', 'split', 'setting'], 'f1', 'prompt_id') }}
),
errors as (
    select model, task, split, setting, count(*) as n_error
    from {{ ref('stg_parsed_answers') }}
    where benchmark = 'relational' and parse_status = 'error'
    group by model, task, split, setting
)
select agg.model, agg.task, agg.split, agg.setting, agg.n, agg.n_na, coalesce(errors.n_error, 0) as n_error,
       round(agg.f1, 4) as f1, round(ci.ci_low, 4) as ci_low, round(ci.ci_high, 4) as ci_high,
       round(agg.f1_micro, 4) as f1_micro
from agg
join ci using (model, task, split, setting)
left join errors using (model, task, split, setting)
order by agg.model, agg.task, agg.split, agg.setting
