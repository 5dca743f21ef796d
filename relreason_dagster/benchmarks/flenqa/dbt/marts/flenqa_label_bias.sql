-- §7 failure modes by input length: label bias and refusals, per model x prompt x length.
-- false_share: "False" answers among answered ones (the truth is exactly 50%);
-- false_bias = false_share - 0.5 (> 0: the model leans to "False");
-- refusal_rate: responses with neither "true" nor "false", among all.
with agg as (
    select model, setting, length,
           count(*) as n,
           count(*) filter (where answer = 'true') as n_true,
           count(*) filter (where answer = 'false') as n_false,
           count(*) filter (where answer = 'refused') as n_refused,
           count(*) filter (where not label) as n_gold_false
    from {{ ref('int_flenqa_answers') }}
    where setting in ('direct', 'cot')
    group by model, setting, length
)
select model, setting, length, n, n_true, n_false, n_refused,
       round(n_gold_false::double / n, 4) as gold_false_share,
       round(n_false::double / nullif(n_true + n_false, 0), 4) as false_share,
       round(n_false::double / nullif(n_true + n_false, 0) - 0.5, 4) as false_bias,
       round({{ wilson_low('n_false', '(n_true + n_false)') }}, 4) as false_ci_low,
       round({{ wilson_high('n_false', '(n_true + n_false)') }}, 4) as false_ci_high,
       round(n_refused::double / n, 4) as refusal_rate,
       round({{ wilson_low('n_refused', 'n') }}, 4) as refusal_ci_low,
       round({{ wilson_high('n_refused', 'n') }}, 4) as refusal_ci_high
from agg
order by model, setting, length
