-- KOR-Bench §6.4 / App. K ("only questions") with App. A's knowledge impact: per model x source x shots
-- (zero_shot | three_shot) x category (and 'overall' over the five categories), accuracy on the same
-- questions with the rule given (the setting itself) and withheld (<setting>_only_questions), paired
-- over the questions the model answered in both.  accuracy_without_rule approximates App. A's
-- P(Q -> A | K) (prior knowledge, plus three solved examples when three-shot), accuracy_with_rule its
-- P(Q -> A | R, K); difference = with - without, the rule's contribution ("rule centrality" says it is
-- large).  accuracy_* by the paper's judgement (95% Wilson CI on the rule-withheld one), robust_* by
-- the robust scorer; real_life_* the counterfactual answers that match the real-world key (null for
-- other categories).
with pairs as (
    select w.model, w.source, w.setting as shots, w.category, w.sample_id,
           w.correct as with_rule, o.correct as without_rule,
           w.robust_correct as robust_with_rule, o.robust_correct as robust_without_rule,
           w.real_life as real_life_with_rule, o.real_life as real_life_without_rule
    from {{ ref('int_kor_answers') }} w
    join {{ ref('int_kor_answers') }} o
      on o.model = w.model and o.sample_id = w.sample_id and o.setting = w.setting || '_only_questions'
    where w.setting in ('zero_shot', 'three_shot') and w.category not in ('mixed', 'cipher_step')
),
agg as (
    select model, source, shots, coalesce(category, 'overall') as category,
           count(*) as n,
           count(*) filter (where with_rule) as n_with,
           count(*) filter (where without_rule) as n_without,
           count(*) filter (where robust_with_rule) as n_robust_with,
           count(*) filter (where robust_without_rule) as n_robust_without,
           count(real_life_with_rule) as n_real_life_known,
           count(*) filter (where real_life_with_rule) as n_real_life_with,
           count(*) filter (where real_life_without_rule) as n_real_life_without
    from pairs
    group by grouping sets ((model, source, shots, category), (model, source, shots))
)
select model, source, shots, category, n,
       round(n_with::double / n, 4) as accuracy_with_rule,
       round(n_without::double / n, 4) as accuracy_without_rule,
       round({{ wilson_low('n_without', 'n') }}, 4) as without_ci_low,
       round({{ wilson_high('n_without', 'n') }}, 4) as without_ci_high,
       round((n_with - n_without)::double / n, 4) as difference,
       round(n_robust_with::double / n, 4) as robust_accuracy_with_rule,
       round(n_robust_without::double / n, 4) as robust_accuracy_without_rule,
       case when category = 'counterfactual' and n_real_life_known > 0
            then round(n_real_life_with::double / n, 4) end as real_life_with_rule,
       case when category = 'counterfactual' and n_real_life_known > 0
            then round(n_real_life_without::double / n, 4) end as real_life_without_rule
from agg
order by model, source, shots, category
