-- §4 / Table 6: a judge's Self-Contra detection scored against the human labels, per
-- method x judge x dataset x judged model.  Unparsed verdicts count as "not Self-Contra" in
-- precision/recall (the judge failed to flag) and are reported in n_unparsed.
with joined as (
    select d.method, d.judge, a.dataset, a.model,
           coalesce(d.self_contra, false) as predicted, a.self_contra as actual, d.status
    from {{ ref('stg_detections') }} d
    join {{ ref('stg_annotations') }} a on d.target_kind = 'annotation' and d.target_id = a.annotation_id
),
agg as (
    select method, judge, dataset, model,
           count(*) as n,
           count(*) filter (where status = 'unparsed') as n_unparsed,
           count(*) filter (where predicted and actual) as tp,
           count(*) filter (where predicted and not actual) as fp,
           count(*) filter (where not predicted and actual) as fn,
           count(*) filter (where not predicted and not actual) as tn
    from joined
    group by method, judge, dataset, model
)
select method, judge, dataset, model, n, n_unparsed, tp, fp, fn, tn,
       round(tp::double / nullif(tp + fp, 0), 4) as precision,
       round(tp::double / nullif(tp + fn, 0), 4) as recall,
       round(coalesce(2.0 * tp / nullif(2 * tp + fp + fn, 0), 0), 4) as f1
from agg
order by method, judge, dataset, model
