-- The study's Figure 5: accuracy vs input length per kind of irrelevant padding, similar (key
-- paragraphs of other instances of the task) vs different (unrelated prose; the study's Books
-- Corpus), with the key paragraphs at random places (§4.2: "only the non-adjacent case"), averaged
-- over the three tasks; one row per model x prompt x length x padding.  At the paper profile each row
-- pools 3 tasks x 100 instances = 300 answers (the caption's "300 samples").
with agg as (
    select model, setting, length, padding,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status = 'refused') as n_refused,
           count(distinct task) as n_tasks,
           round(avg(input_tokens), 1) as mean_input_tokens
    from {{ ref('int_flenqa_answers') }}
    where setting in ('direct', 'cot') and length > 0
      and position = 'random' and padding in ('similar', 'different')
    group by model, setting, length, padding
)
select model, setting, length, padding, n, n_correct, n_refused, n_tasks, mean_input_tokens,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high
from agg
order by model, setting, length, padding
