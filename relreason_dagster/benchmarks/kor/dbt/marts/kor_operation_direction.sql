-- KOR-Bench §5 ("Single Task Analysis": models "struggle with algebraic problems involving unknowns but
-- perform better in forward symbolic computation"): Operation accuracy per model x source x setting x
-- direction (forward: compute; inverse: find an unknown, read off the question by kor/analysis.py), 95%
-- Wilson CI, the paper's judgement (robust_accuracy beside it for a run's models).  released: the
-- study's models from its released evaluation files (raw.kor_released), beside a run's.
with answers as (
    select false as released, model, source, setting, direction, correct, robust_correct
    from {{ ref('int_kor_answers') }}
    where category = 'operation'
    union all
    select true, model, 'official', setting, direction, coalesce(correct, false), null
    from {{ source('raw', 'kor_released') }}
    where category = 'operation'
),
agg as (
    select released, model, source, setting, direction,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(robust_correct) as n_robust,
           count(*) filter (where robust_correct) as n_robust_correct
    from answers
    group by released, model, source, setting, direction
)
select released, model, source, setting, direction, n, n_correct,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high,
       case when n_robust > 0 then round(n_robust_correct::double / n_robust, 4) end as robust_accuracy
from agg
order by released, model, source, setting, direction
