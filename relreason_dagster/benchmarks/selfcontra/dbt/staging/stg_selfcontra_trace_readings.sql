-- The referent each Self-Contra response's reasoning trace reaches (its last explicit referent statement,
-- parsing.trace_referent) beside the candidate its scored answer names; rows only for the models whose
-- trace the knob reasoning_source reads.  Read by marts.selfcontra_trace_vs_answer, never scored.
select r.prompt_id, r.model, r.dataset, r.setting, r.has_trace, r.trace_index, r.trace_referent,
       r.trace_correct, r.answer_index, r.answer_status, r.correct
from {{ source('raw', 'selfcontra_trace_readings') }} r
join {{ source('raw', 'prompts') }} p using (prompt_id)
where p.kind = 'test'
