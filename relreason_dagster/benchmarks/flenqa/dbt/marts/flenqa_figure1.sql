-- The study's Figure 1: accuracy vs input length, key paragraphs placed at random (not adjacent:
-- padding before, between and after them) inside irrelevant padding, the similar and the different
-- padding pooled, averaged over the three tasks; one row per model x prompt (direct, cot) x length.
-- At the paper profile each row pools 3 tasks x 100 instances x 2 paddings = 600 answers (the
-- caption's "600 samples").  The minimal text (length 0) is not a point of the figure
-- (marts.flenqa_accuracy has it).
{{ flenqa_figure_pool('position', "position = 'random' and padding in ('similar', 'different')", value="'random'") }}
