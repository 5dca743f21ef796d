"""Tables of schema ``raw`` the relational family owns: its DLM baseline's trained runs and the
symbolic step checker's verdicts.

``storage/schema.py`` creates every registered family's ``RAW_TABLES`` beside the generic ones and adds
``ADDED_COLUMNS`` to an older DuckDB file in place, so a family owns its tables' columns here.
"""

RAW_TABLES: dict[str, str] = {
    # One row per trained DLM (task, config, seed, training set); its answers are parsed_answers
    # rows of model 'dlm' whose detail names the run_id.
    "dlm_runs": """
        run_id VARCHAR NOT NULL PRIMARY KEY,
        task VARCHAR NOT NULL,
        seed INTEGER NOT NULL,
        recipe VARCHAR,
        config JSON NOT NULL,
        train_size INTEGER,
        train_sample_ids JSON,
        n_params INTEGER,
        epochs INTEGER,
        attempts INTEGER,
        total_epochs INTEGER,
        final_loss DOUBLE,
        train_hard_errors INTEGER,
        wall_s DOUBLE,
        peak_rss_mb DOUBLE,
        rss_increase_mb DOUBLE,
        checkpoint_path VARCHAR,
        checkpoint_sha256 VARCHAR,
        program VARCHAR,
        units_used INTEGER,
        torch_version VARCHAR,
        created_at TIMESTAMP
    """,
    # The symbolic step checker's verdict on one relational chain-of-thought response, read on its answer
    # or on its reasoning trace (``source``: the knob ``reasoning_source``).  It replaced
    # ``symbolic_checks`` (keyed by prompt and model only, so it could not hold a trace row beside the
    # answer's); an older file keeps that table unread, and its checks are made once more here.
    "cot_checks": """
        prompt_id VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        source VARCHAR NOT NULL,
        task VARCHAR,
        split VARCHAR,
        setting VARCHAR,
        correct BOOLEAN,
        n_steps INTEGER,
        n_claims INTEGER,
        n_checked INTEGER,
        n_false INTEGER,
        n_contradictions INTEGER,
        n_derived INTEGER,
        n_false_derived INTEGER,
        n_unsupported_derived INTEGER,
        category VARCHAR NOT NULL,
        self_contra BOOLEAN,
        detail JSON,
        parse_key VARCHAR,
        PRIMARY KEY (prompt_id, model, source)
    """,
}

# Columns added after a table first shipped: an older DuckDB file gains them in place.
ADDED_COLUMNS: dict[str, list[tuple[str, str]]] = {
    # The DLM recipe a run trained with (dlm/config.py RECIPES); NULL on older rows (the task's default).
    "dlm_runs": [("recipe", "VARCHAR")],
}
