-- The study's Figure 3: accuracy vs input length when the padding is the key paragraphs themselves
-- ("duplicate": the two key paragraphs again and again, alternately), averaged over the three tasks;
-- one row per model x prompt x length.  The study builds one duplicate text per instance and length
-- (§3.3.1: the copies alternate from the start), which is our position 'first' (k1 k2 k1 k2 ...);
-- the other positions of duplicate padding break the alternation and are not pooled here.  At the
-- paper profile each row pools 3 tasks x 100 instances = 300 answers (the caption's "300 samples").
{{ flenqa_figure_pool('padding', "padding = 'duplicate' and position = 'first'", value="'duplicate'") }}
