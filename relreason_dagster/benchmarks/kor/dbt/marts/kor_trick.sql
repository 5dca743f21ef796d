-- KOR-Bench App. F.2: puzzle accuracy without and with the question's trick (the official puzzle prompt
-- with the hint after the question), per model x source, on the puzzle questions the model answered in
-- both settings (paired).  accuracy_* by the paper's judgement (95% Wilson CI), robust_* by the robust
-- scorer; delta = with trick - without.
with pairs as (
    select z.model, z.source, z.sample_id,
           z.correct as plain, t.correct as tricked,
           z.robust_correct as robust_plain, t.robust_correct as robust_tricked
    from {{ ref('int_kor_answers') }} z
    join {{ ref('int_kor_answers') }} t
      on t.model = z.model and t.sample_id = z.sample_id and t.setting = 'trick'
    where z.category = 'puzzle' and z.setting = 'zero_shot'
),
agg as (
    select model, source, count(*) as n,
           count(*) filter (where plain) as n_plain,
           count(*) filter (where tricked) as n_tricked,
           count(*) filter (where robust_plain) as n_robust_plain,
           count(*) filter (where robust_tricked) as n_robust_tricked
    from pairs
    group by model, source
)
select model, source, n,
       round(n_plain::double / n, 4) as accuracy_zero_shot,
       round(n_tricked::double / n, 4) as accuracy_trick,
       round({{ wilson_low('n_tricked', 'n') }}, 4) as trick_ci_low,
       round({{ wilson_high('n_tricked', 'n') }}, 4) as trick_ci_high,
       round((n_tricked - n_plain)::double / n, 4) as delta,
       round(n_robust_plain::double / n, 4) as robust_accuracy_zero_shot,
       round(n_robust_tricked::double / n, 4) as robust_accuracy_trick
from agg
order by model, source
