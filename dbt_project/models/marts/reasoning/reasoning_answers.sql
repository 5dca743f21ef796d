{{ config(materialized='view') }}
-- One row per scored answer whose response carries a reasoning trace (draw 0): its score beside its
-- reasoning tokens and their bin.  The join of answer_scores (provider errors excluded; unreadable,
-- refused and incomplete answers count as not correct) with int_reasoning_tokens that the two reasoning
-- marts aggregate, written once; a view, so it copies nothing.
select s.benchmark, s.model, s.task, s.split, s.setting, s.prompt_id, s.sample_id, s.parse_status, s.correct,
       t.reasoning_tokens, t.reasoning_tokens_source,
       {{ reasoning_bin('t.reasoning_tokens') }}.bin as bin,
       {{ reasoning_bin('t.reasoning_tokens') }}.low as bin_low,
       {{ reasoning_bin('t.reasoning_tokens') }}.high as bin_high
from {{ ref('answer_scores') }} s
join {{ ref('int_reasoning_tokens') }} t using (prompt_id, model)
