-- KOR-Bench §6.1 stepwise prompting of the cipher bottlenecks (Figure 4, Table 13): each official cipher
-- sub-step asked as its own question; per model x source x sub-step type (and 'overall'), the accuracy
-- (paper's judgement, 95% Wilson CI) and the error rate = 1 - accuracy (Figure 4b), robust_accuracy beside.
with steps as (
    select * from {{ ref('int_kor_answers') }} where category = 'cipher_step'
),
agg as (
    select model, source, coalesce(step_type, 'overall') as step_type,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where robust_correct) as n_robust_correct
    from steps
    group by grouping sets ((model, source, step_type), (model, source))
)
select model, source, step_type, n, n_correct,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high,
       round(1 - n_correct::double / n, 4) as error_rate,
       round(n_robust_correct::double / n, 4) as robust_accuracy
from agg
order by model, source, step_type
