-- Repeated sampling per cell (benchmark, model, task, split, setting): pass@1 (accuracy averaged over
-- each prompt's draws, then over prompts), the unbiased pass@k of Chen et al. (2021) with k the fewest
-- answered draws of any prompt in the cell, maj@k (the majority answer right) and the mean agreement of
-- the draws.  Every interval is clustered by prompt: the K draws of one prompt are one unit
-- (macros/sampling.sql); naive_ci_* is the Wilson interval that treats every draw as independent,
-- shown so the difference is visible.  With one draw per prompt, k = 1 and pass@1 = pass@k = maj@k =
-- the accuracy mart's accuracy.
with prompts as (
    select *, min(n_draws) over (partition by benchmark, model, task, split, setting) as k
    from {{ ref('draw_agreement') }}
),
scored as (
    select *, n_correct::double / n_draws as p1,
           {{ pass_at_k('n_draws', 'n_correct', 'k') }} as pk,
           majority_correct::int::double as maj
    from prompts
)
select benchmark, model, task, split, setting,
       count(*) as n_prompts,
       sum(n_draws)::bigint as n_draws,
       min(k) as k,
       round(avg(p1), 4) as pass_at_1,
       round({{ cluster_low('p1') }}, 4) as ci_low,
       round({{ cluster_high('p1') }}, 4) as ci_high,
       round({{ wilson_low('sum(n_correct)', 'sum(n_draws)') }}, 4) as naive_ci_low,
       round({{ wilson_high('sum(n_correct)', 'sum(n_draws)') }}, 4) as naive_ci_high,
       round(avg(pk), 4) as pass_at_k,
       round({{ cluster_low('pk') }}, 4) as pass_at_k_ci_low,
       round({{ cluster_high('pk') }}, 4) as pass_at_k_ci_high,
       round(avg(maj), 4) as maj_at_k,
       round({{ cluster_low('maj') }}, 4) as maj_at_k_ci_low,
       round({{ cluster_high('maj') }}, 4) as maj_at_k_ci_high,
       round(avg(agreement), 4) as agreement
from scored
group by benchmark, model, task, split, setting
order by benchmark, model, task, split, setting
