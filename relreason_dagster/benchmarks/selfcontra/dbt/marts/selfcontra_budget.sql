-- Thinking budget on Self-Contra (issue 55, item 2): per base model x level of its sweep x dataset x
-- split x prompt setting, accuracy as selfcontra_judged scores it (the parser's), over every draw; split
-- keeps WinoBias pro- and anti-stereotype items apart (NULL for the other datasets), as
-- int_selfcontra_answers reads it.  What each column is and why: macros/budget.sql.
{{ budget_mart('selfcontra',
    [['dataset', 'task'],
     ['split', "case when task = 'winobias' then (variant ->> 'stereotype') || '_' || (variant ->> 'source_split') end"],
     ['setting', 'setting']]) }}
