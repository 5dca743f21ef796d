-- KOR-Bench accuracy per model x source x prompt setting x category (and 'overall' over the five
-- categories: correct / items, as Table 2's Overall), 95% Wilson CI.  accuracy is the paper's
-- judgement (the official scorer with its symbolic step working: how Table 2 was scored);
-- official_accuracy the released evaluation files' (that step falling back to string equality);
-- robust_accuracy the robust scorer's.  Mixed records: kor_mixed; puzzles asked with their trick:
-- kor_trick (an overall over one category would read as Table 2's Overall); §6.1's cipher sub-steps:
-- kor_stepwise; questions asked with the rule withheld (§6.4's only questions): kor_knowledge_impact.
-- n_cut: answers the token or thinking budget stopped (macros/cut.sql), scored as parsed.
with answers as (
    select * from {{ ref('int_kor_answers') }}
    where category not in ('mixed', 'cipher_step') and setting <> 'trick'
      and setting not like '%_only_questions'
),
agg as (
    select model, source, setting, coalesce(category, 'overall') as category,
           count(*) as n,
           count(*) filter (where correct) as n_correct,
           count(*) filter (where official_correct) as n_official_correct,
           count(*) filter (where robust_correct) as n_robust_correct,
           count(*) filter (where parse_status <> 'ok') as n_na,
           count(*) filter (where cut) as n_cut
    from answers
    group by grouping sets ((model, source, setting, category), (model, source, setting))
)
select model, source, setting, category, n, n_correct, n_na, n_cut,
       round(n_correct::double / n, 4) as accuracy,
       round({{ wilson_low('n_correct', 'n') }}, 4) as ci_low,
       round({{ wilson_high('n_correct', 'n') }}, 4) as ci_high,
       round(n_official_correct::double / n, 4) as official_accuracy,
       round(n_robust_correct::double / n, 4) as robust_accuracy
from agg
order by model, source, setting, category
