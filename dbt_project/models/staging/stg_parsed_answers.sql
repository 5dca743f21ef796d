-- Only answers to prompts that still exist (a profile switch leaves old rows behind, unreported).
select a.prompt_id, a.model, a.sample_id, a.benchmark, a.task, a.split, a.setting, a.parse_status,
       a.parsed, a.tp, a.fp, a.fn, a.pred_pos, a.n_cells, a.correct, a.detail
from {{ source('raw', 'parsed_answers') }} a
join {{ source('raw', 'prompts') }} p using (prompt_id)
