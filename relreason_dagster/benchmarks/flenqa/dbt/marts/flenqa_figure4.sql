-- The study's Figure 4 (all models: Figure 16): accuracy vs input length with the two key paragraphs
-- adjacent, placed first, in the middle or last, "averaged over both types of irrelevant padding"
-- (similar and different) and over the three tasks; one row per model x prompt x length x position.
-- At the paper profile each row pools 3 tasks x 100 instances x 2 paddings = 600 answers (the
-- caption says 300, the samples of one padding; the text pools both).
with agg as (
    select model, setting, length, position,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status = 'refused') as n_refused,
           count(distinct task) as n_tasks,
           round(avg(input_tokens), 1) as mean_input_tokens
    from {{ ref('int_flenqa_answers') }}
    where setting in ('direct', 'cot') and length > 0
      and position in ('first', 'middle', 'last') and padding in ('similar', 'different')
    group by model, setting, length, position
)
select model, setting, length, position, n, n_correct, n_refused, n_tasks, mean_input_tokens,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high
from agg
order by model, setting, length, position
