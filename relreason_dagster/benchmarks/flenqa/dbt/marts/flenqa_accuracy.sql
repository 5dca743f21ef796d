-- FLenQA accuracy per model x task x prompt x length x padding x position, 95% Wilson CI.
-- A refusal (neither "true" nor "false") counts as wrong and is counted in n_refused; n_cut counts the
-- answers the token or thinking budget stopped (macros/cut.sql), scored as parsed (a refusal or an answer).
-- length 0 with padding 'none' is the minimal-text baseline (key paragraphs only).
with agg as (
    select model, task, setting, length, padding, position,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status = 'refused') as n_refused,
           count(*) filter (where cut) as n_cut,
           round(avg(input_tokens), 1) as mean_input_tokens
    from {{ ref('int_flenqa_answers') }}
    where setting in ('direct', 'cot')
    group by model, task, setting, length, padding, position
)
select model, task, setting, length, padding, position, n, n_correct, n_refused, n_cut, mean_input_tokens,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high
from agg
order by model, task, setting, length, padding, position
