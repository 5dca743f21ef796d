-- Thinking budget on KOR-Bench (issue 55, item 2): per base model x level of its sweep x source x prompt
-- setting x category, the questions and scoring of kor_accuracy (the paper's judgement; mixed records,
-- cipher sub-steps, trick and rule-free questions left out), over every draw.  What each column is and
-- why: macros/budget.sql.
{{ budget_mart('kor',
    [['source', 'split'], ['setting', 'setting'], ['category', 'task']],
    where="task not in ('mixed', 'cipher_step') and setting <> 'trick' and setting not like '%_only_questions'") }}
