-- FLenQA beside the study: accuracy on the minimal text (key paragraphs only: length 0, padding and
-- position 'none') per task x prompt, one long row per model: ours (marts.flenqa_accuracy, source
-- 'relreason', 95% Wilson interval, n answers) and the study's Appendix C Table 1 (marts.study_reference;
-- published = true, no interval, no n).  The study prints no numbers for the padded lengths (its
-- Figures only), so this is the one grid where the two meet.
-- The study's rows appear only where we have a row on the same keys: the table compares, it does not
-- reprint the paper (published.csv and marts.study_reference hold it whole).
with ours as (
    select task, setting, length, padding, position, model,
           false as published, 'relreason' as source, 'accuracy' as metric, accuracy as value,
           ci_low, ci_high, n::bigint as n,
           case when n_refused > 0 then format('{} of {} answers refused (counted wrong)', n_refused, n) end
               as note
    from {{ ref('flenqa_accuracy') }}
    where length = 0 and padding = 'none' and position = 'none'
),
published as (
    select task, setting, length, padding, position, model,
           true as published, source, lower(metric) as metric, value,
           null::double as ci_low, null::double as ci_high, null::bigint as n, note
    from {{ ref('study_reference') }}
    where family = 'flenqa' and lower(metric) = 'accuracy'
)
select * from ours
union all
select * from published p
where exists (
    select 1 from ours o
    where o.task = p.task and o.setting = p.setting and o.length = p.length
      and o.padding = p.padding and o.position = p.position
)
order by task, setting, published, model
