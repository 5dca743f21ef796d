-- The symbolic step checker's verdict on each relational chain-of-thought response (category RR, WW,
-- type1, type2, type3, or unchecked when no stated fact could be checked), on current test prompts only,
-- one row per text read: source 'answer' (the response's content) or 'trace' (its reasoning trace), as
-- the relational knob reasoning_source chose.  Derived claims restate no base fact of the prompt.
select c.prompt_id, c.model, c.source, c.task, c.split, c.setting, c.correct, c.n_steps, c.n_claims,
       c.n_checked, c.n_false, c.n_contradictions, c.n_derived, c.n_false_derived, c.n_unsupported_derived,
       c.category, c.self_contra, c.detail
from {{ source('raw', 'cot_checks') }} c
join {{ source('raw', 'prompts') }} p using (prompt_id)
where p.kind = 'test'
