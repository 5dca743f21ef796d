-- App. D's evidence-missing probe (probe_steps.py): per judge x kind of target x dataset x split x setting x
-- judged model, how often the judge finds evidence the reasoning leaves out, and on annotated responses
-- how well that finds the annotators' "evidence missing" category (confusion counts, precision, recall,
-- F1; NULL where the data hold no case, as Table 6's "-").  An unreadable segment reply makes the
-- response unparsed: counted in n_unparsed and as "not flagged".  The paper prints no number for it.
with probes as (
    select e.judge, e.target_kind, e.dataset, a.split, e.setting, e.model, e.status, e.evidence_missing,
           e.n_segments, e.n_mentioned,
           case when e.target_kind = 'annotation'
                then list_contains(from_json(coalesce(a.categories, '[]'), '["VARCHAR"]'), 'evidence_missing')
           end as actual
    from {{ source('raw', 'selfcontra_em_probes') }} e
    left join {{ ref('stg_annotations') }} a
           on e.target_kind = 'annotation' and e.target_id = a.annotation_id
),
agg as (
    select judge, target_kind, dataset, split, setting, model,
           count(*) as n,
           count(*) filter (where status <> 'ok') as n_unparsed,
           count(*) filter (where evidence_missing) as n_flagged,
           sum(n_segments) as n_segments,
           sum(n_mentioned) as n_mentioned,
           count(*) filter (where actual) as n_actual,
           count(*) filter (where evidence_missing and actual) as tp,
           count(*) filter (where evidence_missing and not actual) as fp,
           count(*) filter (where not coalesce(evidence_missing, false) and actual) as fn,
           count(*) filter (where not coalesce(evidence_missing, false) and not actual) as tn
    from probes
    group by judge, target_kind, dataset, split, setting, model
)
select judge, target_kind, dataset, split, setting, model, n, n_unparsed, n_flagged,
       round(n_flagged::double / nullif(n, 0), 4) as flagged_rate,
       n_segments, n_mentioned,
       case when target_kind = 'annotation' then n_actual end as n_actual,
       case when target_kind = 'annotation' then tp end as tp,
       case when target_kind = 'annotation' then fp end as fp,
       case when target_kind = 'annotation' then fn end as fn,
       case when target_kind = 'annotation' then tn end as tn,
       case when target_kind = 'annotation' then round(tp::double / nullif(tp + fp, 0), 4) end as precision,
       case when target_kind = 'annotation' then round(tp::double / nullif(tp + fn, 0), 4) end as recall,
       case when target_kind <> 'annotation' or tp + fn = 0 then null
            else round(2.0 * tp / (2 * tp + fp + fn), 4) end as f1
from agg
order by judge, target_kind, dataset, split nulls first, setting, model
