-- The toy's own mart, shipped in its folder: each model's answers split by the number's parity (gold
-- yes = even), so a model that says "yes" too often shows as right on even numbers and wrong on odd ones.
select model, case when gold::boolean then 'even' else 'odd' end as parity,
       count(*) as n,
       count(*) filter (where correct) as n_correct,
       round(avg(coalesce(correct, false)::int), 4) as accuracy
from {{ ref('int_answers') }}
where benchmark = 'toy' and parse_status <> 'error'
group by all
order by model, parity
