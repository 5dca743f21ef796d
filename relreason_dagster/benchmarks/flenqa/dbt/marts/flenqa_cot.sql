-- §7 CoT failure modes per model x task x length (CoT prompts only):
-- answer_first_rate: the true/false answer comes before the reasoning;
-- coverage_rate: both key sentences reproduced in the response (Appendix D.4);
-- accuracy split by full vs incomplete coverage.  source: the text read, 'answer' or the reasoning
-- 'trace' (the profile's reasoning_source; accuracy is always the answer's).
with agg as (
    select model, source, task, length,
           count(*) as n,
           count(*) filter (where answer_first) as n_answer_first,
           count(*) filter (where keys_covered >= 2) as n_covered,
           count(*) filter (where keys_covered >= 2 and correct) as n_covered_correct,
           count(*) filter (where keys_covered < 2 and correct) as n_uncovered_correct,
           count(*) filter (where answer_first and correct) as n_answer_first_correct,
           count(*) filter (where correct) as n_correct
    from {{ ref('int_flenqa_cot_reads') }}
    group by model, source, task, length
)
select model, source, task, length, n,
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
       round(n_answer_first_correct::double / nullif(n_answer_first, 0), 4) as accuracy_answer_first
from agg
order by model, source, task, length
