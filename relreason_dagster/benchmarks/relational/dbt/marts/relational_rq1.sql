-- The study's RQ1 (§5.1): F1 against task complexity, the number of predicates in the task's
-- ground-truth program (relational_program_sizes, from formulas (2)-(10)).  One row per model x setting x
-- split x task with the cell's F1 (null where N/A), its interval and incomplete share; rank_corr is the
-- Spearman correlation (average ranks for ties) between F1 and n_predicates over the model's non-N/A
-- tasks of that setting and split, rank_corr_inlined the same against n_predicates_inlined (null with
-- fewer than three tasks or when every task has the same F1).  The study's reading: F1 falls as programs
-- grow (a negative correlation).
with cells as (
    select f.model, f.setting, f.split, f.task, p.n_predicates, p.n_predicates_inlined,
           f.f1, f.ci_low, f.ci_high, f.incomplete_share, f.na_cell, f.n
    from {{ ref('relational_f1') }} f
    join {{ ref('relational_program_sizes') }} p using (task)
),
ranked as (
    select model, setting, split,
           rank() over (partition by model, setting, split order by f1)
             + (count(*) over (partition by model, setting, split, f1) - 1) / 2.0 as r_f1,
           rank() over (partition by model, setting, split order by n_predicates)
             + (count(*) over (partition by model, setting, split, n_predicates) - 1) / 2.0 as r_np,
           rank() over (partition by model, setting, split order by n_predicates_inlined)
             + (count(*) over (partition by model, setting, split, n_predicates_inlined) - 1) / 2.0 as r_npi
    from cells where f1 is not null
),
corr as (
    select model, setting, split, count(*) as n_tasks,
           case when count(*) >= 3 and stddev_pop(r_f1) > 0 then corr(r_f1, r_np) end as rank_corr,
           case when count(*) >= 3 and stddev_pop(r_f1) > 0 then corr(r_f1, r_npi) end as rank_corr_inlined
    from ranked group by model, setting, split
)
select cells.model, cells.setting, cells.split, cells.task, cells.n_predicates, cells.n_predicates_inlined,
       cells.f1, cells.ci_low, cells.ci_high, cells.incomplete_share, cells.na_cell, cells.n,
       coalesce(corr.n_tasks, 0) as n_tasks,
       round(corr.rank_corr, 4) as rank_corr, round(corr.rank_corr_inlined, 4) as rank_corr_inlined
from cells
left join corr using (model, setting, split)
order by cells.model, cells.setting, cells.split, cells.n_predicates, cells.task
