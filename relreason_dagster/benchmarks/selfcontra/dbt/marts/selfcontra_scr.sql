-- §2.4 / Table 2: accuracy and Self-Contra rate (SCR = #Self-Contra / #total) from human labels, per
-- dataset x split x model x setting, with 95% Wilson intervals and the type counts (Figures 3-4).
-- setting is zero_answer | zero_reason | few_answer | few_reason (answer-first A, reason-first R); split
-- is NULL for the study's section-2 files (Tables 2 and 8 name none) and anti_test / pro_test for its
-- section-3 WinoBias files (Table 5), so the two samples of the same model never pool; labels of our own
-- responses (export-annotations, filled in) carry the item's split (anti_test / pro_test), so pro and
-- anti never pool either.  labels: 'imported' (a file of labels on responses relreason did not make,
-- such as the study's) or 'ours' (labels on our own responses: the row names the response);
-- selection: for ours, which items the run asked (study / first / generated), NULL for imported.
with labelled as (
    select an.annotation_id, an.dataset, coalesce(an.split, x.split) as split, an.model, an.setting,
           an.correct, an.self_contra, an.type,
           case when x.prompt_id is null then 'imported' else 'ours' end as labels,
           x.selection
    from {{ ref('stg_annotations') }} an
    left join {{ ref('int_selfcontra_answers') }} x on x.prompt_id = an.prompt_id and x.model = an.model
    -- a response a second file labels again in the same group counts once (selfcontra_annotation_pairs)
    where an.annotation_id not in (
        select other_id from {{ ref('selfcontra_annotation_pairs') }} where same_group
    )
),
agg as (
    select dataset, split, model, setting, labels, selection,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where self_contra) as n_self_contra,
           count(*) filter (where type = 'type1') as n_type1,
           count(*) filter (where type = 'type2') as n_type2,
           count(*) filter (where type = 'type3') as n_type3,
           count(*) filter (where type = 'RR') as n_rr,
           count(*) filter (where type = 'WW') as n_ww
    from labelled
    group by dataset, split, model, setting, labels, selection
)
select dataset, split, model, setting, labels, selection, n,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as accuracy_ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as accuracy_ci_high,
       n_self_contra,
       round(n_self_contra::double / n, 4) as scr,
       round({{ wilson_low('n_self_contra', 'n') }}, 4) as scr_ci_low,
       round({{ wilson_high('n_self_contra', 'n') }}, 4) as scr_ci_high,
       n_type1, n_type2, n_type3, n_rr, n_ww
from agg
order by dataset, split nulls first, model, setting
