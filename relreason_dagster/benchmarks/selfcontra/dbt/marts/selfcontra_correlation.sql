-- §2.4: Pearson correlation of accuracy and SCR across the (dataset, model, setting) points of
-- selfcontra_scr, over every model ('all') and per model, and per answer order: 'answer' (answer-first,
-- the study's -0.634 over Table 2), 'reason' (reason-first, Table 8) and 'all' (both pooled).  Only
-- the study's section-2 points (imported, without a split) and our own labels (one point per WinoBias
-- split: pro and anti are points of their own) count: section-3 files re-label the Few-shot (A)
-- responses of larger samples and would count a setting twice.
-- t_stat = r * sqrt(df / (1 - r^2)) with df = n_points - 2; p_value is its two-sided p from Student's t
-- with df degrees of freedom, by the exact finite series for whole df (theta = atan(|t| / sqrt(df));
-- even df: P(|T| < t) = sin(theta) * sum_{j=0}^{df/2-1} c_j cos^{2j}(theta), c_0 = 1,
-- c_j = c_{j-1} (2j-1)/(2j); odd df: P(|T| < t) = (2/pi) (theta + sin(theta) * sum_{j=1}^{(df-1)/2}
-- d_j cos^{2j-1}(theta)), d_1 = 1, d_j = d_{j-1} (2j-2)/(2j-1)); p = 1 - P.  NULL below 3 points.
with scr as (
    select model, split_part(setting, '_', 2) as answer_order, accuracy, scr
    from {{ ref('selfcontra_scr') }}
    where split is null or labels = 'ours'
),
points as (
    select 'all' as model, 'all' as answer_order, accuracy, scr from scr
    union all
    select 'all', answer_order, accuracy, scr from scr
    union all
    select model, 'all', accuracy, scr from scr
    union all
    select model, answer_order, accuracy, scr from scr
),
agg as (
    select model, answer_order, count(*) as n_points, corr(accuracy, scr) as r
    from points
    group by model, answer_order
),
stats as (
    select model, answer_order, n_points, n_points - 2 as df,
           case when isnan(r) then null else r end as r
    from agg
),
tested as (
    select *,
           case when r is null or df < 1 or abs(r) >= 1 - 1e-12 then null else r * sqrt(df / (1 - r * r)) end as t
    from stats
),
angles as (
    select model, answer_order, df, t, atan(abs(t) / sqrt(df)) as theta
    from tested
    where t is not null
),
series as (
    select model, answer_order, j,
           case when df % 2 = 0 then (case when j = 0 then 1.0 else (2 * j - 1)::double / (2 * j) end)
                else (case when j = 1 then 1.0 else (2 * j - 2)::double / (2 * j - 1) end) end as factor,
           case when df % 2 = 0 then pow(cos(theta), 2 * j) else pow(cos(theta), 2 * j - 1) end as cos_power
    from (select *, unnest(range(0, df)) as j from angles)
    where (df % 2 = 0 and j <= df / 2 - 1) or (df % 2 = 1 and j between 1 and (df - 1) / 2)
),
sums as (
    select model, answer_order, sum(term) as s
    from (
        select model, answer_order,
               exp(sum(ln(factor)) over (partition by model, answer_order order by j)) * cos_power as term
        from series
    )
    group by model, answer_order
),
p as (
    select a.model, a.answer_order,
           case when a.df % 2 = 0 then 1 - sin(a.theta) * coalesce(s.s, 0)
                else 1 - (2 / pi()) * (a.theta + sin(a.theta) * coalesce(s.s, 0)) end as p_value
    from angles a
    left join sums s using (model, answer_order)
)
select t.model, t.answer_order, t.n_points,
       round(t.r, 4) as pearson_r,
       round(t.t, 4) as t_stat,
       case when t.r is not null and t.n_points >= 3 and abs(t.r) >= 1 - 1e-12 then 0.0
            else round(case when p.p_value < 0 then 0 else p.p_value end, 6) end as p_value
from tested t
left join p using (model, answer_order)
order by t.model = 'all' desc, t.model, t.answer_order = 'all' desc, t.answer_order
