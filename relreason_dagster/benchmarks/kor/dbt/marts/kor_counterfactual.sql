-- KOR-Bench counterfactual: how often a model answers by the story's rule (accuracy) vs by real-world
-- knowledge (real_life_rate, the answer the question's real-life key names: Table 2's parentheses), 95%
-- Wilson CIs, by the paper's judgement; robust_accuracy / robust_real_life_rate by the robust scorer.
with agg as (
    select model, source, setting,
           count(*) as n,
           count(*) filter (where correct) as n_story,
           count(*) filter (where real_life) as n_real_life,
           count(*) filter (where robust_correct) as n_robust_story,
           count(*) filter (where real_life_robust) as n_robust_real_life
    from {{ ref('int_kor_answers') }}
    where category = 'counterfactual'
    group by model, source, setting
)
select model, source, setting, n,
       round(n_story::double / n, 4) as accuracy,
       round(n_real_life::double / n, 4) as real_life_rate,
       round({{ wilson_low('n_real_life', 'n') }}, 4) as real_life_ci_low,
       round({{ wilson_high('n_real_life', 'n') }}, 4) as real_life_ci_high,
       round((n - n_story - n_real_life)::double / n, 4) as other_rate,
       round(n_robust_story::double / n, 4) as robust_accuracy,
       round(n_robust_real_life::double / n, 4) as robust_real_life_rate
from agg
order by model, source, setting
