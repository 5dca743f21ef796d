-- App. C, Table 12: POV reasoning (Table 13's three turns) per asking model x dataset x split x judged
-- model x reasoning (good: the annotated right-answer response was RR with no finer-grained category;
-- bad: the rest) x order (correct_first: the first point of view is the right candidate's;
-- incorrect_first; all: both).  accuracy is the share of final turns that settle on the right candidate,
-- over the conversations whose final turn names one (n); n_unparsed names none, n_unanswered never got a
-- final reply.  Table 12's type error rates need labels of the final replies, which the study made by
-- hand and did not release: not computed here.
with chains as (
    select model, dataset, split, judged_model, reasoning, pov_order, status, correct
    from {{ source('raw', 'selfcontra_pov') }}
    where kind = 'reasoning'
),
both_orders as (
    select * from chains
    union all
    select model, dataset, split, judged_model, reasoning, 'all' as pov_order, status, correct from chains
),
agg as (
    select model, dataset, split, judged_model, reasoning, pov_order,
           count(*) filter (where status = 'ok') as n,
           count(*) filter (where status = 'ok' and correct) as n_correct,
           count(*) filter (where status = 'unparsed') as n_unparsed,
           count(*) filter (where status not in ('ok', 'unparsed')) as n_unanswered
    from both_orders
    group by model, dataset, split, judged_model, reasoning, pov_order
)
select model, dataset, split, judged_model, reasoning, pov_order, n, n_correct,
       round(n_correct::double / nullif(n, 0), 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as accuracy_ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as accuracy_ci_high,
       n_unparsed, n_unanswered
from agg
order by model, dataset, split nulls first, judged_model, reasoning, pov_order
