{#
  One point of a FLenQA accuracy-vs-length figure: the direct and CoT answers of the texts `where`
  selects (length > 0: the minimal text is no point of a figure), pooled over the three tasks and over
  whatever `where` leaves open, one row per model x prompt x length x `label`.  The four figure marts
  differ only in which texts they pool and in the column that names a curve, so the pooling and its
  interval are written once.  `value` fixes that column to a constant (Figure 1's 'random' position,
  Figure 3's 'duplicate' padding); without it the column is grouped on (Figure 4's positions, Figure 5's
  paddings).  Refusals count as wrong; 95% Wilson interval.
#}
{% macro flenqa_figure_pool(label, where, value=none) -%}
{%- set curves = '' if value is not none else ', ' ~ label -%}
with agg as (
    select model, setting, length, {{ value ~ ' as ' ~ label if value is not none else label }},
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status = 'refused') as n_refused,
           count(distinct task) as n_tasks,
           round(avg(input_tokens), 1) as mean_input_tokens
    from {{ ref('int_flenqa_answers') }}
    where setting in ('direct', 'cot') and length > 0 and ({{ where }})
    group by model, setting, length{{ curves }}
)
select model, setting, length, {{ label }}, n, n_correct, n_refused, n_tasks, mean_input_tokens,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high
from agg
order by model, setting, length{{ curves }}
{%- endmacro %}
