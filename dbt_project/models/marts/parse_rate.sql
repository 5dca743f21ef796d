-- How many responses could be read: ok / (ok + na + refused); provider errors are counted apart (n_error).
-- refused: answers a family reads as refusals (e.g. neither "true" nor "false" to a True/False question).
-- n_cut: replies the token or thinking budget stopped (macros/cut.sql), counted in ok/na/refused as parsed.
with agg as (
    select a.benchmark, a.model, a.task, a.setting,
           count(*) as n,
           count(*) filter (where parse_status = 'ok') as n_ok,
           count(*) filter (where parse_status = 'na') as n_na,
           count(*) filter (where parse_status = 'refused') as n_refused,
           count(*) filter (where parse_status = 'error') as n_error,
           count(*) filter (where {{ is_cut('r.finish_reason', 'r.content', 'r.reasoning', 'r.error') }}) as n_cut
    from {{ ref('stg_parsed_answers') }} a
    left join {{ ref('stg_responses') }} r on r.prompt_id = a.prompt_id and r.model = a.model
    group by a.benchmark, a.model, a.task, a.setting
)
select benchmark, model, task, setting, n, n_ok, n_na, n_refused, n_error, n_cut,
       round(n_ok::double / nullif(n_ok + n_na + n_refused, 0), 4) as parse_rate,
       round({{ wilson_low('n_ok', '(n_ok + n_na + n_refused)') }}, 4) as ci_low,
       round({{ wilson_high('n_ok', '(n_ok + n_na + n_refused)') }}, 4) as ci_high
from agg
order by benchmark, model, task, setting
