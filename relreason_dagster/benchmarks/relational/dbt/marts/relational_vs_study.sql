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
-- compares, it does not reprint the paper (published.csv and marts.study_reference hold it whole).  The
-- study's DLM column also stands beside our dlm_study_protocol rows (the recipe that follows its §4.2).
-- comparable / why_not (issue 45, like with like): the study released no items; its test samples are
-- random draws of its generator, as ours are of relreason's, so "the same items" here means the same
-- procedure at the same size and count: an ours row is comparable when its cell has the study's nodes
-- (published n), the study's count of test samples and of few-shot examples per prompt (protocol.csv,
-- re-read from §4.1-4.2), the study's reading of IsUncle / IsMGUncle (family_tree_variant study), and,
-- for the DLM (every dlm* setting), the study's training set size and its protocol uncapped (recipe
-- study-protocol, 500 epochs); why_not names each difference.
-- Published rows carry study_reference's own comparable / why_not; an ours row is comparable only when
-- the study's cells on its keys are too.
with protocol as (
    -- The study's protocol per setting (§4.1-4.2): test samples per task x split, few-shot examples per
    -- prompt, the DLM's training samples and epochs.  dbt runs with the project folder as working dir.
    select setting, test_samples::integer as test_samples, examples::integer as examples,
           train_samples::integer as train_samples, max_epochs::integer as max_epochs
    from read_csv('../relreason_dagster/benchmarks/relational/protocol.csv', header = true, all_varchar = true)
),
study_nodes as (
    select split, min(n) as nodes from {{ ref('study_reference') }}
    where family = 'relational' and lower(metric) = 'f1' group by split
),
shots as (
    -- Few-shot examples in each test prompt, read from the prompt the model was asked: the prompt is its
    -- parts joined by blank lines, each example a part opening with "Question: " (the question asked
    -- opens after the "Now ..." line, not after a blank line).
    select prompt_id,
           (length(content) - length(replace(content, chr(10) || chr(10) || 'Question: ', ''))) // 12 as examples
    from (
        select prompt_id, json_extract_string(messages, '$[0].content') as content
        from {{ source('raw', 'prompts') }}
        where benchmark = 'relational' and kind = 'test'
    ) m
),
sizes as (
    select a.model, a.task, a.split, a.setting,
           case when min(s.n) = max(s.n) then min(s.n) end as nodes,
           min(s.n) <> max(s.n) as mixed,
           count(distinct a.sample_id) as n_items,
           min(sh.examples) as min_examples, max(sh.examples) as max_examples,
           bool_or(coalesce(s.variant ->> 'family_tree_variant', 'study') <> 'study') as other_variant,
           min(r.train_size) as min_train, max(r.train_size) as max_train,
           min((r.config ->> 'max_epochs')::integer) as dlm_max_epochs,
           bool_and(r.recipe = 'study-protocol') as study_recipe,
           string_agg(distinct coalesce(r.recipe, 'default'), ', ') as recipes
    from {{ ref('int_relational_answers') }} a
    join {{ ref('stg_samples') }} s on s.benchmark = 'relational' and s.sample_id = a.sample_id
    left join shots sh on sh.prompt_id = a.prompt_id
    left join {{ ref('stg_dlm_runs') }} r on r.run_id = a.detail ->> 'run_id'
    group by a.model, a.task, a.split, a.setting
),
published as (
    select task, split, n as nodes, setting,
           case model when 'GPT3.5 Turbo' then 'GPT-3.5 Turbo' when 'GPT-4-Turbo' then 'GPT-4 Turbo'
                else model end as model,
           true as published, source, lower(metric) as metric, value,
           null::double as ci_low, null::double as ci_high, null::bigint as n, note,
           coalesce(comparable, true) as comparable, why_not
    from {{ ref('study_reference') }}
    where family = 'relational' and lower(metric) = 'f1'
      and not (coalesce(setting, '') = 'dlm' and source <> 'Table 1')
),
published_all as (
    select * from published
    union all
    -- The study's DLM column beside every other DLM recipe we ran (dlm_study_protocol: its own protocol).
    select p.task, p.split, p.nodes, d.setting, p.model, p.published, p.source, p.metric, p.value,
           p.ci_low, p.ci_high, p.n, p.note, p.comparable, p.why_not
    from published p
    join (select distinct setting from sizes where setting like 'dlm\_%' escape '\') d on true
    where p.setting = 'dlm'
),
study_cells as (
    -- Whether the study's cells on a task x split x setting all stand beside a run (and why not).
    select task, split, setting, bool_and(comparable) as comparable,
           string_agg(distinct why_not, '; ') as why_not
    from published_all group by task, split, setting
),
ours_rows as (
    select f.task, f.split, sizes.nodes::integer as nodes, f.setting, f.model,
           false as published, 'relreason' as source, 'f1' as metric, f.f1 as value,
           f.ci_low, f.ci_high, f.n::bigint as n,
           nullif(concat_ws('; ',
               case when sizes.mixed then 'samples of several sizes pooled' end,
               case when f.na_cell then format('N/A: all {} answers incomplete (the study''s rule)', f.n)
                    when f.n_incomplete > 0 then format('{} of {} answers incomplete, in F1 as parsed (0 if unreadable)',
                                                        f.n_incomplete, f.n) end
           ), '') as note,
           nullif(concat_ws('; ',
               case when sizes.mixed then 'samples of several sizes pooled where the study tests one size'
                    when sizes.nodes <> sn.nodes then format('n = {} where the study tests n = {}', sizes.nodes, sn.nodes) end,
               case when sizes.n_items <> pr.test_samples
                    then format('{} test samples where the study scores {}', sizes.n_items, pr.test_samples) end,
               case when pr.examples is not null and (sizes.min_examples <> pr.examples or sizes.max_examples <> pr.examples)
                    then format('{} few-shot examples per prompt where the study gives {}',
                                case when sizes.min_examples = sizes.max_examples then sizes.min_examples::varchar
                                     else format('{}-{}', sizes.min_examples, sizes.max_examples) end,
                                pr.examples) end,
               case when sizes.other_variant and f.task in ('IsUncle', 'IsMGUncle')
                    then 'family_tree_variant nlm: the NLM generator''s definition, not the study''s formula' end,
               case when pr.max_epochs is null then null
                    when not coalesce(sizes.study_recipe, false)
                    then format('DLM recipe {}, not the study''s protocol (at most {} epochs, stop at loss < 1e-8)',
                                sizes.recipes, pr.max_epochs)
                    when sizes.dlm_max_epochs < pr.max_epochs
                    then format('the study''s protocol capped at {} of its {} epochs', sizes.dlm_max_epochs, pr.max_epochs) end,
               case when pr.train_samples is not null and (sizes.min_train <> pr.train_samples or sizes.max_train <> pr.train_samples)
                    then format('trained on {} samples where the study trains on {}', sizes.max_train, pr.train_samples) end,
               case when pr.setting is null then format('setting {} has no counterpart in the study', f.setting) end,
               case when not sc.comparable then 'the study''s cell: ' || sc.why_not end
           ), '') as why_not
    from {{ ref('relational_f1') }} f
    left join sizes using (model, task, split, setting)
    left join study_nodes sn on sn.split = f.split
    left join protocol pr on pr.setting = case when f.setting like 'dlm%' then 'dlm' else f.setting end
    left join study_cells sc on sc.task = f.task and sc.split = f.split and sc.setting = f.setting
),
ours as (
    select task, split, nodes, setting, model, published, source, metric, value, ci_low, ci_high, n, note,
           why_not is null as comparable, why_not
    from ours_rows
)
select * from ours
union all
select * from published_all p
where exists (select 1 from ours o where o.task = p.task and o.split = p.split and o.setting = p.setting)
order by task, split, nodes, setting, published, model
