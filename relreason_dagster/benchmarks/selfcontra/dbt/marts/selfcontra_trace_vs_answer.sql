-- Trace against answer (beyond the study): a reasoning model whose trace reaches one referent and whose
-- answer names the other contradicts itself in a way the answer alone cannot show.  Per dataset x model
-- (every setting pooled): the trace's referent is its last explicit referent statement (the family's
-- own parser, parsing.trace_referent), the answer's the scored one; rate = contradicting responses /
-- responses with a trace, with a 95% Wilson interval.  A trace that states no referent, or an answer
-- that is N/A, contradicts nothing here (counted in n_with_trace, not in n_both).
with agg as (
    select dataset, model,
           count(*) as n,
           count(*) filter (where has_trace) as n_with_trace,
           count(*) filter (where has_trace and trace_index is not null) as n_trace_referent,
           count(*) filter (where has_trace and answer_index is not null) as n_answer_referent,
           count(*) filter (where trace_index is not null and answer_index is not null) as n_both,
           count(*) filter (where trace_index = answer_index) as n_agree,
           count(*) filter (where trace_index <> answer_index) as n_contradicting,
           count(*) filter (where trace_index <> answer_index and trace_correct) as n_trace_right_answer_wrong,
           count(*) filter (where trace_index <> answer_index and correct) as n_trace_wrong_answer_right
    from {{ ref('stg_selfcontra_trace_readings') }}
    group by dataset, model
)
select dataset, model, n, n_with_trace, n_trace_referent, n_answer_referent, n_both, n_agree,
       n_contradicting, n_trace_right_answer_wrong, n_trace_wrong_answer_right,
       round(n_contradicting::double / nullif(n_with_trace, 0), 4) as rate,
       round({{ wilson_low('n_contradicting', 'n_with_trace') }}, 4) as ci_low,
       round({{ wilson_high('n_contradicting', 'n_with_trace') }}, 4) as ci_high
from agg
order by dataset, model
