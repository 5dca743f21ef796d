select benchmark, task, sample_id, split, n, variant, input, gold, label, gold_pos, n_cells, seed, generator_version
from {{ source('raw', 'samples') }}
