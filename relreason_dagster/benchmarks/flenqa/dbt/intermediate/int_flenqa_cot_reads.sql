-- FLenQA CoT answers with §7's reads of the text each source names: one row per answer and source
-- ('answer' | 'trace', the profile's reasoning_source; stg_flenqa_trace_reads).  A model the step has
-- not read (a home filled before it existed, or by hand) keeps its answer rows from the parser's detail:
-- the same functions on the same text, so the study's §7 numbers never depend on the step having run.
-- reading: the rules the reads used ('study', the study's notebook, or 'relreason'; the profile's knob).
with reads as (
    select prompt_id, model, source, answer_first, keys_covered, reading
    from {{ ref('stg_flenqa_trace_reads') }}
),
answers as (
    select * from {{ ref('int_flenqa_answers') }} where setting = 'cot'
)
select a.prompt_id, a.model, a.task, a.length, a.padding, a.position, a.item_source, a.correct,
       r.source, r.reading, r.answer_first, r.keys_covered
from answers a
join reads r using (prompt_id, model)
union all
select a.prompt_id, a.model, a.task, a.length, a.padding, a.position, a.item_source, a.correct,
       'answer' as source, a.reading, a.answer_first, a.keys_covered
from answers a
where a.model not in (select distinct model from reads)
