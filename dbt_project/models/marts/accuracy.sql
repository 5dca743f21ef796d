-- Generic accuracy for every family: share of answers exactly right (correct = parsed answer equals gold),
-- with a 95% Wilson interval.  Unreadable (na) and refused answers count as wrong and are reported in n_na;
-- n_cut counts the answers the token or thinking budget stopped (macros/cut.sql), scored as parsed.
with agg as (
    select benchmark, model, task, split, setting,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status <> 'ok') as n_na,
           count(*) filter (where cut) as n_cut
    from {{ ref('answer_scores') }}
    group by benchmark, model, task, split, setting
)
select benchmark, model, task, split, setting, n, n_correct, n_na, n_cut,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high
from agg
order by benchmark, model, task, split, setting
