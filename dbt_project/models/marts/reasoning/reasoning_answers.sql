{{ config(materialized='view') }}
-- One row per scored draw whose response carries a reasoning trace: its score beside its reasoning tokens
-- and their bin.  Every draw of `relreason run --samples K` (int_draw_scores: draw 0 from the parsed
-- answers, draws 1 .. K-1 from raw.parsed_draws, scored alike), so K draws are K points of accuracy
-- against thinking (issue 55, item 5); the marts on it cluster their intervals by prompt, since the
-- draws of one prompt are not independent.  Provider errors are excluded; unreadable, refused and
-- incomplete answers count as not correct; cut says the budget stopped the reply (macros/cut.sql).
-- A view, so it copies nothing.
select s.benchmark, s.model, s.task, s.split, s.setting, s.prompt_id, s.sample_id, s.sample_index,
       s.parse_status, s.correct, t.cut,
       t.reasoning_tokens, t.reasoning_tokens_source,
       {{ reasoning_bin('t.reasoning_tokens') }}.bin as bin,
       {{ reasoning_bin('t.reasoning_tokens') }}.low as bin_low,
       {{ reasoning_bin('t.reasoning_tokens') }}.high as bin_high
from {{ ref('int_draw_scores') }} s
join {{ ref('int_reasoning_tokens') }} t using (prompt_id, model, sample_index)
