-- KOR-Bench complex task processing (§6.3, Table 3): per model x source x setting (Multi-Q, Multi-R,
-- Multi-RQ), accuracy = records with every question right (95% Wilson CI) and pass_rate = the mean over
-- records of each record's share of questions right, by the paper's (official) judgement: the official
-- eval/eval.py averages the records' pass rates, and so does Table 3 (a record whose reply holds no JSON
-- counts 0).  pooled_pass_rate (questions right / questions) is kept beside it: it weights a 10-question
-- record ten times and is not Table 3's reading.  robust_* by the robust scorer, the same two ways.
with agg as (
    select model, source, mixed_setting as setting,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           sum(n_questions) as n_questions,
           sum(coalesce(n_passed, 0)) as n_passed,
           avg(coalesce(n_passed, 0)::double / nullif(n_questions, 0)) as record_pass_rate,
           count(*) filter (where robust_correct) as n_robust_correct,
           sum(coalesce(robust_n_passed, 0)) as n_robust_passed,
           avg(coalesce(robust_n_passed, 0)::double / nullif(n_questions, 0)) as robust_record_pass_rate
    from {{ ref('int_kor_answers') }}
    where category = 'mixed'
    group by model, source, mixed_setting
)
select model, source, setting, n,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high,
       n_questions,
       round(record_pass_rate, 4) as pass_rate,
       round(n_passed::double / nullif(n_questions, 0), 4) as pooled_pass_rate,
       round(n_robust_correct::double / n, 4) as robust_accuracy,
       round(robust_record_pass_rate, 4) as robust_pass_rate,
       round(n_robust_passed::double / nullif(n_questions, 0), 4) as robust_pooled_pass_rate
from agg
order by model, source, setting
