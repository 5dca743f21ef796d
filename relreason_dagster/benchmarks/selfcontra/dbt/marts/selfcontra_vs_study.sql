-- Self-Contra: our numbers beside the study's Tables 2 (answer-first) and 8 (reason-first, with its
-- Average column as dataset 'all') and Table 6's left half (detection F1), one long row per
-- dataset x setting x split x method x judge x model x metric.  Every row says whether it is a like-
-- with-like comparison (comparable, and why_not in one line when it is not): published rows carry
-- study_reference's; our rows are comparable when they are on the study's items with the study's count
-- per point (published n) and the published cell on the same keys is comparable too.
--   * Tables 2 and 8 are the anti-stereotype WinoBias test items (published split anti_test: every prompt
--     of the study's released section-2 files is an anti test line), so only anti_test WinoBias rows of
--     ours stand beside them; pro_test rows are rows of their own with no published cell.
--   * method 'human': human labels (marts.selfcontra_scr): the study's own section-2 files imported
--     (labels 'imported', split NULL there: their WinoBias rows read as anti_test here; the section-3
--     files, which Table 5 counts, are left out) or labels of our own responses (labels 'ours', on the
--     items the run asked: comparable only on the study's items, selection 'study').
--   * judge methods (iro, binary, fge; marts.selfcontra_judged): accuracy from our parser (comparable on
--     the study's items), scr as the judge labels it (never comparable: the study's rates count people's
--     labels).
--   * 'all' (Table 8's Average): the mean of the WinoBias (anti_test), WinoGender and WinoGrande rows of
--     one model x setting x method x judge x metric, when all three exist; comparable when all three are.
--   * f1 (Table 6 left half): detection F1 of the judge's verdicts on annotated Few-shot (A) responses
--     only (Table 6 scores §3's Few-shot (A) responses); comparable when every annotated response of a
--     section-3 file was judged.  Table 6 prints no WinoGrande split; the release's section-3 WinoGrande
--     items are train_m's, as the importer names them, so its WinoGrande rows read as train_m here.
with reference as (
    select source, model, dataset, setting,
           case when source = 'Table 6' and dataset = 'winogrande' then coalesce(split, 'train_m')
                else split end as split,
           coalesce(keys ->> 'method', 'human') as method, keys ->> 'judge' as judge,
           metric, value, n, note, comparable, why_not
    from {{ ref('study_reference') }}
    where family = 'selfcontra'
      and ((source in ('Table 2', 'Table 8') and metric in ('accuracy', 'scr'))
           or (source = 'Table 6' and metric = 'f1' and coalesce(category, '') = ''))
),
-- The published cell(s) a row of ours stands beside: Tables 2 and 8 by dataset, setting, split and
-- metric (any method: the tables count human labels; a judge's accuracy is still an accuracy).
table_cells as (
    select dataset, setting, split, metric, min(n) as n, bool_and(comparable) as comparable,
           min(why_not) as why_not
    from reference
    where source in ('Table 2', 'Table 8')
    group by dataset, setting, split, metric
),
published as (
    select dataset, setting, split, method, judge, model, true as published, source, metric, value,
           null::double as ci_low, null::double as ci_high, n::bigint as n, note, comparable, why_not
    from reference
),
human as (
    select dataset, setting,
           coalesce(split, case when dataset = 'winobias' and labels = 'imported' then 'anti_test' end) as split,
           'human' as method, null::varchar as judge, model, labels, selection, n::bigint as n,
           accuracy, accuracy_ci_low, accuracy_ci_high, scr, scr_ci_low, scr_ci_high,
           case when labels = 'ours' then 'human labels of our responses (marts.selfcontra_scr)'
                when split is null and dataset = 'winobias'
                    then 'human labels imported (marts.selfcontra_scr); a WinoBias file naming no split is read as anti_test, as the study''s section-2 files are'
                else 'human labels imported (marts.selfcontra_scr)' end as note
    from {{ ref('selfcontra_scr') }}
    -- the study's section-3 files (imported, with a split) re-label larger samples for Table 5
    where not (labels = 'imported' and split is not null)
),
judged as (
    select dataset, setting, split, method, judge, model, 'ours' as labels, selection, n::bigint as n,
           n_judged::bigint as n_judged, accuracy, accuracy_ci_low, accuracy_ci_high,
           judged_scr, scr_ci_low, scr_ci_high
    from {{ ref('selfcontra_judged') }}
    -- the study's judge read the answer: a reasoning trace's verdicts stand beside no published cell
    where source = 'answer'
),
ours_long as (
    select dataset, setting, split, method, judge, model, labels, selection, 'accuracy' as metric,
           accuracy as value, accuracy_ci_low as ci_low, accuracy_ci_high as ci_high, n, note
    from human
    union all
    select dataset, setting, split, method, judge, model, labels, selection, 'scr', scr, scr_ci_low,
           scr_ci_high, n, note
    from human
    union all
    select dataset, setting, split, method, judge, model, labels, selection, 'accuracy', accuracy,
           accuracy_ci_low, accuracy_ci_high, n,
           'parsed answers of the responses this judge labelled (marts.selfcontra_judged)'
    from judged
    union all
    select dataset, setting, split, method, judge, model, labels, selection, 'scr', judged_scr, scr_ci_low,
           scr_ci_high, n_judged,
           'labelled by the judge, not by people: the method = human rows are the comparable ones (marts.selfcontra_judged)'
    from judged
),
-- How many of each model's prompts were worded as the study asked that model (selfcontra_wording, per
-- model; issue 57): a row of our responses stands beside the study's only when all of them were.
wording as (
    select model, dataset, setting, study_model, n, n_study_wording
    from {{ source('raw', 'selfcontra_wording') }}
),
ours as (
    select o.*,
           case
               when o.method <> 'human' and o.metric = 'scr'
                   then 'labelled by the judge ' || o.judge || ', not by people as the study''s rates are'
               when o.labels = 'ours' and o.selection = 'generated'
                   then 'generated items, not the study''s'
               when o.labels = 'ours' and o.selection = 's3'
                   then '§3''s items (items: s3), not the study''s §2 items (items: study)'
               when o.labels = 'ours' and o.selection <> 'study'
                   then 'the first items of each file (items: first), not the study''s §2 items (items: study)'
               when o.labels = 'ours' and w.n_study_wording < w.n
                   then (w.n - w.n_study_wording) || ' of ' || w.n || ' prompts not worded as the study asked '
                        || w.study_model || ' (prompts: study, wording: study ask each study model so)'
               when c.dataset is null and o.dataset = 'winobias' and o.split is distinct from 'anti_test'
                   then 'the study publishes no ' || coalesce(o.split, 'split-less')
                        || ' number here: Tables 2 and 8 are the anti-stereotype test items'
               when c.dataset is null
                   then 'the study publishes no number for this dataset and setting'
               when o.n <> c.n
                   then o.n || ' responses per point where the study counts ' || c.n
                        || case when o.labels = 'imported' then ' (its file''s first ' || c.n
                                || ': import with --limit ' || c.n || ' or annotation_limit)' else '' end
               when not c.comparable then c.why_not
           end as why
    from ours_long o
    left join table_cells c on c.dataset = o.dataset and c.setting = o.setting
        and c.split is not distinct from o.split and c.metric = o.metric
    left join wording w on o.labels = 'ours' and w.model = o.model and w.dataset = o.dataset
        and w.setting = o.setting
),
-- Table 8's Average: the mean over the three datasets of one model x setting x method x judge x metric.
average as (
    select 'all' as dataset, setting, null::varchar as split, method, judge, model, metric,
           round(avg(value), 4) as value, sum(n) as n,
           count(*) filter (where why is not null) as n_not, min(why) as why
    from ours
    where (dataset = 'winobias' and split = 'anti_test') or dataset in ('winogender', 'winogrande')
    group by setting, method, judge, model, labels, selection, metric
    having count(distinct dataset) = 3
),
average_rows as (
    select a.dataset, a.setting, a.split, a.method, a.judge, a.model, false as published,
           'relreason' as source, a.metric, a.value, null::double as ci_low, null::double as ci_high, a.n,
           'mean of the WinoBias (anti_test), WinoGender and WinoGrande rows (Table 8''s Average column)'
               as note,
           a.n_not = 0 and coalesce(c.comparable, false) as comparable,
           case when a.n_not > 0 then 'averages a point that is not comparable: ' || a.why
                when c.dataset is null then 'the study publishes no average for this setting'
                when not c.comparable then c.why_not end as why_not
    from average a
    left join table_cells c on c.dataset = 'all' and c.setting = a.setting and c.split is null
        and c.metric = a.metric
),
-- Table 6, left half: our judge's detection F1 on annotated Few-shot (A) responses only.
annotated as (
    select dataset, split, model, setting, n from {{ ref('selfcontra_scr') }} where labels = 'imported'
),
detection as (
    select f.dataset, f.setting, f.split, f.method, f.judge, f.model, false as published,
           'relreason' as source, 'f1' as metric, f.f1 as value, null::double as ci_low,
           null::double as ci_high, f.n::bigint as n,
           'judge verdicts on annotated Few-shot (A) responses against their human labels (marts.selfcontra_detection_f1)'
               as note,
           case
               when a.n is null
                   then 'verdicts on our own labelled responses: Table 6 scores the study''s section-3 responses'
               when f.split is null
                   then 'section-2 labels: Table 6 scores the section-3 annotations (import winobias_<anti|pro>_test_<model>.csv, winogrande_<model>.csv)'
               when f.n < a.n
                   then f.n || ' of the ' || a.n || ' annotated responses judged (detect_limit), where Table 6 scores all of them'
               when not exists (
                   select 1 from reference r
                   where r.source = 'Table 6' and r.dataset = f.dataset and r.split is not distinct from f.split
                     and r.method = f.method)
                   then 'Table 6 prints no number for this dataset, split and method'
           end as why_not
    from {{ ref('selfcontra_detection_f1') }} f
    left join annotated a on a.dataset = f.dataset and a.split is not distinct from f.split
        and a.model = f.model and a.setting = f.setting
    where f.setting = 'few_answer' and f.method in ('iro', 'binary', 'fge')
)
select dataset, setting, split, method, judge, model, published, source, metric, value, ci_low, ci_high, n,
       note, comparable, why_not
from published
union all
select dataset, setting, split, method, judge, model, false, 'relreason', metric, value, ci_low, ci_high, n,
       note, why is null, why
from ours
union all
select * from average_rows
union all
select dataset, setting, split, method, judge, model, published, source, metric, value, ci_low, ci_high, n,
       note, why_not is null, why_not
from detection
order by dataset, setting, metric, published desc, method, model
