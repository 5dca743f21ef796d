-- One row per trained DLM (task x config x seed x training set).
select run_id, task, seed, recipe, config, train_size, train_sample_ids, n_params, epochs, attempts, total_epochs,
       final_loss,
       train_hard_errors, wall_s, peak_rss_mb, rss_increase_mb, checkpoint_path, checkpoint_sha256,
       program, units_used, torch_version, created_at
from {{ source('raw', 'dlm_runs') }}
