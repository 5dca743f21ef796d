-- The study's Figure 3: accuracy vs input length when the padding is the key paragraphs themselves
-- ("duplicate": the two key paragraphs again and again, alternately), averaged over the three tasks;
-- one row per model x prompt x length.  The study builds one duplicate text per instance and length
-- (§3.3.1: the copies alternate from the start), which is our position 'first' (k1 k2 k1 k2 ...);
-- the other positions of duplicate padding break the alternation and are not pooled here.  At the
-- paper profile each row pools 3 tasks x 100 instances = 300 answers (the caption's "300 samples").
with agg as (
    select model, setting, length, 'duplicate' as padding,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status = 'refused') as n_refused,
           count(distinct task) as n_tasks,
           round(avg(input_tokens), 1) as mean_input_tokens
    from {{ ref('int_flenqa_answers') }}
    where setting in ('direct', 'cot') and length > 0
      and padding = 'duplicate' and position = 'first'
    group by model, setting, length
)
select model, setting, length, padding, n, n_correct, n_refused, n_tasks, mean_input_tokens,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high
from agg
order by model, setting, length
