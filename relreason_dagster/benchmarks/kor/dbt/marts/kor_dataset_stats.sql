-- KOR-Bench Table 1 of the questions a run asked: per source x category, the number of rules, their mean
-- and maximum length, the number of questions and their mean length (characters, as Table 1 counts),
-- and the answer formats involved (NR/ME/TR/MC/SD, kor/formats.py).  With the paper profile (every
-- official rule and question) it is Table 1 recomputed from the official data.
with questions as (
    select split as source, task as category,
           json_extract_string(variant, '$.rule_id') as rule_id,
           json_extract_string(variant, '$.answer_format') as answer_format,
           json_extract_string(input, '$.item.rule') as rule,
           json_extract_string(input, '$.item.question') as question
    from {{ ref('stg_samples') }}
    where benchmark = 'kor' and task not in ('mixed', 'cipher_step')
),
rules as (
    select distinct source, category, rule_id, length(rule) as rule_length from questions
),
rule_stats as (
    select source, category, count(*) as n_rules,
           round(avg(rule_length), 2) as rule_length_mean, max(rule_length) as rule_length_max
    from rules group by source, category
),
question_stats as (
    select source, category, count(*) as n_questions,
           round(avg(length(question)), 2) as question_length_mean,
           string_agg(distinct answer_format, ',' order by answer_format) as answer_formats
    from questions group by source, category
)
select q.source, q.category, r.n_rules, r.rule_length_mean, r.rule_length_max,
       q.n_questions, q.question_length_mean, q.answer_formats
from question_stats q
join rule_stats r using (source, category)
order by q.source, q.category
