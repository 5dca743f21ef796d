-- Thinking budget on the relational study (issue 55, item 2): per base model x level of its sweep x task x
-- split x prompt setting, the study's metric as relational_f1 scores it (mean per-answer F1 over all
-- answers, an unreadable one 0), over every draw; the paired test reads exact answers (correct), as
-- paired_comparisons does.  Provider errors are left out here, a context overflow too (relational_f1
-- scores one 0: a budget sweep does not change the prompt's length).  Columns: macros/budget.sql.
{{ budget_mart('relational', [['task', 'task'], ['split', 'split'], ['setting', 'setting']],
    score='f1', metric='f1') }}
