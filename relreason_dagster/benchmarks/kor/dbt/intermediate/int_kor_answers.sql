-- KOR-Bench answers of current prompts with the item facts the marts group by: source (official |
-- generated), rule, answer format, mixed setting.  correct is the paper's judgement (the official scorer
-- with its symbolic step working, as Tables 2 and 3); official_correct the released files' (that step
-- falling back to string equality), robust_correct ours.  real_life: the counterfactual answer is the
-- real-life one (paper's judgement; real_life_robust by the robust scorer); per-question passes of mixed
-- records by both; input / output tokens in cl100k_base (Table 7); §5's readings: the question's
-- direction (Operation), the response's style and a wrong cipher answer's error type (kor/analysis.py).
-- cut: the token or thinking budget stopped the reply (int_answers, macros/cut.sql).  Provider errors
-- are left out.
select a.prompt_id, a.model, a.sample_id, a.task as category, a.split as source, a.setting,
       a.parse_status, coalesce(a.correct, false) as correct,
       json_extract_string(a.variant, '$.rule_id') as rule_id,
       json_extract_string(a.variant, '$.answer_format') as answer_format,
       json_extract_string(a.variant, '$.mixed_setting') as mixed_setting,
       json_extract_string(a.variant, '$.step_type') as step_type,
       cast(json_extract(a.variant, '$.step') as integer) as step,
       json_extract_string(a.variant, '$.direction') as direction,
       json_extract_string(a.detail, '$.style') as style,
       json_extract_string(a.detail, '$.cipher_error') as cipher_error,
       cast(json_extract(a.detail, '$.official') as boolean) as official_correct,
       coalesce(cast(json_extract(a.detail, '$.robust') as boolean), false) as robust_correct,
       cast(json_extract(a.detail, '$.real_life') as boolean) as real_life,
       cast(json_extract(a.detail, '$.real_life_robust') as boolean) as real_life_robust,
       cast(json_extract(a.detail, '$.n_questions') as integer) as n_questions,
       cast(json_extract(a.detail, '$.n_passed') as integer) as n_passed,
       cast(json_extract(a.detail, '$.robust_n_passed') as integer) as robust_n_passed,
       cast(json_extract(a.detail, '$.input_tokens_cl100k') as integer) as input_tokens_cl100k,
       cast(json_extract(a.detail, '$.output_tokens_cl100k') as integer) as output_tokens_cl100k,
       a.cut
from {{ ref('int_answers') }} a
where a.benchmark = 'kor' and a.parse_status <> 'error'
