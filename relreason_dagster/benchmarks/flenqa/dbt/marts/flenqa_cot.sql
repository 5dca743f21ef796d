-- §7 CoT failure modes per model x task x length (CoT prompts only):
-- answer_first_rate: the true/false answer comes before the reasoning;
-- coverage_rate: both key sentences reproduced in the response (Appendix D.4);
-- accuracy split by full vs incomplete coverage.  source: the text read, 'answer' or the reasoning
-- 'trace' (the profile's reasoning_source; accuracy is always the answer's).  reading: the rules that
-- read the answers ('study' = the study's analysis notebook, 'relreason' = ours; profile knob reading).
-- padding: what a row pools at its length.  'similar+different' is the study's Figure 8-9 pool (its
-- notebook loops over its released paddings same and books, our similar and different, whichever of
-- the two the run asked); 'duplicate' (Figure 3's padding, which Figures 8-9 do not read) and 'none'
-- (length 0, the minimal text) have rows of their own, so they never move the pooled cells.
-- Like with like (comparable / why_not, beside the study's Figure 8 and 9): only the study's reading of
-- the answer, on the study's released rows of the study's pool, reads what the study's figures read.
with pooled as (
    select *,
           case when padding in ('duplicate', 'none') then padding else 'similar+different' end as pool
    from {{ ref('int_flenqa_cot_reads') }}
),
agg as (
    select model, source, reading, task, length, pool as padding,
           count(*) as n,
           count(*) filter (where item_source = 'released') as n_released,
           count(*) filter (where answer_first) as n_answer_first,
           count(*) filter (where keys_covered >= 2) as n_covered,
           count(*) filter (where keys_covered >= 2 and correct) as n_covered_correct,
           count(*) filter (where keys_covered < 2 and correct) as n_uncovered_correct,
           count(*) filter (where answer_first and correct) as n_answer_first_correct,
           count(*) filter (where correct) as n_correct
    from pooled
    group by model, source, reading, task, length, pool
)
select model, source, reading, task, length, padding, n,
       round(n_correct::double / n, 4) as accuracy,
       round(n_answer_first::double / n, 4) as answer_first_rate,
       round({{ wilson_low('n_answer_first', 'n') }}, 4) as answer_first_ci_low,
       round({{ wilson_high('n_answer_first', 'n') }}, 4) as answer_first_ci_high,
       round(n_covered::double / n, 4) as coverage_rate,
       round({{ wilson_low('n_covered', 'n') }}, 4) as coverage_ci_low,
       round({{ wilson_high('n_covered', 'n') }}, 4) as coverage_ci_high,
       n_covered,
       round(n_covered_correct::double / nullif(n_covered, 0), 4) as accuracy_covered,
       round(n_uncovered_correct::double / nullif(n - n_covered, 0), 4) as accuracy_uncovered,
       round(n_answer_first_correct::double / nullif(n_answer_first, 0), 4) as accuracy_answer_first,
       reading = 'study' and source = 'answer' and padding = 'similar+different' and n_released = n
           as comparable,
       case
           when reading <> 'study' then 'read by relreason''s rules (reading: relreason), not the study''s notebook''s'
           when source <> 'answer' then 'read from the reasoning trace; the study read the answer'
           when padding = 'duplicate' then 'duplicate padding: the study''s Figures 8-9 pool its same and books paddings only'
           when padding = 'none' then 'the minimal text: the study''s Figures 8-9 pool its padded same and books rows only'
           when n_released < n then 'generated items, not the study''s released dataset'
       end as why_not
from agg
order by model, source, reading, task, length, padding
