-- The symbolic step checker's verdict on each relational chain-of-thought response (category RR, WW,
-- type1, type2, type3, or unchecked when no stated fact could be checked), on current test prompts only.
select c.prompt_id, c.model, c.task, c.split, c.setting, c.correct, c.n_steps, c.n_claims, c.n_checked,
       c.n_false, c.n_contradictions, c.category, c.self_contra, c.detail
from {{ source('raw', 'symbolic_checks') }} c
join {{ source('raw', 'prompts') }} p using (prompt_id)
where p.kind = 'test'
