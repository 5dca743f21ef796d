-- Every scored draw of every LLM answer to a test prompt (a baseline's answers are not draws): draw 0 from the parsed answers (the answer
-- every other mart reads) and draws 1 .. K-1 of `relreason run --samples K` from raw.parsed_draws,
-- scored exactly as answer_scores scores (correct; F1 over cells, 0 for an unreadable answer).
-- Provider errors are no answer and are left out, as in answer_scores.  `answer` is the parsed answer
-- as text, what maj@k votes on.
with draws as (
    select prompt_id, model, benchmark, task, split, setting, sample_id, 0 as sample_index,
           parse_status, parsed, tp, fp, fn, correct
    from {{ ref('stg_parsed_answers') }}
    where not baseline
    union all
    select d.prompt_id, d.model, d.benchmark, d.task, d.split, d.setting, d.sample_id, d.sample_index,
           d.parse_status, d.parsed, d.tp, d.fp, d.fn, d.correct
    from {{ source('raw', 'parsed_draws') }} d
    join {{ source('raw', 'prompts') }} p using (prompt_id)
    where p.kind = 'test'
)
select prompt_id, model, benchmark, task, split, setting, sample_id, sample_index, parse_status,
       case when parse_status = 'ok' then parsed::varchar end as answer,
       coalesce(correct, false) as correct,
       case
           when parse_status <> 'ok' then 0.0
           when coalesce(tp, 0) + coalesce(fp, 0) + coalesce(fn, 0) = 0 then 1.0
           else 2.0 * tp / (2.0 * tp + fp + fn)
       end as f1
from draws
where parse_status <> 'error'
