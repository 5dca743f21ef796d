-- KOR-Bench accuracy per model x source x setting x category x rule x answer format (NR, ME, TR, MC,
-- SD; see benchmarks/kor/formats.py), 95% Wilson CI; accuracy by the paper's judgement, robust_accuracy
-- by the robust scorer (see kor_accuracy); n_cut: answers the token or thinking budget stopped
-- (macros/cut.sql), scored as parsed.
with agg as (
    select model, source, setting, category, rule_id, answer_format,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where cut) as n_cut,
           count(*) filter (where robust_correct) as n_robust_correct
    from {{ ref('int_kor_answers') }}
    where category not in ('mixed', 'cipher_step')
    group by model, source, setting, category, rule_id, answer_format
)
select model, source, setting, category, rule_id, answer_format, n, n_correct, n_cut,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high,
       round(n_robust_correct::double / n, 4) as robust_accuracy
from agg
order by model, source, setting, category, try_cast(rule_id as integer), rule_id, answer_format
