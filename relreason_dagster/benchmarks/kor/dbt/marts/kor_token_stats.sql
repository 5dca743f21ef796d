-- KOR-Bench Table 7: mean and standard deviation of input tokens (the prompt's user message) and output
-- tokens (the response) in OpenAI's cl100k_base, per model x source x setting x category (mixed records
-- under their setting), for any model's responses (the paper shows GPT-4o's).  Provider errors are left
-- out, as in int_kor_answers.
select model, source, setting, category,
       count(*) as n,
       round(avg(input_tokens_cl100k), 2) as input_mean,
       round(stddev_samp(input_tokens_cl100k), 2) as input_sd,
       round(avg(output_tokens_cl100k), 2) as output_mean,
       round(stddev_samp(output_tokens_cl100k), 2) as output_sd
from {{ ref('int_kor_answers') }}
where output_tokens_cl100k is not null
group by model, source, setting, category
order by model, source, setting, category
