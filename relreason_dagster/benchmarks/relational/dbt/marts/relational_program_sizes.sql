-- The size of each task's ground-truth program, the study's measure of task complexity in RQ1 ("tasks
-- that contain more predicates in the ground-truth program", §5.1): predicate atoms in the bodies of the
-- rules printed with formulas (2)-(10) (n_predicates), and with every invented predicate (and IsUncle
-- inside IsMGUncle) replaced by its own rule's body (n_predicates_inlined).  Transcribed data of the
-- relational family (benchmarks/relational/program_sizes.csv, re-read from the paper by
-- tests/unit/relational/test_program_sizes.py); dbt runs with the project folder as its working directory.
select task, formula::integer as formula, n_predicates::integer as n_predicates,
       n_predicates_inlined::integer as n_predicates_inlined, source, note
from read_csv('../relreason_dagster/benchmarks/relational/program_sizes.csv', header = true, all_varchar = true)
