{#
  relational_paired_difference(setting_a, setting_b): setting_a − setting_b per model x task x split,
  paired over the samples both settings answered (int_relational_answers: one answer per prompt, a
  prompt per sample and setting).  Each pair's difference is F1(a) − F1(b) with incomplete answers
  scored as parsed (0 when unreadable or over the context window); the 95% interval is a percentile
  bootstrap over the pairs (bootstrap_ci on the per-pair differences: a paired bootstrap).  A side whose
  every paired answer is incomplete is the study's N/A: its F1 and the difference are null, and na_a /
  na_b say which side it was.
#}
{% macro relational_paired_difference(setting_a, setting_b) -%}
with answers as (
    select * from {{ ref('int_relational_answers') }}
),
pairs as (
    select a.model, a.task, a.split, a.sample_id,
           a.f1 as f1_a, b.f1 as f1_b, a.f1 - b.f1 as diff,
           a.incomplete as incomplete_a, b.incomplete as incomplete_b
    from answers a
    join answers b on b.model = a.model and b.sample_id = a.sample_id
     and b.task = a.task and b.split = a.split
    where a.setting = '{{ setting_a }}' and b.setting = '{{ setting_b }}'
),
agg as (
    select model, task, split, count(*) as n_pairs,
           avg(f1_a) as f1_a, avg(f1_b) as f1_b, avg(diff) as diff,
           avg(incomplete_a::integer) as incomplete_share_a,
           avg(incomplete_b::integer) as incomplete_share_b
    from pairs group by model, task, split
),
ci as (
    {{ bootstrap_ci('pairs', ['model', 'task', 'split'], 'diff', 'sample_id') }}
)
select agg.model, agg.task, agg.split, agg.n_pairs,
       agg.incomplete_share_a = 1 as na_a, agg.incomplete_share_b = 1 as na_b,
       case when agg.incomplete_share_a < 1 then round(agg.f1_a, 4) end as f1_a,
       case when agg.incomplete_share_b < 1 then round(agg.f1_b, 4) end as f1_b,
       round(agg.incomplete_share_a, 4) as incomplete_share_a,
       round(agg.incomplete_share_b, 4) as incomplete_share_b,
       case when agg.incomplete_share_a < 1 and agg.incomplete_share_b < 1 then round(agg.diff, 4) end as diff,
       case when agg.incomplete_share_a < 1 and agg.incomplete_share_b < 1 then round(ci.ci_low, 4) end as ci_low,
       case when agg.incomplete_share_a < 1 and agg.incomplete_share_b < 1 then round(ci.ci_high, 4) end as ci_high
from agg
join ci using (model, task, split)
{%- endmacro %}
