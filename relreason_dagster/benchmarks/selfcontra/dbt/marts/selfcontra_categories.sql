-- §3 / Tables 5 and 10: finer-grained categories of human-labelled responses per
-- dataset x split x model x setting x category (split: anti_test / pro_test for the study's section-3
-- WinoBias files, NULL otherwise).  A response may carry several categories.
--   Table 5: share_of_self_contra = Self-Contra responses with the category / #Self-Contra;
--            its Type3 column is type3_share_of_self_contra (#type3 / #Self-Contra, on every row).
--   Table 10: share_of_type = responses of the category's type with the category / #responses of that
--             type (evidence missing, incomplete reasoning over Type1; questionable cause, begging the
--             question, wrong context/external knowledge over Type2; self-contradictory over Type3), with
--             n_of_type the count in parentheses; share_of_all = responses with the category / all.
with base as (
    select dataset, split, model, setting, self_contra, type,
           from_json(coalesce(categories, '[]'), '["VARCHAR"]') as cats
    from {{ ref('stg_annotations') }}
    -- a response a second file labels again in the same group counts once (selfcontra_annotation_pairs)
    where annotation_id not in (
        select other_id from {{ ref('selfcontra_annotation_pairs') }} where same_group
    )
),
totals as (
    select dataset, split, model, setting, count(*) as n,
           count(*) filter (where self_contra) as n_self_contra,
           count(*) filter (where type = 'type1') as n_type1,
           count(*) filter (where type = 'type2') as n_type2,
           count(*) filter (where type = 'type3') as n_type3
    from base
    group by dataset, split, model, setting
),
cats as (
    select b.dataset, b.split, b.model, b.setting, b.self_contra, b.type, c.category,
           case when c.category in ('evidence_missing', 'incomplete_reasoning') then 'type1'
                when c.category in ('questionable_cause', 'begging_the_question', 'wrong_context_knowledge',
                                    'wrong_external_knowledge') then 'type2'
                when c.category = 'self_contradictory' then 'type3' end as category_type
    from base b, unnest(b.cats) as c(category)
),
per_category as (
    select dataset, split, model, setting, category, category_type,
           count(*) as n_cases,
           count(*) filter (where self_contra) as n_self_contra_cases,
           count(*) filter (where type = category_type) as n_type_cases
    from cats
    group by dataset, split, model, setting, category, category_type
)
select c.dataset, c.split, c.model, c.setting, c.category, c.category_type,
       c.n_cases, c.n_self_contra_cases,
       round(c.n_self_contra_cases::double / nullif(t.n_self_contra, 0), 4) as share_of_self_contra,
       c.n_type_cases,
       case c.category_type when 'type1' then t.n_type1 when 'type2' then t.n_type2
                            when 'type3' then t.n_type3 end as n_of_type,
       round(c.n_type_cases::double / nullif(case c.category_type when 'type1' then t.n_type1
             when 'type2' then t.n_type2 when 'type3' then t.n_type3 end, 0), 4) as share_of_type,
       round(c.n_cases::double / t.n, 4) as share_of_all,
       t.n, t.n_self_contra, t.n_type1, t.n_type2, t.n_type3,
       round(t.n_type3::double / nullif(t.n_self_contra, 0), 4) as type3_share_of_self_contra
from per_category c
join totals t on c.dataset = t.dataset and c.split is not distinct from t.split and c.model = t.model
    and c.setting = t.setting
order by c.dataset, c.split nulls first, c.model, c.setting, c.category
