-- Symbolic Self-Contra of relational chain-of-thought responses (beyond the study): every stated fact
-- checked against the sample's knowledge base.  symbolic_scr = (type1 + type2 + type3) / n_checked,
-- where n_checked counts responses with at least one checkable fact and a readable answer (or a
-- contradiction); unchecked responses are reported apart.  Per model x task x split x source (the text
-- checked: 'answer', or 'trace' for a reasoning model's trace; the knob reasoning_source).
with agg as (
    select model, task, split, source,
           count(*) as n,
           count(*) filter (where category <> 'unchecked') as n_checked,
           count(*) filter (where category = 'type1') as n_type1,
           count(*) filter (where category = 'type2') as n_type2,
           count(*) filter (where category = 'type3') as n_type3,
           count(*) filter (where category = 'RR') as n_rr,
           count(*) filter (where category = 'WW') as n_ww,
           count(*) filter (where category = 'unchecked') as n_unchecked,
           sum(n_claims) as n_claims,
           sum(n_false) as n_false_claims
    from {{ ref('stg_symbolic_checks') }}
    group by model, task, split, source
)
select model, task, split, source, n, n_checked,
       round((n_type1 + n_type2 + n_type3)::double / nullif(n_checked, 0), 4) as symbolic_scr,
       round({{ wilson_low('(n_type1 + n_type2 + n_type3)', 'n_checked') }}, 4) as ci_low,
       round({{ wilson_high('(n_type1 + n_type2 + n_type3)', 'n_checked') }}, 4) as ci_high,
       n_type1, n_type2, n_type3, n_rr, n_ww, n_unchecked, n_claims, n_false_claims
from agg
order by model, task, split, source
