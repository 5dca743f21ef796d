-- Our own models' Self-Contra responses, labelled by a judge (no human labels needed): accuracy
-- (from the parser), and judged SCR with its types, per model x dataset x split x setting x method x
-- judge.  split keeps WinoBias pro- and anti-stereotype items apart (anti_test / pro_test; NULL for the
-- other datasets), selection says which items the run asked (study / first / generated).
-- judged_scr is over responses with a verdict (n_judged); unparsed verdicts are counted apart.  n_cut:
-- responses the token or thinking budget stopped (macros/cut.sql), scored and judged as they are.
-- source is the text the judge read as the reasoning: 'answer' (the response) or 'trace' (its reasoning
-- trace, beside the same answer; a response without one is in n, with an empty verdict, n_empty).
with agg as (
    select d.model, d.dataset, a.split, a.selection, d.setting, d.method, d.judge, d.source,
           count(*) as n,
           count(*) filter (where a.correct) as n_correct,
           count(*) filter (where a.cut) as n_cut,
           count(*) filter (where d.status = 'ok') as n_judged,
           count(*) filter (where d.status = 'empty') as n_empty,
           count(*) filter (where d.self_contra) as n_self_contra,
           count(*) filter (where d.type = 'type1') as n_type1,
           count(*) filter (where d.type = 'type2') as n_type2,
           count(*) filter (where d.type = 'type3') as n_type3
    from {{ ref('stg_detections') }} d
    join {{ ref('int_selfcontra_answers') }} a on d.target_kind = 'response' and a.prompt_id = d.target_id
        and a.model = d.model
    group by d.model, d.dataset, a.split, a.selection, d.setting, d.method, d.judge, d.source
)
select model, dataset, split, selection, setting, method, judge, source, n,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as accuracy_ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as accuracy_ci_high,
       n_cut, n_judged, n_empty,
       round(n_self_contra::double / nullif(n_judged, 0), 4) as judged_scr,
       round({{ wilson_low('n_self_contra', 'n_judged') }}, 4) as scr_ci_low,
       round({{ wilson_high('n_self_contra', 'n_judged') }}, 4) as scr_ci_high,
       n_type1, n_type2, n_type3
from agg
order by model, dataset, split nulls first, setting, method, judge, source
