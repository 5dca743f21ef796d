-- The one place a per-sample score is computed.  Python stores what parsing found (tp, fp, fn, correct,
-- parse_status); every F1 a mart reports is derived here.  One row per answer, provider errors excluded
-- (they are no answer: see parse_rate).  f1: F1 over the target's true cells; an unreadable (na) or
-- refused answer scores 0, an empty prediction for an empty gold scores 1.  detail and parsed are kept
-- for the marts that need the answer's parse facts (a baseline's seed, for one).
select a.prompt_id, a.model, a.benchmark, a.task, a.split, a.setting, a.sample_id, a.parse_status,
       coalesce(a.tp, 0) as tp, coalesce(a.fp, 0) as fp, coalesce(a.fn, 0) as fn,
       case
           when a.parse_status <> 'ok' then 0.0
           when coalesce(a.tp, 0) + coalesce(a.fp, 0) + coalesce(a.fn, 0) = 0 then 1.0
           else 2.0 * a.tp / (2.0 * a.tp + a.fp + a.fn)
       end as f1,
       coalesce(a.correct, false) as correct,
       a.pred_pos, a.gold_pos, a.n_cells, a.label, a.answer_cells, a.parsed, a.detail, a.cut
from {{ ref('int_answers') }} a
where a.parse_status <> 'error'
