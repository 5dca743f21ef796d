-- Scored answers of current test prompts (a profile switch leaves old rows behind, unreported; follow-up
-- prompts are never answers), plus the baselines' answers on current samples.  A baseline is a non-LLM
-- model a family declares (its family's `baselines`): it reads no prompt, so its rows of parsed_answers
-- have a prompt_id that is no prompt's, and `baseline` marks them for the marts that compare LLMs only.
select a.prompt_id, a.model, a.sample_id, a.benchmark, a.task, a.split, a.setting, a.parse_status,
       a.parsed, a.tp, a.fp, a.fn, a.pred_pos, a.n_cells, a.correct, a.detail, false as baseline
from {{ source('raw', 'parsed_answers') }} a
join {{ source('raw', 'prompts') }} p using (prompt_id)
where p.kind = 'test'
union all
select d.prompt_id, d.model, d.sample_id, d.benchmark, d.task, d.split, d.setting, d.parse_status,
       d.parsed, d.tp, d.fp, d.fn, d.pred_pos, d.n_cells, d.correct, d.detail, true as baseline
from {{ source('raw', 'baseline_answers') }} d
join {{ source('raw', 'samples') }} s using (sample_id)
where not exists (select 1 from {{ source('raw', 'prompts') }} p where p.prompt_id = d.prompt_id)
