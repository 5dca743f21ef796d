-- KOR-Bench complex task processing (§6.3, Table 3): per model x source x setting (Multi-Q, Multi-R,
-- Multi-RQ), accuracy = records with every question right (95% Wilson CI) and pass_rate = share of
-- individual questions right, by the paper's (official) judgement; robust_accuracy / robust_pass_rate
-- by the robust scorer.
with agg as (
    select model, source, mixed_setting as setting,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           sum(n_questions) as n_questions,
           sum(coalesce(n_passed, 0)) as n_passed,
           count(*) filter (where robust_correct) as n_robust_correct,
           sum(coalesce(robust_n_passed, 0)) as n_robust_passed
    from {{ ref('int_kor_answers') }}
    where category = 'mixed'
    group by model, source, mixed_setting
)
select model, source, setting, n,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high,
       n_questions,
       round(n_passed::double / nullif(n_questions, 0), 4) as pass_rate,
       round(n_robust_correct::double / n, 4) as robust_accuracy,
       round(n_robust_passed::double / nullif(n_questions, 0), 4) as robust_pass_rate
from agg
order by model, source, setting
