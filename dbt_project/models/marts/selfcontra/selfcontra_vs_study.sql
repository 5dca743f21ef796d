-- Self-Contra: our models beside the study's Tables 2 (answer-first) and 8 (reason-first), one long row
-- per dataset x setting x method x judge x model x metric (accuracy, scr).
-- Comparable with the tables are the rows with method = 'human': the study's numbers count its
-- annotators' labels, and marts.selfcontra_scr counts the same kind of labels (the study's released
-- annotations imported, or our own responses labelled by hand after export-annotations).  Rows with a
-- judge method (iro, binary, fge) come from marts.selfcontra_judged: accuracy from our parser, scr as
-- the judge labels it, an estimate of the human-labelled rate only as good as the judge (Table 6).
-- split is the published row's (Tables 2 and 8 name none) or, for human rows, the imported file's
-- (anti_test / pro_test for the study's section-3 files, which selfcontra_scr keeps apart).
with published as (
    select dataset, setting, split,
           coalesce(keys ->> 'method', 'human') as method,
           keys ->> 'judge' as judge,
           model, true as published, source, metric, value,
           null::double as ci_low, null::double as ci_high, null::bigint as n, note
    from {{ ref('study_reference') }}
    where family = 'selfcontra' and source in ('Table 2', 'Table 8') and metric in ('accuracy', 'scr')
),
human as (
    select dataset, setting, split, 'human' as method, null::varchar as judge, model,
           false as published, 'relreason' as source, 'accuracy' as metric, accuracy as value,
           accuracy_ci_low as ci_low, accuracy_ci_high as ci_high, n::bigint as n,
           'human labels (marts.selfcontra_scr)' as note
    from {{ ref('selfcontra_scr') }}
    union all
    select dataset, setting, split, 'human', null, model, false, 'relreason', 'scr', scr,
           scr_ci_low, scr_ci_high, n::bigint, 'human labels (marts.selfcontra_scr)'
    from {{ ref('selfcontra_scr') }}
),
judged as (
    select dataset, setting, null::varchar as split, method, judge, model,
           false as published, 'relreason' as source, 'accuracy' as metric, accuracy as value,
           accuracy_ci_low as ci_low, accuracy_ci_high as ci_high, n::bigint as n,
           'parsed answers of the responses this judge labelled (marts.selfcontra_judged)' as note
    from {{ ref('selfcontra_judged') }}
    union all
    select dataset, setting, null, method, judge, model, false, 'relreason', 'scr', judged_scr,
           scr_ci_low, scr_ci_high, n_judged::bigint,
           'labelled by the judge, not by people: the method = human rows are the comparable ones (marts.selfcontra_judged)'
    from {{ ref('selfcontra_judged') }}
)
select * from published
union all
select * from human
union all
select * from judged
order by dataset, setting, metric, published desc, method, model
