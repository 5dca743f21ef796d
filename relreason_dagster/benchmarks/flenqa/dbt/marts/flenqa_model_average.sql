-- §1's headline beside ours: accuracy averaged over models per prompt x length ("on average over all
-- tested models, a drop in accuracy from 0.92 to 0.68" at 3,000 tokens).  The text does not say which
-- texts that average pools; ours reads each model's point of Figure 1 (marts.flenqa_figure1: random
-- dispersion, similar and different padding, 600 per point under `paper`), the study's headline
-- figure, and averages the models that have it (every model weighs the same, as "on average over
-- models" says).  The study's two numbers come from marts.study_reference (source '§1', model
-- 'average over models'; 0.92 has no length in the text).  Like with like: the published rows are not
-- comparable (study_reference says why), so neither is ours beside them.
with ours as (
    select setting, length, count(*) as n_models, round(avg(accuracy), 4) as value,
           min(n)::bigint as n_per_model_min, max(n)::bigint as n_per_model_max
    from {{ ref('flenqa_figure1') }}
    group by setting, length
),
published as (
    select setting, length, model, value, note, coalesce(comparable, true) as comparable, why_not
    from {{ ref('study_reference') }}
    where family = 'flenqa' and source = '§1' and lower(metric) = 'accuracy'
),
published_any as (
    select bool_and(comparable) as comparable, min(why_not) as why_not from published
)
select o.setting, o.length, 'average over models' as model, false as published, 'relreason' as source,
       o.value, o.n_models, o.n_per_model_min, o.n_per_model_max,
       'mean of the models'' Figure 1 accuracies (marts.flenqa_figure1)' as note,
       coalesce(p.comparable, false) as comparable,
       case
           when p.comparable is null then 'the study printed no average over models'
           when not p.comparable then p.why_not
       end as why_not
from ours o
cross join published_any p
union all
select setting, length, model, true, '§1', value, null, null, null, note, comparable, why_not
from published
order by published, setting, length
