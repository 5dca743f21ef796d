-- Every staged answer (provider errors included) next to the sample it answers: the join of
-- stg_parsed_answers and stg_samples that answer scores, the per-sample view and the family answer
-- models all start from, written once.  n_cells is the sample's number of cells, answer_cells the
-- answer's (0: the answer predicts no label, e.g. a next-word answer).  cut: the reply was stopped by
-- the token or thinking budget (macros/cut.sql, is_cut); a baseline reads no prompt and is never cut.
select a.prompt_id, a.model, a.benchmark, a.task, a.split, a.setting, a.sample_id, a.parse_status,
       a.parsed, a.tp, a.fp, a.fn, a.pred_pos, a.n_cells as answer_cells, a.correct, a.detail,
       s.gold, s.label, s.gold_pos, s.n_cells, s.variant,
       coalesce({{ is_cut('r.finish_reason', 'r.content', 'r.reasoning', 'r.error') }}, false) as cut
from {{ ref('stg_parsed_answers') }} a
join {{ ref('stg_samples') }} s using (sample_id)
left join {{ ref('stg_responses') }} r on r.prompt_id = a.prompt_id and r.model = a.model
