-- §5 / Figure 6: next-word accuracy on the padded texts without the question, next to reasoning
-- accuracy (direct prompt) on the same samples, per model x length; corr_over_lengths is the Pearson
-- correlation of the two across lengths, per model (the study finds it negative).
-- One configuration, as Figure 6 ("each point reflects the performance across 300 samples"): 300 =
-- 3 tasks x 100 base instances, so one padding and one position per point.  The seed text does not
-- name them; we take the Books-corpus ('different') padding with random dispersion: random dispersion
-- is the study's main setting (Figure 1, and the one its analysis notebook plots), and next-word
-- prediction is read on running prose, which the Books padding is (the 'similar' padding is shuffled
-- key paragraphs of other instances).  Pooling every cell gave 3,600 per point under `paper`.
with nw as (
    select model, length, count(*) as n_next_word, count(*) filter (where correct) as n_nw_correct
    from {{ ref('int_flenqa_answers') }}
    where setting = 'next_word' and padding = 'different' and position = 'random'
    group by model, length
),
rs as (
    select model, length, count(*) as n_reasoning, count(*) filter (where correct) as n_rs_correct
    from {{ ref('int_flenqa_answers') }}
    where setting = 'direct' and padding = 'different' and position = 'random'
    group by model, length
),
joined as (
    select nw.model, nw.length, n_next_word, n_reasoning,
           n_nw_correct::double / n_next_word as next_word_accuracy,
           n_rs_correct::double / nullif(n_reasoning, 0) as reasoning_accuracy,
           n_nw_correct
    from nw left join rs using (model, length)
)
select model, length, n_next_word,
       round(next_word_accuracy, 4) as next_word_accuracy,
       round({{ wilson_low('n_nw_correct', 'n_next_word') }}, 4) as next_word_ci_low,
       round({{ wilson_high('n_nw_correct', 'n_next_word') }}, 4) as next_word_ci_high,
       n_reasoning,
       round(reasoning_accuracy, 4) as reasoning_accuracy,
       -- NULL where either accuracy is constant over lengths (the correlation is undefined)
       case when isnan(c) then null else round(c, 4) end as corr_over_lengths
from (select *, corr(next_word_accuracy, reasoning_accuracy) over (partition by model) as c from joined)
order by model, length
