-- §4.2 / Table 6 (right half): how well each FGE probe finds its finer-grained category, over every
-- judged annotation (Self-Contra or not), per judge x dataset x split x setting x judged model x
-- category (setting: the judged responses' prompt setting; Table 6 used Few-shot (A)).
-- A probe's answer is stored in the detection's probes (qc, bq, wck, sc); the human label is the
-- category on the annotation (self-contradiction: the category or a type3 annotation).  An unreadable
-- probe answer counts as "not flagged" and in n_unparsed.  f1 is NULL when the data hold no case of the
-- category (Table 6's "-").
with fge as (
    select d.judge, a.dataset, a.split, a.setting, a.model, d.probes, a.type,
           from_json(coalesce(a.categories, '[]'), '["VARCHAR"]') as cats
    from {{ ref('stg_detections') }} d
    join {{ ref('stg_annotations') }} a on d.target_kind = 'annotation' and d.target_id = a.annotation_id
    where d.method = 'fge'
),
probed as (
    select f.judge, f.dataset, f.split, f.setting, f.model, p.category,
           try_cast(json_extract_string(f.probes, '$.' || p.probe) as boolean) as flagged,
           case when p.probe = 'sc' then list_contains(f.cats, p.category) or f.type = 'type3'
                else list_contains(f.cats, p.category) end as actual
    from fge f,
         (values ('qc', 'questionable_cause'), ('bq', 'begging_the_question'),
                 ('wck', 'wrong_context_knowledge'), ('sc', 'self_contradictory')) as p(probe, category)
),
agg as (
    select judge, dataset, split, setting, model, category,
           count(*) as n,
           count(*) filter (where flagged is null) as n_unparsed,
           count(*) filter (where flagged and actual) as tp,
           count(*) filter (where flagged and not actual) as fp,
           count(*) filter (where not coalesce(flagged, false) and actual) as fn,
           count(*) filter (where not coalesce(flagged, false) and not actual) as tn
    from probed
    group by judge, dataset, split, setting, model, category
)
select judge, dataset, split, setting, model, category, n, n_unparsed, tp, fp, fn, tn,
       round(tp::double / nullif(tp + fp, 0), 4) as precision,
       round(tp::double / nullif(tp + fn, 0), 4) as recall,
       case when tp + fn = 0 then null
            else round(2.0 * tp / (2 * tp + fp + fn), 4) end as f1
from agg
order by judge, dataset, split nulls first, setting, model, category
