-- Label bias: the share of cells a model predicts positive against the gold positive share,
-- over readable answers that predict labels (not answers that predict no label, such as next-word answers).  bias > 0: the model says "yes" more often than the truth does.
with agg as (
    select benchmark, model, task, split, setting,
           count(*) as n,
           sum(n_cells) as n_cells,
           sum(pred_pos) as pred_pos,
           sum(gold_pos) as gold_pos
    from {{ ref('answer_scores') }}
    where parse_status = 'ok' and answer_cells > 0
    group by benchmark, model, task, split, setting
)
select benchmark, model, task, split, setting, n, n_cells,
       round(pred_pos::double / nullif(n_cells, 0), 4) as pred_pos_share,
       round(gold_pos::double / nullif(n_cells, 0), 4) as gold_pos_share,
       round((pred_pos::double - gold_pos) / nullif(n_cells, 0), 4) as bias,
       round({{ wilson_low('pred_pos', 'n_cells') }}, 4) as pred_ci_low,
       round({{ wilson_high('pred_pos', 'n_cells') }}, 4) as pred_ci_high
from agg
order by benchmark, model, task, split, setting
