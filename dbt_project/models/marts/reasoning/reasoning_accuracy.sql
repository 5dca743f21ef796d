-- Accuracy against reasoning tokens, per family (benchmark) x model x reasoning-token bin: does a model
-- that thinks longer get more right, or does long thinking mark the items it fails?  Only answers whose
-- response has a trace enter (reasoning_answers).  Bins are fixed and log-spaced (macros/reasoning_bins.sql:
-- [0, 64), [64, 256), ... [16384, inf)), the same lengths for every model and family; an empty bin has
-- no row.  accuracy has a 95% Wilson interval; unreadable, refused and incomplete answers count as wrong.
-- reasoning_tokens_source: how the family x model's tokens were counted (provider, tokenizer, or mixed
-- when some of its responses had a provider count and others did not).
with sources as (
    select benchmark, model,
           case when min(reasoning_tokens_source) = max(reasoning_tokens_source)
                then min(reasoning_tokens_source) else 'mixed' end as reasoning_tokens_source
    from {{ ref('reasoning_answers') }}
    group by benchmark, model
),
agg as (
    select benchmark, model, bin, min(bin_low) as bin_low, min(bin_high) as bin_high,
           count(*) as answered,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status <> 'ok') as n_na,
           median(reasoning_tokens) as median_reasoning_tokens
    from {{ ref('reasoning_answers') }}
    group by benchmark, model, bin
)
select a.benchmark, a.model, s.reasoning_tokens_source, a.bin, a.bin_low, a.bin_high,
       a.bin_low::varchar || case when a.bin_high is null then '+' else '-' || (a.bin_high - 1)::varchar end
           as bin_label,
       a.answered, a.n_correct, a.n_na,
       round(a.n_correct::double / a.answered, 4) as accuracy,
       round({{ wilson_low('a.n_correct', 'a.answered') }}, 4) as ci_low,
       round({{ wilson_high('a.n_correct', 'a.answered') }}, 4) as ci_high,
       a.median_reasoning_tokens
from agg a
join sources s using (benchmark, model)
order by a.benchmark, a.model, a.bin
