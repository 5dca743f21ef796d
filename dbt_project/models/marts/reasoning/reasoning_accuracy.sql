-- Accuracy against reasoning tokens, per family (benchmark) x model x reasoning-token bin: does a model
-- that thinks longer get more right, or does long thinking mark the items it fails?  Every draw whose
-- response has a trace enters (reasoning_answers: all K draws of --samples K, issue 55 item 5).  Bins
-- are fixed and log-spaced (macros/reasoning_bins.sql: [0, 64), [64, 256), ... [16384, inf)), the same
-- lengths for every model and family; an empty bin has no row.  accuracy has a 95% Wilson interval
-- clustered by prompt: the draws of one prompt are not independent, so the interval is Wilson's on the
-- effective size answered / design_effect (macros/sampling.sql); with one draw per prompt it is the plain
-- Wilson interval.  Unreadable, refused and incomplete answers count as wrong; n_cut counts the draws
-- the token or thinking budget stopped (macros/cut.sql), scored as parsed.
-- reasoning_tokens_source: how the family x model's tokens were counted (provider, tokenizer, or mixed
-- when some of its responses had a provider count and others did not).
with sources as (
    select benchmark, model,
           case when min(reasoning_tokens_source) = max(reasoning_tokens_source)
                then min(reasoning_tokens_source) else 'mixed' end as reasoning_tokens_source
    from {{ ref('reasoning_answers') }}
    group by benchmark, model
),
per_prompt as (
    select benchmark, model, bin, prompt_id,
           count(*) as n_i,
           count(*) filter (where correct) as k_i
    from {{ ref('reasoning_answers') }}
    group by benchmark, model, bin, prompt_id
),
clusters as (
    select benchmark, model, bin,
           count(*) as n_prompts,
           sum(k_i * k_i)::double as s_kk, sum(k_i * n_i)::double as s_kn, sum(n_i * n_i)::double as s_nn
    from per_prompt
    group by benchmark, model, bin
),
agg as (
    select benchmark, model, bin, min(bin_low) as bin_low, min(bin_high) as bin_high,
           count(*) as answered,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status <> 'ok') as n_na,
           count(*) filter (where cut) as n_cut,
           median(reasoning_tokens) as median_reasoning_tokens
    from {{ ref('reasoning_answers') }}
    group by benchmark, model, bin
),
effective as (
    select a.*, c.n_prompts,
           a.answered / {{ design_effect('a.answered', 'a.n_correct', 'c.n_prompts', 'c.s_kk', 'c.s_kn', 'c.s_nn') }}
               as n_eff
    from agg a
    join clusters c using (benchmark, model, bin)
)
select a.benchmark, a.model, s.reasoning_tokens_source, a.bin, a.bin_low, a.bin_high,
       a.bin_low::varchar || case when a.bin_high is null then '+' else '-' || (a.bin_high - 1)::varchar end
           as bin_label,
       a.answered, a.n_prompts, a.n_correct, a.n_na, a.n_cut,
       round(a.n_correct::double / a.answered, 4) as accuracy,
       round({{ wilson_low('(a.n_correct::double / a.answered * a.n_eff)', 'a.n_eff') }}, 4) as ci_low,
       round({{ wilson_high('(a.n_correct::double / a.answered * a.n_eff)', 'a.n_eff') }}, 4) as ci_high,
       a.median_reasoning_tokens
from effective a
join sources s using (benchmark, model)
order by a.benchmark, a.model, a.bin
