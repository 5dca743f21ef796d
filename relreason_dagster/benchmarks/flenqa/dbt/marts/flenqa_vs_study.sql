-- FLenQA beside the study: accuracy on the minimal text (key paragraphs only: length 0, padding and
-- position 'none') per task x prompt, one long row per model: ours (marts.flenqa_accuracy, source
-- 'relreason', 95% Wilson interval, n answers) and the study's Appendix C Table 1 (marts.study_reference;
-- published = true, no interval, no n).  The study prints no numbers for the padded lengths (its
-- Figures only), so this is the one grid where the two meet.
-- The study's rows appear only where we have a row on the same keys: the table compares, it does not
-- reprint the paper (published.csv and marts.study_reference hold it whole).
-- Like with like (comparable / why_not): a published row carries its study_reference marking.  Ours is
-- comparable only when every answer of the cell is on the study's own minimal text (item_source
-- 'released': its released rows' key paragraphs, released_keys.py) read by the study's rules (reading
-- 'study': its analysis notebook's), the
-- cell holds the study's 100 base instances per task (Appendix B), and the published cell on the same
-- keys is comparable.
with counts as (
    select task, setting, length, padding, position, model,
           count(*) filter (where item_source = 'released') as n_released,
           count(*) filter (where reading = 'study') as n_study_reading
    from {{ ref('int_flenqa_answers') }}
    group by all
),
ours as (
    select a.task, a.setting, a.length, a.padding, a.position, a.model,
           false as published, 'relreason' as source, 'accuracy' as metric, a.accuracy as value,
           a.ci_low, a.ci_high, a.n::bigint as n,
           case when a.n_refused > 0 then format('{} of {} answers refused (counted wrong)', a.n_refused, a.n) end
               as note,
           coalesce(c.n_released, 0) as n_released,
           coalesce(c.n_study_reading, 0) as n_study_reading
    from {{ ref('flenqa_accuracy') }} a
    left join counts c using (task, setting, length, padding, position, model)
    where a.length = 0 and a.padding = 'none' and a.position = 'none'
),
published as (
    select task, setting, length, padding, position, model,
           true as published, source, lower(metric) as metric, value,
           null::double as ci_low, null::double as ci_high, null::bigint as n, note,
           coalesce(comparable, true) as comparable, why_not
    from {{ ref('study_reference') }}
    where family = 'flenqa' and lower(metric) = 'accuracy' and source = 'Appendix C Table 1'
),
published_cells as (
    select task, setting, length, padding, position,
           bool_or(comparable) as comparable, min(why_not) as why_not
    from published
    group by all
)
select o.task, o.setting, o.length, o.padding, o.position, o.model, o.published, o.source, o.metric,
       o.value, o.ci_low, o.ci_high, o.n, o.note,
       coalesce(p.comparable, false) and o.n_released = o.n and o.n_study_reading = o.n and o.n = 100
           as comparable,
       case
           when o.n_released < o.n then 'generated items, not the study''s released dataset'
           when o.n_study_reading < o.n then 'read by relreason''s rules (reading: relreason), not the study''s notebook''s'
           when o.n <> 100 then format('{} answers where the study pools 100 per task', o.n)
           when p.comparable is null then 'the study printed no cell for this task and prompt'
           when not p.comparable then p.why_not
       end as why_not
from ours o
left join published_cells p using (task, setting, length, padding, position)
union all
select task, setting, length, padding, position, model, published, source, metric, value, ci_low, ci_high,
       n, note, comparable, why_not
from published p
where exists (
    select 1 from ours o
    where o.task = p.task and o.setting = p.setting and o.length = p.length
      and o.padding = p.padding and o.position = p.position
)
order by task, setting, published, model
