-- KOR-Bench self-correction curve (§6.2, Figure 5): accuracy after each round per model x source x
-- category (and 'overall').  Round 0 is the zero-shot answer; a question stays correct once corrected.
-- n_corrected: questions first right in this round; correction_rate: n_corrected over the questions
-- still wrong before it (Figures 11-12).  "Right" is the paper's judgement, which also decides whether a
-- question is re-asked; robust_accuracy: the share right by the robust scorer at or before the round.
with items as (
    select model, source, category, sample_id,
           min(case when correct then round end) as first_correct,
           min(case when robust_correct then round end) as first_robust_correct
    from {{ ref('stg_kor_rounds') }}
    group by model, source, category, sample_id
),
rounds as (
    select distinct model, round from {{ ref('stg_kor_rounds') }}
),
agg as (
    select i.model, i.source, coalesce(i.category, 'overall') as category, k.round,
           count(*) as n,
           count(*) filter (where i.first_correct <= k.round) as n_correct,
           count(*) filter (where i.first_correct = k.round) as n_corrected,
           count(*) filter (where i.first_correct is null or i.first_correct >= k.round) as n_open,
           count(*) filter (where i.first_robust_correct <= k.round) as n_robust_correct
    from items i
    join rounds k using (model)
    group by grouping sets ((i.model, i.source, i.category, k.round), (i.model, i.source, k.round))
)
select model, source, category, round, n, n_correct,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high,
       n_corrected,
       case when round > 0 and n_open > 0 then round(n_corrected::double / n_open, 4) end as correction_rate,
       round(n_robust_correct::double / n, 4) as robust_accuracy
from agg
order by model, source, category, round
