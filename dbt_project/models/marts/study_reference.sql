-- The studies' published numbers, every registered family's in one table: one row per cell the paper
-- prints (family, source = its table or figure, model as the paper names it, the keys the family's
-- marts use, metric, value in the marts' unit, printed = the cell's text, note).  Loaded from the
-- families' published.csv files by the published_numbers asset; a new family adds rows, not SQL.
-- The families' <family>_vs_study marts put these beside our models.  comparable says whether a relreason
-- run can be on the same items, pooled the same way (why_not: why not, in one line); misprint whether the
-- printed value is contradicted by the paper's own numbers or released outputs (the evidence in note).
select
    family, source, model, task, category, dataset, setting, split, n, length, padding, position,
    metric, value, printed, note, keys, line, comparable, why_not, coalesce(misprint, false) as misprint
from {{ source('raw', 'study_reference') }}
