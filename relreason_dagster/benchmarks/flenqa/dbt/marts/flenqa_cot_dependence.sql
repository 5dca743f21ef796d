-- §7's two tests: "incorrect responses are statistically dependent on the occurrence of answers
-- before the reasoning steps" (Figure 8) and "... on the incomplete coverage of the facts" (Figure
-- 9).  CoT answers only, per model x length (every task, padding and position at that length pooled;
-- length 0 is the minimal text), one row per factor:
--   factor 'answer_first': exposed = the true/false answer comes before the reasoning;
--   factor 'incomplete_coverage': exposed = fewer than both key sentences reproduced (Appendix D.4).
-- The 2x2 table is exposed/not x incorrect/correct (a refusal is incorrect).  p_value is Fisher's
-- exact test, two-sided (the study names no test; Fisher's is exact at any count): the sum of the
-- hypergeometric probabilities of every table with the same margins that is no more likely than the
-- one observed (relative tolerance 1e-7, as scipy.stats.fisher_exact).  NULL when a margin is zero:
-- with no exposed (or no incorrect) answer there is nothing to test.  source: the text the factor is
-- read from, 'answer' (the study's) or the reasoning 'trace'; wrong is always the answer's.  reading: the
-- rules that read the answers ('study' = the study's analysis notebook, 'relreason'; profile knob reading).
with answers as (
    select model, source, reading, length, not coalesce(correct, false) as wrong, 'answer_first' as factor,
           coalesce(answer_first, false) as exposed
    from {{ ref('int_flenqa_cot_reads') }}
    union all
    select model, source, reading, length, not coalesce(correct, false) as wrong, 'incomplete_coverage' as factor,
           coalesce(keys_covered, 0) < 2 as exposed
    from {{ ref('int_flenqa_cot_reads') }}
),
tables as (
    select model, source, reading, length, factor,
           count(*) as n,
           count(*) filter (where exposed) as n_exposed,
           count(*) filter (where exposed and wrong) as n_exposed_wrong,
           count(*) filter (where not exposed) as n_unexposed,
           count(*) filter (where not exposed and wrong) as n_unexposed_wrong,
           count(*) filter (where wrong) as n_wrong
    from answers
    group by model, source, reading, length, factor
),
-- log-probability of the table whose exposed-and-wrong cell is k, margins fixed
-- (r1 = n_exposed, c1 = n_wrong): C(r1, k) C(n - r1, c1 - k) / C(n, c1).
support as (
    select t.*, k,
           lgamma(n_exposed + 1) + lgamma(n - n_exposed + 1) + lgamma(n_wrong + 1) + lgamma(n - n_wrong + 1)
           - lgamma(n + 1) - lgamma(k + 1) - lgamma(n_exposed - k + 1) - lgamma(n_wrong - k + 1)
           - lgamma(n - n_exposed - n_wrong + k + 1) as log_p
    from tables t,
         lateral range(greatest(0, t.n_exposed + t.n_wrong - t.n), least(t.n_exposed, t.n_wrong) + 1) r(k)
),
observed as (
    select *, max(case when k = n_exposed_wrong then log_p end)
                  over (partition by model, source, reading, length, factor) as log_p_observed
    from support
),
fisher as (
    select model, source, reading, length, factor,
           sum(exp(log_p)) filter (where log_p <= log_p_observed + 1e-7) as p
    from observed
    group by model, source, reading, length, factor
)
select t.model, t.source, t.reading, t.length, t.factor, t.n, t.n_exposed, t.n_exposed_wrong, t.n_unexposed, t.n_unexposed_wrong,
       round(t.n_exposed_wrong::double / nullif(t.n_exposed, 0), 4) as wrong_rate_exposed,
       round(t.n_unexposed_wrong::double / nullif(t.n_unexposed, 0), 4) as wrong_rate_unexposed,
       'fisher_exact' as test,
       case when t.n_exposed in (0, t.n) or t.n_wrong in (0, t.n) then null
            else least(1.0, f.p) end as p_value
from tables t
join fisher f using (model, source, reading, length, factor)
order by t.model, t.source, t.reading, t.length, t.factor
