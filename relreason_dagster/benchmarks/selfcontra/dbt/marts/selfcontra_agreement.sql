-- Table 4: agreement of two annotation files on the responses both label (selfcontra_annotation_pairs),
-- per reference file x other file x annotation (self_contra, type, finer_grained: the sorted set of
-- categories, '' for none).  Krippendorff's alpha for nominal labels with two coders and no missing
-- value: with N units, n = 2N values, D units that disagree and n_c the count of value c over both
-- files, alpha = 1 - (n - 1) * 2D / (n^2 - sum_c n_c^2); NULL when every value is the same (no variation
-- to agree on).  agreement is the plain share of units labelled alike.
with units as (
    select reference_source, other_source, dataset, split, model, setting,
           'self_contra' as annotation, reference_self_contra::varchar as va, other_self_contra::varchar as vb
    from {{ ref('selfcontra_annotation_pairs') }}
    union all
    select reference_source, other_source, dataset, split, model, setting,
           'type', reference_type, other_type
    from {{ ref('selfcontra_annotation_pairs') }}
    union all
    select reference_source, other_source, dataset, split, model, setting,
           'finer_grained', reference_finer, other_finer
    from {{ ref('selfcontra_annotation_pairs') }}
),
observed as (
    select reference_source, other_source, annotation,
           min(dataset) as dataset, min(split) as split, min(model) as model, min(setting) as setting,
           count(*) as n_units, count(*) filter (where va is distinct from vb) as n_disagree
    from units
    group by reference_source, other_source, annotation
),
vals as (
    select reference_source, other_source, annotation, coalesce(va, '') as v from units
    union all
    select reference_source, other_source, annotation, coalesce(vb, '') from units
),
expected as (
    select reference_source, other_source, annotation, sum(n_c * n_c) as sum_sq
    from (
        select reference_source, other_source, annotation, v, count(*)::double as n_c
        from vals
        group by reference_source, other_source, annotation, v
    )
    group by reference_source, other_source, annotation
)
select o.reference_source, o.other_source, o.annotation, o.dataset, o.split, o.model, o.setting,
       o.n_units, o.n_disagree,
       round(1 - o.n_disagree::double / o.n_units, 4) as agreement,
       case when 4.0 * o.n_units * o.n_units - e.sum_sq = 0 then null
            else round(1 - (2.0 * o.n_units - 1) * 2.0 * o.n_disagree
                           / (4.0 * o.n_units * o.n_units - e.sum_sq), 4) end as krippendorff_alpha
from observed o
join expected e using (reference_source, other_source, annotation)
order by o.reference_source, o.other_source, o.annotation
