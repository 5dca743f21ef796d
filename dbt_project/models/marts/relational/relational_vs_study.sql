-- The relational study beside ours: F1 per task x split x nodes x setting, one long row per model, our
-- models (marts.relational_f1, source 'relreason', with the 95% bootstrap interval and n answers; value
-- null where every answer was incomplete, the study's N/A, and the note says so) and
-- the study's (marts.study_reference: Tables 1-3 and the §5.2 models Table 2 leaves out as all N/A;
-- published = true, source = the table, no interval, no n).
-- nodes is the family tree's / graph's size (the study: n = 10 for its IID test, n = 20 for OOD); ours
-- is read from the samples we answered, null if they mix sizes, so a profile with other sizes shows as
-- rows of its own instead of joining the study's.
-- The DLM is trained, not prompted (setting dlm): the study prints its column in all three tables, the
-- same numbers, kept once (Table 1).  Two models are spelled differently from table to table
-- (GPT3.5 Turbo / GPT-3.5 Turbo, GPT-4 Turbo / GPT-4-Turbo): here each has the text's spelling, so one
-- model is one column; note keeps the table's spelling.
-- The study's rows appear only where we have a row with the same task, split and setting: the table
-- compares, it does not reprint the paper (published.csv and marts.study_reference hold it whole).
with sizes as (
    select a.model, a.task, a.split, a.setting,
           case when min(s.n) = max(s.n) then min(s.n) end as nodes,
           min(s.n) <> max(s.n) as mixed
    from {{ ref('int_answer_scores') }} a
    join {{ ref('stg_samples') }} s on s.benchmark = a.benchmark and s.sample_id = a.sample_id
    where a.benchmark = 'relational'
    group by a.model, a.task, a.split, a.setting
),
ours as (
    select f.task, f.split, sizes.nodes::integer as nodes, f.setting, f.model,
           false as published, 'relreason' as source, 'f1' as metric, f.f1 as value,
           f.ci_low, f.ci_high, f.n::bigint as n,
           nullif(concat_ws('; ',
               case when sizes.mixed then 'samples of several sizes pooled' end,
               case when f.na_cell then format('N/A: all {} answers incomplete (the study''s rule)', f.n)
                    when f.n_incomplete > 0 then format('{} of {} answers incomplete, in F1 as parsed (0 if unreadable)',
                                                        f.n_incomplete, f.n) end
           ), '') as note
    from {{ ref('relational_f1') }} f
    left join sizes using (model, task, split, setting)
),
published as (
    select task, split, n as nodes, setting,
           case model when 'GPT3.5 Turbo' then 'GPT-3.5 Turbo' when 'GPT-4-Turbo' then 'GPT-4 Turbo'
                else model end as model,
           true as published, source, lower(metric) as metric, value,
           null::double as ci_low, null::double as ci_high, null::bigint as n, note
    from {{ ref('study_reference') }}
    where family = 'relational' and lower(metric) = 'f1'
      and not (coalesce(setting, '') = 'dlm' and source <> 'Table 1')
)
select * from ours
union all
select * from published p
where exists (select 1 from ours o where o.task = p.task and o.split = p.split and o.setting = p.setting)
order by task, split, nodes, setting, published, model
