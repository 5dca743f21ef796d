-- Appendix B (Figures 10-12): mean length in tokens of the padded texts per task x padding x target
-- length, ours beside the study's.  Ours are the samples a run built (one row per item source:
-- generated, or released = rows of the study's dataset), their text counted in the profile's
-- tokenizer (samples.input.estimated_tokens; the tokenizer is named per row).  The study's values
-- (its Books padding is our 'different', its Same our 'similar') come from marts.study_reference;
-- they are not comparable (the text does not name its tokenizer: study_reference says so), and so
-- neither is ours beside them.  Minimal texts (length 0) are not in the figures.
with samples as (
    select task,
           json_extract_string(variant, '$.padding') as padding,
           coalesce(json_extract(variant, '$.length')::integer, 0) as length,
           coalesce(json_extract_string(variant, '$.source'), 'generated') as item_source,
           json_extract_string(variant, '$.tokenizer') as tokenizer,
           json_extract(input, '$.estimated_tokens')::double as tokens
    from {{ ref('stg_samples') }}
    where benchmark = 'flenqa' and split = 'test'
),
ours as (
    select task, padding, length, item_source, tokenizer, count(*) as n, round(avg(tokens), 2) as mean_tokens
    from samples
    where length > 0
    group by all
),
published as (
    select task, padding, length, source, value, note, coalesce(comparable, true) as comparable, why_not
    from {{ ref('study_reference') }}
    where family = 'flenqa' and lower(metric) = 'mean_tokens'
)
select o.task, o.padding, o.length, false as published, 'relreason' as source, o.item_source, o.tokenizer,
       o.n::bigint as n, o.mean_tokens,
       'text tokens in the profile''s tokenizer (samples.input.estimated_tokens)' as note,
       coalesce(p.comparable, false) and o.item_source = 'released' as comparable,
       case
           when p.comparable is null then 'the study printed no mean for this task, padding and length'
           when not p.comparable then p.why_not
           when o.item_source <> 'released' then 'generated items, not the study''s released dataset'
       end as why_not
from ours o
left join published p using (task, padding, length)
union all
select task, padding, length, true, source, null, null, null, value, note, comparable, why_not
from published
order by task, padding, length, published
