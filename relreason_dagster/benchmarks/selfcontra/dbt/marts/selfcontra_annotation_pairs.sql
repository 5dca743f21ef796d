-- Two imported annotation files that label the same response (same question and response text, same
-- model and setting), one row per response and ordered pair of files.  The file imported first is the reference, the other the
-- second annotator; feeds the 'human' detection method of selfcontra_detection_f1 (the study's human
-- baseline, §4.1: people labelling responses the authors labelled) and Krippendorff's alpha in
-- selfcontra_agreement (Table 4).  A file that repeats a response counts it once (its first row).
-- same_group: both rows have the same dataset and split as well, so the rates of that group
-- (selfcontra_scr, selfcontra_categories) count the response once, with the reference's labels; a
-- section-3 file that re-labels section-2 responses (another split) is a group of its own.
with keyed as (
    select annotation_id, source, row_number, dataset, split, model, setting, correct, self_contra, type,
           array_to_string(list_sort(from_json(coalesce(categories, '[]'), '["VARCHAR"]')), '&') as finer,
           md5(trim(question) || chr(31) || trim(response)) as response_key,
           min(imported_at) over (partition by source) as source_imported_at
    from {{ ref('stg_annotations') }}
    qualify row_number() over (
        partition by source, md5(trim(question) || chr(31) || trim(response)) order by row_number
    ) = 1
)
select a.response_key,
       a.source as reference_source, b.source as other_source,
       a.dataset, a.split, a.model, a.setting,
       a.annotation_id as reference_id, b.annotation_id as other_id,
       a.correct as reference_correct, b.correct as other_correct,
       a.self_contra as reference_self_contra, b.self_contra as other_self_contra,
       a.type as reference_type, b.type as other_type,
       a.finer as reference_finer, b.finer as other_finer,
       (a.dataset = b.dataset and a.split is not distinct from b.split) as same_group
from keyed a
join keyed b
  on a.response_key = b.response_key and a.model = b.model and a.setting = b.setting
 and (a.source_imported_at < b.source_imported_at
      or (a.source_imported_at = b.source_imported_at and a.source < b.source))
