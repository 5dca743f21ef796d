-- One row per scored answer (provider errors excluded: they are no answer, see parse_rate).
-- f1: per-sample F1 over the target's true cells; an unreadable (na) or refused answer scores 0,
-- an empty prediction for an empty gold scores 1.
select a.prompt_id, a.model, a.benchmark, a.task, a.split, a.setting, a.sample_id, a.parse_status,
       coalesce(a.tp, 0) as tp, coalesce(a.fp, 0) as fp, coalesce(a.fn, 0) as fn,
       case
           when a.parse_status <> 'ok' then 0.0
           when coalesce(a.tp, 0) + coalesce(a.fp, 0) + coalesce(a.fn, 0) = 0 then 1.0
           else 2.0 * a.tp / (2.0 * a.tp + a.fp + a.fn)
       end as f1,
       coalesce(a.correct, false) as correct,
       a.pred_pos, s.gold_pos, s.n_cells, s.label,
       a.n_cells as answer_cells  -- 0: the answer predicts no label (FLenQA next-word)
from {{ ref('stg_parsed_answers') }} a
join {{ ref('stg_samples') }} s using (sample_id)
where a.parse_status <> 'error'
