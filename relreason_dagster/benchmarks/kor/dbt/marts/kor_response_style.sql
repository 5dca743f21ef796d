-- KOR-Bench §5 ("Reasoning Process Performance"): how each model writes its answers, per model x source
-- x setting x category (and overall): visible reasoning, the bare answer, a placeholder ("Hello World",
-- the template's "[[your answer]]") or nothing (kor/analysis.py says how each is read off a response).
-- released: the study's own models read from its released evaluation files (raw.kor_released, judged
-- as Table 2), beside a run's models (released false).  accuracy is the paper's judgement.
with answers as (
    select false as released, model, source, setting, category, style, correct
    from {{ ref('int_kor_answers') }}
    where category in ('operation', 'logic', 'cipher', 'puzzle', 'counterfactual')
    union all
    select true, model, 'official', setting, category, style, coalesce(correct, false)
    from {{ source('raw', 'kor_released') }}
),
agg as (
    select released, model, source, setting, coalesce(category, 'overall') as category,
           count(*) as n,
           count(*) filter (where style = 'reasoning') as n_reasoning,
           count(*) filter (where style = 'answer_only') as n_answer_only,
           count(*) filter (where style = 'placeholder') as n_placeholder,
           count(*) filter (where style = 'empty') as n_empty,
           count(*) filter (where correct) as n_correct
    from answers
    group by grouping sets ((released, model, source, setting, category), (released, model, source, setting))
)
select released, model, source, setting, category, n, n_reasoning, n_answer_only, n_placeholder, n_empty,
       round(n_reasoning::double / n, 4) as reasoning_rate,
       round({{ wilson_low('n_reasoning', 'n') }}, 4) as reasoning_ci_low,
       round({{ wilson_high('n_reasoning', 'n') }}, 4) as reasoning_ci_high,
       round(n_answer_only::double / n, 4) as answer_only_rate,
       round(n_placeholder::double / n, 4) as placeholder_rate,
       round(n_empty::double / n, 4) as empty_rate,
       round(n_correct::double / n, 4) as accuracy
from agg
order by released, model, source, setting, category
