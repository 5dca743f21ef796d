-- Scored answers of current test prompts (a profile switch leaves old rows behind, unreported; follow-up
-- prompts are never answers), plus the baselines' answers on current samples.  A baseline is a non-LLM
-- model a family declares (its family's `baselines`): it reads no prompt, so its rows of parsed_answers
-- have a prompt_id that is no prompt's, and `baseline` marks them for the marts that compare LLMs only.
-- Each baseline's rows are a source its family declares (its sources.yml, asset `<name>_answers`);
-- registered_baselines() lists them, generated from the registry beside the families' linked files
-- (relreason_dagster/defs/dbt_families.py).  The list is a literal, so this loop runs while dbt parses and
-- every source() in it is a recorded dependency; with no baseline registered (or no generated folder)
-- the union is absent and the columns are the same.
{%- set baselines = registered_baselines() if registered_baselines is defined else [] %}
select a.prompt_id, a.model, a.sample_id, a.benchmark, a.task, a.split, a.setting, a.parse_status,
       a.parsed, a.tp, a.fp, a.fn, a.pred_pos, a.n_cells, a.correct, a.detail, false as baseline
from {{ source('raw', 'parsed_answers') }} a
join {{ source('raw', 'prompts') }} p using (prompt_id)
where p.kind = 'test'
{%- for b in baselines %}
union all
select d.prompt_id, d.model, d.sample_id, d.benchmark, d.task, d.split, d.setting, d.parse_status,
       d.parsed, d.tp, d.fp, d.fn, d.pred_pos, d.n_cells, d.correct, d.detail, true as baseline
from {{ source('raw', b.source) }} d
join {{ source('raw', 'samples') }} s using (sample_id)
where d.model = '{{ b.model }}'
  and not exists (select 1 from {{ source('raw', 'prompts') }} p where p.prompt_id = d.prompt_id)
{%- endfor %}
