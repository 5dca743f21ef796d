{#
  budget_mart(benchmark, axes, where, score, metric): the body of every family's <family>_budget mart
  (issue 55, item 2), so the four marts are a line of configuration each.  One row per base model x level
  x the family's own axis (axes: a list of [column name, SQL expression over int_budget_draws], in the
  family's accuracy-mart order), over the sweep variants' draws of family `benchmark` that `where` keeps.

  What each row holds, and why this way:
    * n, n_items: answers (every draw of --samples K) and the items (prompts) they answer.
    * accuracy: the mean of `score` over all draws, the family's own scoring (1/0 for right, or the
      per-answer F1 of a study that scores cells; `metric` names which).  Its 95% interval is
      clustered by item: the draws of one prompt are not independent, so it is Wilson's on the effective size
      n / design_effect (macros/sampling.sql, the reasoning marts' approach); with one draw per item it
      is the plain Wilson interval.  For an F1 score the binomial variance is an upper bound of the
      score's own, so the interval errs wide.
    * mean reasoning and answer tokens (int_budget_draws says how each is counted), n_cut and cut_share:
      what the budget bought and what it stopped.
    * for rank r > 0: the paired McNemar test against level r - 1 on the items both levels answered.
      Each item is scored by the majority of its draws (right in more than half of them; with one draw,
      that draw; a tie counts as not right at either level alike), so K draws give one pair per item,
      not K correlated ones.  n_gained: items right at this level only, n_lost: right at level r - 1
      only; p_holm is mcnemar_p Holm-adjusted over every test of the same base model in this mart (its
      levels x axis values: the family of comparisons one reads off one model's sweep).
#}
{% macro budget_mart(benchmark, axes, where='true', score='correct::integer', metric='accuracy') -%}
{%- set names = axes | map(attribute=0) | list -%}
{%- set axis_cols = names | join(', ') -%}
with draws as (
    select base_model, param, level, level_rank, model, prompt_id, sample_index,
           {% for name, expr in axes %}{{ expr }} as {{ name }}, {% endfor %}
           parse_status, correct, ({{ score }})::double as score, cut, reasoning_tokens, answer_tokens
    from {{ ref('int_budget_draws') }}
    where benchmark = '{{ benchmark }}' and ({{ where }})
),
items as (
    select base_model, level_rank, {{ axis_cols }}, prompt_id,
           count(*) as n_i,
           sum(score) as k_i,
           2 * count(*) filter (where correct) > count(*) as majority_correct
    from draws
    group by base_model, level_rank, {{ axis_cols }}, prompt_id
),
clusters as (
    select base_model, level_rank, {{ axis_cols }},
           count(*) as n_items,
           sum(k_i * k_i) as s_kk, sum(k_i * n_i) as s_kn, sum(n_i * n_i)::double as s_nn
    from items
    group by base_model, level_rank, {{ axis_cols }}
),
agg as (
    select base_model, param, level, level_rank, model, {{ axis_cols }},
           count(*) as n,
           sum(score) as score_sum,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where parse_status <> 'ok') as n_na,
           count(*) filter (where cut) as n_cut,
           avg(reasoning_tokens) as mean_reasoning_tokens,
           avg(answer_tokens) as mean_answer_tokens
    from draws
    group by base_model, param, level, level_rank, model, {{ axis_cols }}
),
effective as (
    select a.*, c.n_items,
           a.n / {{ design_effect('a.n', 'a.score_sum', 'c.n_items', 'c.s_kk', 'c.s_kn', 'c.s_nn') }} as n_eff
    from agg a
    join clusters c
      on c.base_model = a.base_model and c.level_rank = a.level_rank
      {% for name in names %}and c.{{ name }} is not distinct from a.{{ name }} {% endfor %}
),
pairs as (
    select cur.base_model, cur.level_rank, {% for name in names %}cur.{{ name }}, {% endfor %}
           count(*) as n_paired,
           count(*) filter (where cur.majority_correct and not prev.majority_correct) as n_gained,
           count(*) filter (where prev.majority_correct and not cur.majority_correct) as n_lost
    from items cur
    join items prev
      on prev.base_model = cur.base_model and prev.level_rank = cur.level_rank - 1
     and prev.prompt_id = cur.prompt_id
      {% for name in names %}and prev.{{ name }} is not distinct from cur.{{ name }} {% endfor %}
    group by cur.base_model, cur.level_rank, {% for name in names %}cur.{{ name }}{{ ', ' if not loop.last }}{% endfor %}
),
tested as (
    select *, {{ mcnemar_p('n_gained', 'n_lost') }} as mcnemar_p,
           row_number() over (partition by base_model order by {{ mcnemar_p('n_gained', 'n_lost') }},
                              level_rank, {{ axis_cols }}) as _order,
           count(*) over (partition by base_model) as _tests
    from pairs
),
holm as (
    select *,
           max(least(1.0, (_tests - _order + 1) * mcnemar_p)) over (
               partition by base_model order by _order rows between unbounded preceding and current row
           ) as p_holm
    from tested
)
select e.base_model, e.param, e.level, e.level_rank, e.model,
       {% for name in names %}e.{{ name }}, {% endfor %}
       e.n, e.n_items, e.n_correct, e.n_na, e.n_cut,
       '{{ metric }}' as metric,
       round(e.score_sum / e.n, 4) as accuracy,
       round({{ wilson_low('(e.score_sum / e.n * e.n_eff)', 'e.n_eff') }}, 4) as ci_low,
       round({{ wilson_high('(e.score_sum / e.n * e.n_eff)', 'e.n_eff') }}, 4) as ci_high,
       round(e.n_cut::double / e.n, 4) as cut_share,
       round(e.mean_reasoning_tokens, 1) as mean_reasoning_tokens,
       round(e.mean_answer_tokens, 1) as mean_answer_tokens,
       h.n_paired, h.n_gained, h.n_lost,
       round(h.mcnemar_p, 6) as mcnemar_p,
       round(h.p_holm, 6) as p_holm
from effective e
left join holm h
  on h.base_model = e.base_model and h.level_rank = e.level_rank
  {% for name in names %}and h.{{ name }} is not distinct from e.{{ name }} {% endfor %}
order by e.base_model, {{ axis_cols }}, e.level_rank
{%- endmacro %}
