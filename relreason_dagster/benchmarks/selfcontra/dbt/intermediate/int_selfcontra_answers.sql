-- Self-Contra answers with what a comparison needs to know of their item: the WinoBias split
-- (<stereotype>_<source split>: anti_test, pro_test, anti_dev, pro_dev; NULL for the other datasets and
-- for generated items, whose stances are mixed by design) and the item selection the run used (study:
-- the study's own §2 items; first: the first n of each file; generated: built-in items).  Read by
-- selfcontra_judged, selfcontra_scr (our own labelled responses) and selfcontra_vs_study.  cut: the token
-- or thinking budget stopped the reply (int_answers, macros/cut.sql).
select a.prompt_id, a.model, a.sample_id, a.task as dataset, a.setting,
       case when a.task = 'winobias'
            then (a.variant ->> 'stereotype') || '_' || (a.variant ->> 'source_split') end as split,
       coalesce(a.variant ->> 'selection', case when a.task = 'generated' then 'generated' else 'first' end)
           as selection,
       a.parse_status, a.correct, a.cut
from {{ ref('int_answers') }} a
where a.benchmark = 'selfcontra'
