-- KOR-Bench answers of current prompts with the item facts the marts group by: source (official |
-- generated), rule, answer format, mixed setting; the official scorer's verdict on the same response,
-- whether a counterfactual answer is the real-life one, and per-question passes of mixed records.
-- Provider errors are left out.
select a.prompt_id, a.model, a.sample_id, a.task as category, a.split as source, a.setting,
       a.parse_status, coalesce(a.correct, false) as correct,
       json_extract_string(a.variant, '$.rule_id') as rule_id,
       json_extract_string(a.variant, '$.answer_format') as answer_format,
       json_extract_string(a.variant, '$.mixed_setting') as mixed_setting,
       cast(json_extract(a.detail, '$.official') as boolean) as official_correct,
       cast(json_extract(a.detail, '$.real_life') as boolean) as real_life,
       cast(json_extract(a.detail, '$.n_questions') as integer) as n_questions,
       cast(json_extract(a.detail, '$.n_passed') as integer) as n_passed
from {{ ref('int_answers') }} a
where a.benchmark = 'kor' and a.parse_status <> 'error'
