-- Self-Contra labels on responses (human annotations imported from CSV).  type is one of
-- RR, WW, type1 (right reasoning, wrong answer), type2 (wrong reasoning, right answer), type3
-- (reasoning contradicts itself); categories is a JSON list of finer-grained categories; split is the
-- WinoBias split a section-3 file of the study names (anti_test / pro_test), NULL otherwise.
select annotation_id, source, row_number, dataset, split, model, setting, question, response, correct,
       self_contra, type, categories, prompt_id, notes, imported_at
from {{ source('raw', 'annotations') }}
