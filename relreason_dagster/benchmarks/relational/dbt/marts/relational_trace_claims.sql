-- The symbolic check of relational chain-of-thought claims, counted per text read (beyond the study):
-- per model x task x split x source ('answer' or 'trace'), the claims extracted and decided, and the
-- derived facts (claims that restate no base fact of the prompt) that are false against the sample's
-- knowledge base or that its base facts cannot decide (unsupported), as counts and as means per
-- response read.  For a reasoning model the trace rows show what its thinking derived; a response
-- without a trace is a trace row with nothing found (n_empty counts them), never its answer.
select model, task, split, source,
       count(*) as n,
       count(*) filter (where n_steps = 0) as n_empty,
       sum(n_claims) as n_claims,
       sum(n_checked) as n_checked,
       sum(n_derived) as n_derived,
       sum(n_unsupported_derived) as n_unsupported_derived,
       sum(n_false_derived) as n_false_derived,
       count(*) filter (where n_false_derived > 0) as n_with_false_derived,
       round(avg(n_claims), 4) as claims_per_response,
       round(avg(n_checked), 4) as checked_per_response,
       round(avg(n_unsupported_derived), 4) as unsupported_derived_per_response,
       round(avg(n_false_derived), 4) as false_derived_per_response
from {{ ref('stg_symbolic_checks') }}
group by model, task, split, source
order by model, task, split, source
