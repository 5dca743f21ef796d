-- Does a reasoning model think longer as the input grows, and with which accuracy?  Per model x
-- setting x task x length x padding x position (length 0 / padding 'none' is the minimal text): its
-- answers, those with a trace, the mean and median reasoning tokens of the answers with a trace, and
-- the accuracy with its 95% Wilson interval.  Models without reasoning traces have no rows.
with cells as (
    select model, setting, task, length, padding, position,
           count(*) as n,
           count(*) filter (where has_trace) as n_with_trace,
           avg(reasoning_tokens) as mean_tokens,
           median(reasoning_tokens) as median_tokens,
           case when count(distinct reasoning_tokens_source) > 1 then 'mixed'
                else any_value(reasoning_tokens_source) end as reasoning_tokens_source,
           count(*) filter (where correct) as n_correct
    from {{ ref('int_flenqa_reasoning') }}
    group by model, setting, task, length, padding, position
)
select model, setting, task, length, padding, position, n, n_with_trace,
       round(mean_tokens, 2) as mean_reasoning_tokens,
       round(median_tokens, 2) as median_reasoning_tokens,
       reasoning_tokens_source, n_correct,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as accuracy_ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as accuracy_ci_high
from cells
order by model, setting, task, length, padding, position
