-- The study's Figure 5: accuracy vs input length per kind of irrelevant padding, similar (key
-- paragraphs of other instances of the task) vs different (unrelated prose; the study's Books
-- Corpus), with the key paragraphs at random places (§4.2: "only the non-adjacent case"), averaged
-- over the three tasks; one row per model x prompt x length x padding.  At the paper profile each row
-- pools 3 tasks x 100 instances = 300 answers (the caption's "300 samples").
{{ flenqa_figure_pool('padding', "position = 'random' and padding in ('similar', 'different')") }}
