-- The relational study's metric per model x task x split x setting: mean per-sample F1 with a 95%
-- bootstrap interval over answers, and the study's N/A rule (int_relational_answers says what makes an
-- answer incomplete: cut at max_tokens, over the context window, no complete output array).
--   na_cell              true when every answer of the cell is incomplete: the study prints N/A there, so
--                        f1 (and its interval) is null, never 0.
--   incomplete_share     incomplete answers / n, for every cell (0.1: one answer in ten incomplete).
--   f1_all_answers       F1 over all n answers, an incomplete one scored as parsed (unreadable or over the
--                        context: 0); f1 is this number, unless the cell is N/A.
--   f1_complete_answers  F1 over the complete answers only (null when there are none).
-- n counts the answers (context overflows included, other provider errors not: n_error counts every
-- provider error); n_na the unreadable ones (parse_status 'na'); n_cut the ones the token or thinking
-- budget stopped (macros/cut.sql), scored as parsed (the study's N/A rule above is unchanged).
with scores as (
    select * from {{ ref('int_relational_answers') }}
),
agg as (
    select model, task, split, setting,
           count(*) as n,
           count(*) filter (where parse_status = 'na') as n_na,
           count(*) filter (where cut) as n_cut,
           count(*) filter (where incomplete) as n_incomplete,
           count(*) filter (where incomplete_reason = 'max_tokens') as n_max_tokens,
           count(*) filter (where incomplete_reason = 'context_overflow') as n_context_overflow,
           avg(f1) as f1_all_answers,
           avg(f1) filter (where not incomplete) as f1_complete_answers,
           case when sum(tp) = 0 and sum(fp) + sum(fn) = 0 then 1.0
                else 2.0 * sum(tp) / nullif(2.0 * sum(tp) + sum(fp) + sum(fn), 0) end as f1_micro
    from scores group by model, task, split, setting
),
ci as (
    {{ bootstrap_ci('scores', ['model', 'task', 'split', 'setting'], 'f1', 'prompt_id') }}
),
errors as (
    select model, task, split, setting, count(*) as n_error
    from {{ ref('stg_parsed_answers') }}
    where benchmark = 'relational' and parse_status = 'error'
    group by model, task, split, setting
)
select agg.model, agg.task, agg.split, agg.setting, agg.n, agg.n_na, agg.n_cut, coalesce(errors.n_error, 0) as n_error,
       case when agg.n_incomplete = agg.n then null else round(agg.f1_all_answers, 4) end as f1,
       case when agg.n_incomplete = agg.n then null else round(ci.ci_low, 4) end as ci_low,
       case when agg.n_incomplete = agg.n then null else round(ci.ci_high, 4) end as ci_high,
       case when agg.n_incomplete = agg.n then null else round(agg.f1_micro, 4) end as f1_micro,
       agg.n_incomplete = agg.n as na_cell,
       agg.n_incomplete, agg.n_max_tokens, agg.n_context_overflow,
       round(agg.n_incomplete::double / agg.n, 4) as incomplete_share,
       round(agg.f1_all_answers, 4) as f1_all_answers,
       round(agg.f1_complete_answers, 4) as f1_complete_answers
from agg
join ci using (model, task, split, setting)
left join errors using (model, task, split, setting)
order by agg.model, agg.task, agg.split, agg.setting
