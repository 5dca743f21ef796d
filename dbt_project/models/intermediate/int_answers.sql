-- Every staged answer (provider errors included) next to the sample it answers: the join of
-- stg_parsed_answers and stg_samples that answer scores, the per-sample view and the family answer
-- models all start from, written once.  n_cells is the sample's number of cells, answer_cells the
-- answer's (0: the answer predicts no label, e.g. a next-word answer).
select a.prompt_id, a.model, a.benchmark, a.task, a.split, a.setting, a.sample_id, a.parse_status,
       a.parsed, a.tp, a.fp, a.fn, a.pred_pos, a.n_cells as answer_cells, a.correct, a.detail,
       s.gold, s.label, s.gold_pos, s.n_cells, s.variant
from {{ ref('stg_parsed_answers') }} a
join {{ ref('stg_samples') }} s using (sample_id)
