-- KOR-Bench §5 ("Single Task Analysis": Cipher errors are most frequent in Position Mapping, Transpose
-- Writing and Mathematical Calculation, along with Split Connection and Multi-Step Execution): the wrong
-- cipher answers (paper's judgement) per model x source x setting x error type, each type an observable
-- relation of the parsed answer to the gold (kor/analysis.py: no_answer, placeholder, echo, format,
-- transposed, substituted, length).  share_of_wrong = n / wrong answers, share_of_all = n / all cipher
-- answers of the model.  released: the study's models from its released files (raw.kor_released).
with answers as (
    select false as released, model, source, setting, correct, cipher_error
    from {{ ref('int_kor_answers') }}
    where category = 'cipher'
    union all
    select true, model, 'official', setting, coalesce(correct, false), cipher_error
    from {{ source('raw', 'kor_released') }}
    where category = 'cipher'
),
totals as (
    select released, model, source, setting, count(*) as n_answers,
           count(*) filter (where not correct) as n_wrong
    from answers
    group by released, model, source, setting
),
errors as (
    select released, model, source, setting, coalesce(cipher_error, 'unclassified') as error_type,
           count(*) as n
    from answers
    where not correct
    group by released, model, source, setting, coalesce(cipher_error, 'unclassified')
)
select e.released, e.model, e.source, e.setting, e.error_type, e.n, t.n_wrong, t.n_answers,
       round(e.n::double / t.n_wrong, 4) as share_of_wrong,
       round(e.n::double / t.n_answers, 4) as share_of_all
from errors e
join totals t using (released, model, source, setting)
order by e.released, e.model, e.source, e.setting, e.n desc, e.error_type
