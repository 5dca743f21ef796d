"""KOR-Bench (Ma et al.): knowledge-orthogonal reasoning over five categories of newly defined rules.

Pure Python, no model calls: the official data layout (:mod:`.data`), the official answer
extraction and a robust one for real model output (:mod:`.extract`), and two scorers
(:mod:`.scoring`).  ``official`` reproduces the published verdicts branch by branch, quirks
included, so our numbers can be put next to the paper's; ``robust`` says what a model actually
answered (LaTeX-escaped brackets, ``\\boxed{}``, equivalent expressions, spacing) and tags every
verdict with a reason code, so the gap between the two is itself a reported result rather than noise.
Model text is parsed by our own bounded parsers (:mod:`.mathexpr`) and is never executed.
"""
