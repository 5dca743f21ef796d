-- Every pair of models on the prompts both answered, per benchmark, task, split and setting: does A beat
-- B on the same questions?  One row per (cell, model_a < model_b).  n shared prompts (each model's
-- answer to draw 0, provider errors excluded); accuracy_a/b and difference = accuracy_a - accuracy_b;
-- a_only / b_only the prompts only A / only B got right, and p_value the exact McNemar test on them
-- (macros/sampling.sql); f1_difference the mean per-prompt F1 of A minus B with a 95% paired bootstrap
-- interval (prompts resampled, both models' answers to a prompt kept together); p_holm the p-value
-- Holm-adjusted over every row of this table (the family of comparisons a reader scans at once).
with scores as (
    select prompt_id, model, benchmark, task, split, setting, correct, f1
    from {{ ref('answer_scores') }}
    -- LLMs only: an answer to a test prompt (a baseline's answers have none).
    where prompt_id in (select prompt_id from {{ ref('stg_prompts') }})
),
pairs as (
    select a.benchmark, a.task, a.split, a.setting, a.model as model_a, b.model as model_b, a.prompt_id,
           a.correct as correct_a, b.correct as correct_b, a.f1 as f1_a, b.f1 as f1_b,
           a.f1 - b.f1 as f1_diff,
           a.benchmark || '|' || a.task || '|' || a.split || '|' || a.setting || '|' || a.model || '|'
               || b.model as pair_key
    from scores a
    join scores b
      on a.prompt_id = b.prompt_id and a.benchmark = b.benchmark and a.task = b.task
     and a.split = b.split and a.setting = b.setting and a.model < b.model
),
agg as (
    select pair_key, benchmark, task, split, setting, model_a, model_b,
           count(*) as n,
           avg(correct_a::int) as accuracy_a,
           avg(correct_b::int) as accuracy_b,
           count(*) filter (where correct_a and not correct_b) as a_only,
           count(*) filter (where correct_b and not correct_a) as b_only,
           avg(f1_a) as f1_a,
           avg(f1_b) as f1_b
    from pairs
    group by all
),
ci as (
    {{ bootstrap_ci('pairs', ['pair_key'], 'f1_diff', 'prompt_id') }}
),
tested as (
    select agg.*, {{ mcnemar_p('a_only', 'b_only') }} as p_value, ci.ci_low, ci.ci_high
    from agg join ci using (pair_key)
),
holm as (
    select *,
           least(1.0, (count(*) over () - row_number() over (order by p_value, pair_key) + 1) * p_value)
               as _step
    from tested
)
select benchmark, task, split, setting, model_a, model_b, n,
       round(accuracy_a, 4) as accuracy_a, round(accuracy_b, 4) as accuracy_b,
       round(accuracy_a - accuracy_b, 4) as difference,
       a_only, b_only,
       round(p_value, 6) as p_value,
       round(max(_step) over (order by p_value, pair_key rows between unbounded preceding and current row), 6)
           as p_holm,
       round(f1_a - f1_b, 4) as f1_difference,
       round(ci_low, 4) as f1_ci_low,
       round(ci_high, 4) as f1_ci_high
from holm
order by benchmark, task, split, setting, model_a, model_b
