-- Per family (benchmark) x model: Spearman's rank correlation between an answer's reasoning tokens and
-- whether it is correct (1/0), with its two-sided p-value, over every draw whose response has a trace
-- (reasoning_answers: all K draws of --samples K, issue 55 item 5).
-- Ranks are averaged over ties (macros/rank_correlation.sql, avg_rank); rho is Pearson's r on the ranks;
-- the p-value uses the t-distribution with n - 2 degrees of freedom (spearman_p), the approximation
-- scipy.stats.spearmanr uses, with n the prompts answered (n_prompts), not the draws: the K draws of one
-- prompt are not K independent answers, so counting them would shrink the p-value without new
-- information (with one draw per prompt, n_prompts = answered and the p-value is as before).
-- rho > 0: longer thinking goes with right answers; rho < 0: with wrong ones.  n_cut: draws the token or
-- thinking budget stopped (macros/cut.sql), scored as parsed.
with ranked as (
    select benchmark, model, prompt_id, reasoning_tokens, reasoning_tokens_source, correct, parse_status, cut,
           {{ avg_rank('reasoning_tokens', 'benchmark, model') }} as token_rank,
           {{ avg_rank('correct::integer', 'benchmark, model') }} as correct_rank
    from {{ ref('reasoning_answers') }}
),
agg as (
    select benchmark, model,
           case when min(reasoning_tokens_source) = max(reasoning_tokens_source)
                then min(reasoning_tokens_source) else 'mixed' end as reasoning_tokens_source,
           count(*) as answered,
           count(distinct prompt_id) as n_prompts,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status <> 'ok') as n_na,
           count(*) filter (where cut) as n_cut,
           median(reasoning_tokens) as median_reasoning_tokens,
           median(reasoning_tokens) filter (where correct) as median_tokens_correct,
           median(reasoning_tokens) filter (where not correct) as median_tokens_wrong,
           case when stddev_pop(token_rank) > 0 and stddev_pop(correct_rank) > 0
                then corr(token_rank, correct_rank) end as rho
    from ranked
    group by benchmark, model
)
select benchmark, model, reasoning_tokens_source, answered, n_prompts, n_correct, n_na, n_cut,
       round(n_correct::double / answered, 4) as accuracy,
       median_reasoning_tokens, median_tokens_correct, median_tokens_wrong,
       rho as spearman_rho,
       {{ spearman_p('rho', 'n_prompts') }} as spearman_p
from agg
order by benchmark, model
