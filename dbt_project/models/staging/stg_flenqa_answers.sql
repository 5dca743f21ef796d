-- FLenQA answers with the coordinates of their sample (length, padding, position) and what the
-- parser read (answer, answer-first, key sentences covered).  length 0 / padding 'none' is the
-- minimal text (key paragraphs only).
select a.prompt_id, a.model, a.task, a.setting, a.sample_id, a.parse_status, a.correct,
       s.label,
       json_extract_string(s.variant, '$.base_id') as base_id,
       coalesce(json_extract(s.variant, '$.length')::integer, 0) as length,
       json_extract_string(s.variant, '$.padding') as padding,
       json_extract_string(s.variant, '$.position') as position,
       json_extract_string(a.detail, '$.answer') as answer,
       json_extract(a.detail, '$.answer_first')::boolean as answer_first,
       json_extract(a.detail, '$.keys_covered')::integer as keys_covered,
       p.input_tokens
from {{ ref('stg_parsed_answers') }} a
join {{ ref('stg_samples') }} s using (sample_id)
join {{ ref('stg_prompts') }} p using (prompt_id)
where a.benchmark = 'flenqa' and a.parse_status <> 'error'
