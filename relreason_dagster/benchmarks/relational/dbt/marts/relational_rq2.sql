-- The study's RQ2 (§5.2, Table 2 against Table 1): truth-value prompting against standard natural
-- language prompting, per model x task x split.  a = tv, b = nl; diff = F1(tv) − F1(nl) over the samples
-- both answered, with a paired 95% bootstrap interval (macros/relational_paired.sql).  A side whose every
-- answer is incomplete is N/A, as in the study (GPT-4 and the Llama 2 models have no Table 2 row).
{{ relational_paired_difference('tv', 'nl') }}
order by model, task, split
