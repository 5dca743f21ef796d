-- Does longer thinking recover accuracy?  Per model x setting x length (every task, padding and
-- position pooled): the answers with a reasoning trace split at that length's median count,
-- "long" (more tokens than the median) against "short" (at most the median), each side's accuracy
-- with its 95% Wilson interval and the difference long - short.  Comparing within one length keeps
-- the input's own effect on accuracy out of the split.  rank_corr_length is Spearman's rank correlation
-- (average ranks for ties) of reasoning tokens with length over all of the model's answers in that
-- setting, the same on every row of the model and setting: does it think longer as the input grows?
with answers as (
    select model, setting, length, correct, reasoning_tokens::double as tokens
    from {{ ref('int_flenqa_reasoning') }}
    where reasoning_tokens is not null
),
ranked as (
    select *,
           median(tokens) over (partition by model, setting, length) as median_at_length,
           rank() over (partition by model, setting order by length)
             + (count(*) over (partition by model, setting, length) - 1) / 2.0 as rank_length,
           rank() over (partition by model, setting order by tokens)
             + (count(*) over (partition by model, setting, tokens) - 1) / 2.0 as rank_tokens
    from answers
),
spearman as (
    select model, setting, corr(rank_tokens, rank_length) as rho, count(*) as n_rho
    from ranked
    group by model, setting
),
split as (
    select model, setting, length,
           count(*) as n,
           any_value(median_at_length) as median_tokens,
           count(*) filter (where tokens > median_at_length) as n_long,
           count(*) filter (where tokens > median_at_length and correct) as n_long_correct,
           count(*) filter (where tokens <= median_at_length) as n_short,
           count(*) filter (where tokens <= median_at_length and correct) as n_short_correct
    from ranked
    group by model, setting, length
)
select s.model, s.setting, s.length, s.n, round(s.median_tokens, 2) as median_reasoning_tokens,
       s.n_long,
       round(s.n_long_correct::double / nullif(s.n_long, 0), 4) as accuracy_long,
       round({{ wilson_low('s.n_long_correct', 's.n_long') }}, 4) as accuracy_long_ci_low,
       round({{ wilson_high('s.n_long_correct', 's.n_long') }}, 4) as accuracy_long_ci_high,
       s.n_short,
       round(s.n_short_correct::double / nullif(s.n_short, 0), 4) as accuracy_short,
       round({{ wilson_low('s.n_short_correct', 's.n_short') }}, 4) as accuracy_short_ci_low,
       round({{ wilson_high('s.n_short_correct', 's.n_short') }}, 4) as accuracy_short_ci_high,
       round(s.n_long_correct::double / nullif(s.n_long, 0)
             - s.n_short_correct::double / nullif(s.n_short, 0), 4) as accuracy_gap,
       round(c.rho, 4) as rank_corr_length,
       c.n_rho
from split s
join spearman c using (model, setting)
order by s.model, s.setting, s.length
