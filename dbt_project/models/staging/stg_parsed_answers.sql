-- Scored answers of current test prompts (a profile switch leaves old rows behind, unreported; follow-up
-- prompts are never answers), plus the DLM's answers on current samples (DLM reads truth-value
-- matrices, not prompts).
select a.prompt_id, a.model, a.sample_id, a.benchmark, a.task, a.split, a.setting, a.parse_status,
       a.parsed, a.tp, a.fp, a.fn, a.pred_pos, a.n_cells, a.correct, a.detail
from {{ source('raw', 'parsed_answers') }} a
join {{ source('raw', 'prompts') }} p using (prompt_id)
where a.model <> 'dlm' and p.kind = 'test'
union all
select d.prompt_id, d.model, d.sample_id, d.benchmark, d.task, d.split, d.setting, d.parse_status,
       d.parsed, d.tp, d.fp, d.fn, d.pred_pos, d.n_cells, d.correct, d.detail
from {{ source('raw', 'dlm_answers') }} d
join {{ source('raw', 'samples') }} s using (sample_id)
where d.model = 'dlm'
