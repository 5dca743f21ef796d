-- App. C.1, Table 14: POV as a diagnostic (Table 11's three turns): the 1-10 consistency score the asking
-- model gives an annotated response's reasoning after considering both points of view, per asking model x
-- dataset x split x judged model x category (each annotated finer-grained category of the response, or
-- perfect: RR with none) x order (correct_first / incorrect_first) x variant (full: the score turn sees
-- the first two replies whole, Table 14's "Reasoning + Answers"; yes_no: only their yes/no answers).
-- mean_score over the replies that state a score (n_scored); n_unparsed state none.
with chains as (
    select p.model, p.dataset, p.split, p.judged_model, c.category, p.pov_order, p.variant, p.status, p.score
    from {{ source('raw', 'selfcontra_pov') }} p,
         unnest(from_json(coalesce(p.categories, '[]'), '["VARCHAR"]')) as c(category)
    where p.kind = 'diagnostic'
)
select model, dataset, split, judged_model, category, pov_order, variant,
       count(*) as n,
       count(*) filter (where status = 'ok') as n_scored,
       count(*) filter (where status = 'unparsed') as n_unparsed,
       round(avg(score) filter (where status = 'ok'), 4) as mean_score
from chains
group by model, dataset, split, judged_model, category, pov_order, variant
order by model, dataset, split nulls first, judged_model, category, pov_order, variant
