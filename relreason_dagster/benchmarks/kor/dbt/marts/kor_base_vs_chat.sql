-- KOR-Bench §5: a base model beside its chat model, per category (and overall): the base model's
-- three-shot accuracy, the chat model's zero-shot accuracy (Table 2's protocol for each kind) and the
-- change from chat to base (base - chat; §5 finds it smallest for Logic).  Ours pair the models that
-- models.yaml pairs (a base model's base_of names its chat model: raw.kor_model_pairs); the study's
-- pairs are Table 2's base models and their chat releases, matched by name (X and X-Instruct, -It,
-- -Chat, -Instruct-v0.1; OLMo-7B-0724-hf and OLMo-7B-0724-Instruct-hf).  Mistral-7B-v0.1 has no pair:
-- Table 2's chat Mistral is v0.3, another release.  Official questions only, paper judgement.
-- Like with like: a pair of ours is comparable when both of its accuracies stand on the study's whole
-- pool (250 questions per category, 1,250 overall) and the study's cells of that category are.
with study_pool(category, pool) as (
    select unnest(['operation', 'logic', 'cipher', 'puzzle', 'counterfactual', 'overall']),
           unnest([250, 250, 250, 250, 250, 1250])
),
ours_pairs as (
    select model as base_model, base_of as chat_model
    from {{ source('raw', 'kor_model_pairs') }}
    where base_of is not null
),
acc as (
    select model, setting, category, accuracy, n
    from {{ ref('kor_accuracy') }}
    where source = 'official'
),
ours as (
    select p.base_model, p.chat_model, b.category,
           b.accuracy as base_accuracy, c.accuracy as chat_accuracy, b.n::bigint as base_n, c.n::bigint as chat_n
    from ours_pairs p
    join acc b on b.model = p.base_model and b.setting = 'three_shot'
    join acc c on c.model = p.chat_model and c.setting = 'zero_shot' and c.category = b.category
),
published as (
    select model, setting, category, value, coalesce(comparable, true) as comparable, why_not
    from {{ ref('study_reference') }}
    where family = 'kor' and source = 'Table 2' and metric = 'accuracy'
),
study as (
    select b.model as base_model, c.model as chat_model, b.category,
           b.value as base_accuracy, c.value as chat_accuracy,
           b.comparable and c.comparable as comparable, coalesce(b.why_not, c.why_not) as why_not
    from published b
    join published c
      on b.setting = 'three_shot' and c.setting = 'zero_shot' and c.category = b.category
     and lower(c.model) in (lower(b.model) || '-instruct', lower(b.model) || '-it', lower(b.model) || '-chat',
                            lower(b.model) || '-instruct-v0.1', replace(lower(b.model), '-hf', '-instruct-hf'))
),
study_columns as (
    select category, bool_and(comparable) as comparable, min(why_not) as why_not from study group by category
)
select false as published, 'relreason' as source, o.base_model, o.chat_model, o.category,
       o.base_accuracy, o.chat_accuracy, round(o.base_accuracy - o.chat_accuracy, 4) as change,
       o.base_n, o.chat_n,
       coalesce(sc.comparable, false) and o.base_n = sp.pool and o.chat_n = sp.pool as comparable,
       case
           when sc.comparable is null then 'the study printed no pair for this category'
           when not sc.comparable then sc.why_not
           when o.base_n <> sp.pool or o.chat_n <> sp.pool
               then format('{} and {} of the study''s {} questions (the profile asks a subset)',
                           o.base_n, o.chat_n, sp.pool)
       end as why_not
from ours o
left join study_pool sp using (category)
left join study_columns sc using (category)
union all
select true, 'Table 2', base_model, chat_model, category, base_accuracy, chat_accuracy,
       round(base_accuracy - chat_accuracy, 4), null, null, comparable, why_not
from study
order by published, base_model, category
