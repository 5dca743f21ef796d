-- §2.4: Pearson correlation of accuracy and SCR across the (dataset, model, setting) points of
-- selfcontra_scr, over every model ('all') and per model; the study reports -0.634 over all its
-- datasets and models.  t_stat = r * sqrt((k - 2) / (1 - r^2)) for a test with k - 2 degrees of freedom.
with points as (
    select 'all' as model, accuracy, scr from {{ ref('selfcontra_scr') }}
    union all
    select model, accuracy, scr from {{ ref('selfcontra_scr') }}
),
agg as (
    select model, count(*) as n_points, corr(accuracy, scr) as r
    from points
    group by model
)
select model, n_points,
       case when isnan(r) then null else round(r, 4) end as pearson_r,
       case when isnan(r) or n_points < 3 or abs(r) >= 1 then null
            else round(r * sqrt((n_points - 2) / (1 - r * r)), 4) end as t_stat
from agg
order by model = 'all' desc, model
