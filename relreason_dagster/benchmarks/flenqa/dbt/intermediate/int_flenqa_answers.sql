-- FLenQA answers with the coordinates of their sample (length, padding, position), what the parser
-- read (answer, answer-first, key sentences covered), the rules it read them by (reading: 'study', the
-- study's notebook, or 'relreason'; a row parsed before the knob was read by relreason's) and the
-- prompt's input tokens.  length 0 /
-- padding 'none' is the minimal text (key paragraphs only).  item_source: 'released' for a row of the
-- study's released dataset (profile knob dataset_file) or its minimal text read from them,
-- 'released-keys' for duplicate padding built around its key paragraphs, 'generated' for ours.  cut: the token or thinking
-- budget stopped the reply (int_answers, macros/cut.sql).  Provider errors are left out.
select a.prompt_id, a.model, a.task, a.setting, a.sample_id, a.parse_status, a.correct,
       a.label,
       json_extract_string(a.variant, '$.base_id') as base_id,
       coalesce(json_extract(a.variant, '$.length')::integer, 0) as length,
       json_extract_string(a.variant, '$.padding') as padding,
       json_extract_string(a.variant, '$.position') as position,
       coalesce(json_extract_string(a.variant, '$.source'), 'generated') as item_source,
       json_extract_string(a.detail, '$.answer') as answer,
       coalesce(json_extract_string(a.detail, '$.reading'), 'relreason') as reading,
       json_extract(a.detail, '$.answer_first')::boolean as answer_first,
       json_extract(a.detail, '$.keys_covered')::integer as keys_covered,
       p.input_tokens, a.cut
from {{ ref('int_answers') }} a
join {{ ref('stg_prompts') }} p using (prompt_id)
where a.benchmark = 'flenqa' and a.parse_status <> 'error'
