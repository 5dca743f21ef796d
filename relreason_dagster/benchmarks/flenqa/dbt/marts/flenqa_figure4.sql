-- The study's Figure 4 (all models: Figure 16): accuracy vs input length with the two key paragraphs
-- adjacent, placed first, in the middle or last, "averaged over both types of irrelevant padding"
-- (similar and different) and over the three tasks; one row per model x prompt x length x position.
-- At the paper profile each row pools 3 tasks x 100 instances x 2 paddings = 600 answers (the
-- caption says 300, the samples of one padding; the text pools both).
{{ flenqa_figure_pool('position', "position in ('first', 'middle', 'last') and padding in ('similar', 'different')") }}
