{#
  Confidence intervals, written once for every mart.

  wilson_low/high: 95% Wilson score interval of k successes out of n (rates).
  bootstrap_ci: 95% percentile bootstrap of a group mean.  Resampling is
  deterministic (hash of group, resample and draw index) so a rebuild gives the
  same interval; `relation` must expose the group columns, `value_col` and a
  unique `key_col` within each group.
#}
{% macro wilson_low(k, n) -%}
    case when {{ n }} = 0 then null else
    (({{ k }})::double / {{ n }} + 1.96*1.96/(2*{{ n }})
      - 1.96 * sqrt((({{ k }})::double / {{ n }}) * (1 - ({{ k }})::double / {{ n }}) / {{ n }} + 1.96*1.96/(4.0*{{ n }}*{{ n }})))
    / (1 + 1.96*1.96/{{ n }}) end
{%- endmacro %}

{% macro wilson_high(k, n) -%}
    case when {{ n }} = 0 then null else
    (({{ k }})::double / {{ n }} + 1.96*1.96/(2*{{ n }})
      + 1.96 * sqrt((({{ k }})::double / {{ n }}) * (1 - ({{ k }})::double / {{ n }}) / {{ n }} + 1.96*1.96/(4.0*{{ n }}*{{ n }})))
    / (1 + 1.96*1.96/{{ n }}) end
{%- endmacro %}

{% macro bootstrap_ci(relation, group_cols, value_col, key_col, n_boot=1000) -%}
{%- set g = group_cols | join(', ') -%}
with _base as (
    select {{ g }}, {{ value_col }}::double as _v,
           row_number() over (partition by {{ g }} order by {{ key_col }}) - 1 as _i,
           count(*) over (partition by {{ g }}) as _n
    from {{ relation }}
),
_groups as (
    select {{ g }}, max(_n) as _n from _base group by {{ g }}
),
_draws as (
    select {% for c in group_cols %}_groups.{{ c }}, {% endfor %} _b.range as _b,
           hash({% for c in group_cols %}_groups.{{ c }}, {% endfor %} _b.range, _j.range) % _groups._n as _i
    from _groups
    cross join range({{ n_boot }}) _b
    cross join range((select coalesce(max(_n), 0) from _groups)) _j
    where _j.range < _groups._n
),
_boot as (
    select {% for c in group_cols %}_draws.{{ c }}, {% endfor %} _draws._b, avg(_base._v) as _m
    from _draws
    join _base on {% for c in group_cols %}_draws.{{ c }} = _base.{{ c }} and {% endfor %} _draws._i = _base._i
    group by {% for c in group_cols %}_draws.{{ c }}, {% endfor %} _draws._b
)
select {{ g }}, quantile_cont(_m, 0.025) as ci_low, quantile_cont(_m, 0.975) as ci_high
from _boot group by {{ g }}
{%- endmacro %}
