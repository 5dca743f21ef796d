-- KOR-Bench self-correction rounds of current questions: round 0 is the zero-shot answer, round k the
-- answer after k official follow-ups; provider errors are left out (the round did not happen).
-- correct is the paper's judgement (what decides "still wrong"), robust_correct the robust scorer's.
select r.model, r.sample_id, r.round, r.prompt_id, r.parent_prompt_id, r.task as category,
       r.split as source, r.rule_id, r.parse_status, coalesce(r.correct, false) as correct, r.reason, r.history,
       coalesce(r.robust_correct, false) as robust_correct
from {{ source('raw', 'kor_rounds') }} r
join {{ source('raw', 'samples') }} s using (sample_id)
where r.parse_status <> 'error'
