-- One row per scored answer (provider errors excluded: they are no answer, see parse_rate).
-- f1: per-sample F1 over the target's true cells; an unreadable (na) or refused answer scores 0,
-- an empty prediction for an empty gold scores 1.  The score is computed in int_answer_scores.
select prompt_id, model, benchmark, task, split, setting, sample_id, parse_status,
       tp, fp, fn, f1, correct, pred_pos, gold_pos, n_cells, label,
       answer_cells,  -- 0: the answer predicts no label (e.g. a next-word answer)
       cut  -- stopped by the token or thinking budget (macros/cut.sql), scored as parsed
from {{ ref('int_answer_scores') }}
