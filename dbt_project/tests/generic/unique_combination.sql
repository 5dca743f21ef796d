{# Fails on every combination of `columns` that occurs more than once (dbt_utils is not installable offline). #}
{% test unique_combination(model, columns) %}
select {{ columns | join(', ') }}, count(*) as n_rows
from {{ model }}
group by {{ columns | join(', ') }}
having count(*) > 1
{% endtest %}
