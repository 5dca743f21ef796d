-- The study's RQ3 (§5.3, Table 3 against Table 1): chain-of-thought prompting against standard natural
-- language prompting, per model x task x split.  a = nl_cot, b = nl; diff = F1(CoT) − F1(nl) over the
-- samples both answered (the study's example: GPT-4 Turbo on 1-Outdegree, −13.61 / −16.82 points), with
-- a paired 95% bootstrap interval (macros/relational_paired.sql).  Note the prompts differ in more than
-- the reasoning: the study's CoT prompts carry one few-shot example, its standard prompts ten.
{{ relational_paired_difference('nl_cot', 'nl') }}
order by model, task, split
