-- KOR-Bench §5 / App. E (Figures 6 and 7): "as overall model accuracy increases, the ratio of real-life
-- answers decreases".  One row per model x source x setting with its overall accuracy, its counterfactual
-- accuracy and how often its counterfactual answer is the real-world one (the question's real-life key;
-- Table 2's parentheses), 95% Wilson CI, from three origins: relreason (a run's models, the official or
-- generated questions, the paper's judgement), released (the study's models recomputed from its released
-- evaluation files, raw.kor_released, judged as Table 2), and Table 2 (the printed cells of every model of
-- the study, marts.study_reference).  Only the study's protocols are here: zero_shot (chat models) and
-- three_shot (base models).  pearson_r: the correlation of real_life_rate with accuracy over the rows of
-- the same origin x source x setting (null below three models): negative is §5's relation.
with ours as (
    select 'relreason' as origin, c.model, c.source, c.setting, c.n, a.n as n_overall, a.accuracy,
           c.accuracy as counterfactual_accuracy, c.real_life_rate, c.real_life_ci_low, c.real_life_ci_high
    from {{ ref('kor_counterfactual') }} c
    left join {{ ref('kor_accuracy') }} a
        on a.model = c.model and a.source = c.source and a.setting = c.setting and a.category = 'overall'
    where c.setting in ('zero_shot', 'three_shot')
),
released_counts as (
    select model, setting,
           count(*) as n_overall,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where category = 'counterfactual') as n,
           count(*) filter (where category = 'counterfactual' and correct) as n_story,
           count(*) filter (where category = 'counterfactual' and real_life) as n_real_life
    from {{ source('raw', 'kor_released') }}
    where setting in ('zero_shot', 'three_shot')
    group by model, setting
    having count(*) filter (where category = 'counterfactual') > 0
),
released as (
    select 'released' as origin, model, 'official' as source, setting, n, n_overall,
           round(n_correct::double / n_overall, 4) as accuracy,
           round(n_story::double / n, 4) as counterfactual_accuracy,
           round(n_real_life::double / n, 4) as real_life_rate,
           round({{ wilson_low('n_real_life', 'n') }}, 4) as real_life_ci_low,
           round({{ wilson_high('n_real_life', 'n') }}, 4) as real_life_ci_high
    from released_counts
),
printed as (
    select 'Table 2' as origin, model, split as source, setting, null::bigint as n, null::bigint as n_overall,
           max(value) filter (where category = 'overall' and metric = 'accuracy') as accuracy,
           max(value) filter (where category = 'counterfactual' and metric = 'accuracy') as counterfactual_accuracy,
           max(value) filter (where category = 'counterfactual' and metric = 'real_life_ratio') as real_life_rate,
           null::double as real_life_ci_low, null::double as real_life_ci_high
    from {{ ref('study_reference') }}
    where family = 'kor' and source = 'Table 2' and setting in ('zero_shot', 'three_shot')
    group by model, split, setting
),
together as (
    select * from ours
    union all
    select * from released
    union all
    select * from printed
)
select origin, model, source, setting, n, n_overall, accuracy, counterfactual_accuracy, real_life_rate,
       real_life_ci_low, real_life_ci_high,
       case when count(real_life_rate + accuracy) over w >= 3
            then round(corr(real_life_rate, accuracy) over w, 4) end as pearson_r
from together
window w as (partition by origin, source, setting)
order by origin, source, setting, accuracy desc, model
