-- The study's Figure 1: accuracy vs input length, key paragraphs placed at random (not adjacent:
-- padding before, between and after them) inside irrelevant padding, the similar and the different
-- padding pooled, averaged over the three tasks; one row per model x prompt (direct, cot) x length.
-- At the paper profile each row pools 3 tasks x 100 instances x 2 paddings = 600 answers (the
-- caption's "600 samples").  Refusals count as wrong; 95% Wilson interval.  The minimal text (length
-- 0) is not a point of the figure (marts.flenqa_accuracy has it).
with agg as (
    select model, setting, length, 'random' as position,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status = 'refused') as n_refused,
           count(distinct task) as n_tasks,
           round(avg(input_tokens), 1) as mean_input_tokens
    from {{ ref('int_flenqa_answers') }}
    where setting in ('direct', 'cot') and length > 0
      and position = 'random' and padding in ('similar', 'different')
    group by model, setting, length
)
select model, setting, length, position, n, n_correct, n_refused, n_tasks, mean_input_tokens,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high
from agg
order by model, setting, length
