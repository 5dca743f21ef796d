-- Lengths as the provider counted them (issue 56): per model x target length, the provider-reported
-- prompt_tokens of every answered FLenQA request (n, mean, min, max, sample stddev) beside the target,
-- relreason's own count of the same prompts (raw.prompts.input_tokens, the default tokenizer the
-- targets are met in) and, where the model's models.yaml entry names its tokenizer, the prompts counted
-- in it (raw.prompt_tokens).  The target is the padded text's length; a prompt adds the question and
-- the instructions to it, so provider_to_target is above 1 even when both count alike; provider_to_
-- relreason compares like with like.  Ratios are of the means.  length 0 = the minimal text (no target).
-- Draw 0 (stg_responses); provider errors are left out, and a reply with no usage counts in n only.
with asked as (
    select r.model, r.prompt_id, r.prompt_tokens, p.input_tokens,
           t.tokenizer as own_tokenizer, t.input_tokens as own_tokens,
           coalesce(json_extract(s.variant, '$.length')::integer, 0) as length
    from {{ ref('stg_responses') }} r
    join {{ ref('stg_prompts') }} p using (prompt_id)
    join {{ ref('stg_samples') }} s using (sample_id)
    left join {{ source('raw', 'prompt_tokens') }} t on t.prompt_id = r.prompt_id and t.model = r.model
    where p.benchmark = 'flenqa' and r.succeeded
)
select model, length,
       count(*) as n,
       count(prompt_tokens) as n_counted,
       round(avg(prompt_tokens), 2) as mean_provider_tokens,
       min(prompt_tokens) as min_provider_tokens,
       max(prompt_tokens) as max_provider_tokens,
       round(stddev_samp(prompt_tokens), 2) as sd_provider_tokens,
       round(avg(input_tokens), 2) as mean_relreason_tokens,
       max(own_tokenizer) as own_tokenizer,
       round(avg(own_tokens), 2) as mean_own_tokens,
       case when length > 0 then round(avg(prompt_tokens) / length, 4) end as provider_to_target,
       round(avg(prompt_tokens) / nullif(avg(input_tokens), 0), 4) as provider_to_relreason,
       round(avg(prompt_tokens) / nullif(avg(own_tokens), 0), 4) as provider_to_own
from asked
group by model, length
order by model, length
