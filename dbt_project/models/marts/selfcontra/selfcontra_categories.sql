-- §3 / Table 5: finer-grained categories of Self-Contra reasoning per dataset x model x setting.
-- share_of_self_contra = cases with the category among Self-Contra responses / #Self-Contra;
-- share_of_all = cases with the category / all annotated responses (a response may carry several).
with cats as (
    select a.dataset, a.model, a.setting, a.self_contra, c.category
    from {{ ref('stg_annotations') }} a,
         unnest(from_json(coalesce(a.categories, '[]'), '["VARCHAR"]')) as c(category)
),
totals as (
    select dataset, model, setting, count(*) as n, count(*) filter (where self_contra) as n_self_contra
    from {{ ref('stg_annotations') }}
    group by dataset, model, setting
)
select c.dataset, c.model, c.setting, c.category,
       count(*) as n_cases,
       count(*) filter (where c.self_contra) as n_self_contra_cases,
       round(count(*) filter (where c.self_contra)::double / nullif(t.n_self_contra, 0), 4) as share_of_self_contra,
       round(count(*)::double / t.n, 4) as share_of_all,
       t.n, t.n_self_contra
from cats c
join totals t using (dataset, model, setting)
group by c.dataset, c.model, c.setting, c.category, t.n, t.n_self_contra
order by c.dataset, c.model, c.setting, c.category
