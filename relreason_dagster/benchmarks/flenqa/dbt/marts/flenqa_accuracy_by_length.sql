-- The study's Figure 1: accuracy vs input length per model x task x prompt, over every padding and
-- position (length 0 = the minimal text), 95% Wilson CI; n_cut: answers the token or thinking budget
-- stopped (macros/cut.sql), scored as parsed.
with agg as (
    select model, task, setting, length,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where cut) as n_cut,
           round(avg(input_tokens), 1) as mean_input_tokens
    from {{ ref('int_flenqa_answers') }}
    where setting in ('direct', 'cot')
    group by model, task, setting, length
)
select model, task, setting, length, n, n_correct, n_cut, mean_input_tokens,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high
from agg
order by model, task, setting, length
