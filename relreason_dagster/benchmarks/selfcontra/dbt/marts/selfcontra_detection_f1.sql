-- §4 / Table 6 (left half): Self-Contra detection scored against the human labels, per
-- method x judge x dataset x split x setting x judged model.  setting is the prompt setting of the
-- judged responses (Table 6 scores §3's Few-shot (A) responses: its comparison reads few_answer only).  Methods: a judge model's iro | binary | fge
-- verdicts on imported annotations, and 'human': a second annotation file of the same responses
-- (selfcontra_annotation_pairs; judge = that file, scored against the file imported first), the study's
-- human baseline (§4.1, F1 0.667).  Unparsed verdicts count as "not Self-Contra" in precision/recall
-- (the judge failed to flag) and are reported in n_unparsed.
with joined as (
    select d.method, d.judge, a.dataset, a.split, a.setting, a.model,
           coalesce(d.self_contra, false) as predicted, a.self_contra as actual, d.status
    from {{ ref('stg_detections') }} d
    join {{ ref('stg_annotations') }} a on d.target_kind = 'annotation' and d.target_id = a.annotation_id
    union all
    select 'human', other_source, dataset, split, setting, model, other_self_contra, reference_self_contra, 'ok'
    from {{ ref('selfcontra_annotation_pairs') }}
),
agg as (
    select method, judge, dataset, split, setting, model,
           count(*) as n,
           count(*) filter (where status = 'unparsed') as n_unparsed,
           count(*) filter (where predicted and actual) as tp,
           count(*) filter (where predicted and not actual) as fp,
           count(*) filter (where not predicted and actual) as fn,
           count(*) filter (where not predicted and not actual) as tn
    from joined
    group by method, judge, dataset, split, setting, model
)
select method, judge, dataset, split, setting, model, n, n_unparsed, tp, fp, fn, tn,
       round(tp::double / nullif(tp + fp, 0), 4) as precision,
       round(tp::double / nullif(tp + fn, 0), 4) as recall,
       round(coalesce(2.0 * tp / nullif(2 * tp + fp + fn, 0), 0), 4) as f1
from agg
order by method, judge, dataset, split nulls first, setting, model
