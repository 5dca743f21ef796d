-- FLenQA prompts each model left out because they do not fit its context window with their max_tokens
-- (relreason run --skip-too-long), per model x task x prompt x length x padding x position: the cells of
-- flenqa_accuracy a model could not be asked.  Never sent, so absent from the accuracy marts' n.
select t.model, p.task, p.setting,
       coalesce(json_extract(s.variant, '$.length')::integer, 0) as length,
       json_extract_string(s.variant, '$.padding') as padding,
       json_extract_string(s.variant, '$.position') as position,
       count(*) as n_too_long,
       max(t.context_window) as context_window,
       max(t.needed_tokens) as max_needed_tokens
from {{ source('raw', 'too_long') }} t
join {{ ref('stg_prompts') }} p using (prompt_id)
join {{ ref('stg_samples') }} s using (sample_id)
where p.benchmark = 'flenqa'
group by all
order by t.model, p.task, p.setting, length, padding, position
