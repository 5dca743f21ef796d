-- The relational study's Table 1: per task, every LLM's F1 with standard nl prompting next to the
-- DLM trained on the same few-shot samples, at n = 10 (IID) and n = 20 (OOD), with 95% bootstrap
-- intervals.  DLM rows pool every trained seed (n = samples x seeds); seed_sd is the spread of the
-- per-seed means.  The DLM has a row per recipe (dlm/README.md): setting dlm is each task's default
-- recipe, dlm_study_protocol the study's stated protocol; recipe names the recipe(s) its runs trained
-- with (the default differs by task).  An LLM cell whose every answer is incomplete is the study's N/A:
-- f1 null, incomplete_share 1.  study_dlm_* are the DLM column of the study's Table 1, for reference,
-- and rows with published = true the study's own LLMs as its Table 1 prints them (no interval, no n),
-- source naming the table: both from marts.study_reference (the relational family's published.csv).
with f1 as (
    select * from {{ ref('relational_f1') }}
    where (model = 'dlm' and setting like 'dlm%') or (model <> 'dlm' and setting = 'nl')
),
seed_means as (
    select model, task, split, setting, (detail ->> 'seed') as seed, avg(f1) as f1
    from {{ ref('int_answer_scores') }}
    where model = 'dlm'
    group by model, task, split, setting, (detail ->> 'seed')
),
seeds as (
    select model, task, split, setting, count(*) as n_seeds, stddev_samp(f1) as seed_sd
    from seed_means group by model, task, split, setting
),
-- The recipe behind a DLM row: named in each answer's detail (runs trained before recipes were named
-- carry none and show as null).
recipes as (
    select task, setting, string_agg(distinct detail ->> 'recipe', ', ' order by detail ->> 'recipe') as recipe
    from {{ ref('int_answer_scores') }}
    where model = 'dlm'
    group by task, setting
),
-- The study's Table 1, nl prompting and the DLM: n = 10 is its IID test, n = 20 its OOD test; a task's
-- row order is the table's (its first line in the file).
table_1 as (
    select task, model, source, setting, value, line,
           coalesce(n, case split when 'iid' then 10 when 'ood' then 20 end) as n_nodes
    from {{ ref('study_reference') }}
    where family = 'relational' and source = 'Table 1' and lower(metric) = 'f1'
),
study as (
    select task, min(line) as task_order,
           max(case when lower(model) = 'dlm' and n_nodes = 10 then value end) as study_dlm_n10,
           max(case when lower(model) = 'dlm' and n_nodes = 20 then value end) as study_dlm_n20
    from table_1
    group by task
),
published_cells as (
    select * from table_1 where lower(model) <> 'dlm' and coalesce(setting, 'nl') = 'nl'
),
published as (
    select task, model, 'nl' as setting,
           max(case when n_nodes = 10 then value end) as f1_n10,
           cast(null as double) as ci_low_n10,
           cast(null as double) as ci_high_n10,
           cast(null as bigint) as n_n10,
           max(case when n_nodes = 20 then value end) as f1_n20,
           cast(null as double) as ci_low_n20,
           cast(null as double) as ci_high_n20,
           cast(null as bigint) as n_n20,
           cast(null as double) as incomplete_share_n10,
           cast(null as double) as incomplete_share_n20,
           cast(null as varchar) as recipe,
           cast(null as bigint) as n_seeds,
           cast(null as double) as seed_sd_n10,
           cast(null as double) as seed_sd_n20,
           true as published,
           min(source) as source
    from published_cells
    group by task, model
),
wide as (
    select f1.task, f1.model, f1.setting,
           max(case when f1.split = 'iid' then f1.f1 end) as f1_n10,
           max(case when f1.split = 'iid' then f1.ci_low end) as ci_low_n10,
           max(case when f1.split = 'iid' then f1.ci_high end) as ci_high_n10,
           max(case when f1.split = 'iid' then f1.n end) as n_n10,
           max(case when f1.split = 'ood' then f1.f1 end) as f1_n20,
           max(case when f1.split = 'ood' then f1.ci_low end) as ci_low_n20,
           max(case when f1.split = 'ood' then f1.ci_high end) as ci_high_n20,
           max(case when f1.split = 'ood' then f1.n end) as n_n20,
           max(case when f1.split = 'iid' then f1.incomplete_share end) as incomplete_share_n10,
           max(case when f1.split = 'ood' then f1.incomplete_share end) as incomplete_share_n20,
           max(recipes.recipe) as recipe,
           max(case when seeds.split = 'iid' then seeds.n_seeds end) as n_seeds,
           round(max(case when seeds.split = 'iid' then seeds.seed_sd end), 4) as seed_sd_n10,
           round(max(case when seeds.split = 'ood' then seeds.seed_sd end), 4) as seed_sd_n20,
           false as published,
           'relreason' as source
    from f1
    left join seeds on seeds.model = f1.model and seeds.task = f1.task and seeds.split = f1.split
     and seeds.setting = f1.setting
    left join recipes on f1.model = 'dlm' and recipes.task = f1.task and recipes.setting = f1.setting
    group by f1.task, f1.model, f1.setting
),
-- The study's LLMs only beside a task we ran: the table compares, it does not reprint the paper.
combined as (
    select * from wide
    union all by name
    select * from published where task in (select task from wide)
)
select combined.*, study.study_dlm_n10, study.study_dlm_n20
from combined
left join study using (task)
order by study.task_order, combined.task, combined.published,
         case when combined.model = 'dlm' then 1 else 0 end, combined.model, combined.setting
