-- Thinking budget on FLenQA (issue 55, item 2): per base model x level of its sweep x task x prompt x
-- input length, the axes and scoring of flenqa_accuracy_by_length (direct and cot prompts; right = the
-- True/False answer read), over every draw.  What each column is and why: macros/budget.sql.
{{ budget_mart('flenqa',
    [['task', 'task'], ['setting', 'setting'],
     ['length', "coalesce(json_extract(variant, '$.length')::integer, 0)"]],
    where="setting in ('direct', 'cot')") }}
