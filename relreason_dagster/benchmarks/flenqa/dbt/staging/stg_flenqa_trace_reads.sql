-- FLenQA §7 reads (answer before the reasoning, key sentences covered) of each true/false response's
-- answer and/or reasoning trace, one row per source the profile's reasoning_source gives the model
-- (benchmarks/flenqa/steps.py); current test prompts only.  reading: the rules of the read ('study', the
-- study's notebook, or 'relreason'; a row written before the column was read by relreason's).
select t.prompt_id, t.model, t.source, t.setting, t.answer_first, t.keys_covered, t.has_trace,
       coalesce(t.reading, 'relreason') as reading
from {{ source('raw', 'flenqa_trace_reads') }} t
join {{ source('raw', 'prompts') }} p using (prompt_id)
where p.kind = 'test'
