"""Tables of schema ``raw`` the KOR-Bench family owns: its self-correction rounds, its model pairs, the
study's released responses.

``storage/schema.py`` creates every registered family's ``RAW_TABLES`` beside the generic ones and adds
``ADDED_COLUMNS`` to an older DuckDB file in place, so a family owns its tables' columns here.
"""

RAW_TABLES: dict[str, str] = {
    # KOR-Bench self-correction (§6.2): one row per model x question x round.  Round 0 is the
    # zero-shot answer (a test prompt of benchmark kor); round k >= 1 answers the conversation so far
    # plus the official follow-up, a model-specific raw.prompts row of benchmark kor and kind
    # 'self_correction' whose parent_prompt_id is round k-1's prompt.
    "kor_rounds": """
        model VARCHAR NOT NULL,
        sample_id VARCHAR NOT NULL,
        round INTEGER NOT NULL,
        prompt_id VARCHAR NOT NULL,
        parent_prompt_id VARCHAR,
        task VARCHAR,
        split VARCHAR,
        rule_id VARCHAR,
        parse_status VARCHAR,
        correct BOOLEAN,
        reason VARCHAR,
        history VARCHAR,
        robust_correct BOOLEAN,
        PRIMARY KEY (model, sample_id, round)
    """,
    # Each model's models.yaml base_of (the chat model it is the base of; null for most): KOR-Bench
    # §5's base-vs-chat pairs (steps.ModelPairs, marts.kor_base_vs_chat).
    "kor_model_pairs": """
        model VARCHAR NOT NULL,
        base_of VARCHAR,
        PRIMARY KEY (model)
    """,
    # The study's own models (KOR-Bench §5 beside a run's): one row per record of the released evaluation
    # files the profile's released_dir holds (released.py), judged as Table 2 was, with §5's readings.
    "kor_released": """
        model VARCHAR NOT NULL,
        category VARCHAR NOT NULL,
        idx VARCHAR NOT NULL,
        setting VARCHAR NOT NULL,
        rule_id VARCHAR,
        direction VARCHAR,
        correct BOOLEAN,
        official_correct BOOLEAN,
        real_life BOOLEAN,
        style VARCHAR,
        cipher_error VARCHAR,
        PRIMARY KEY (model, category, setting, idx)
    """,
}

# Columns added after a table first shipped: an older DuckDB file gains them in place.
ADDED_COLUMNS: dict[str, list[tuple[str, str]]] = {
    # The robust verdict of each KOR self-correction round (``correct`` is the paper's judgement).
    "kor_rounds": [("robust_correct", "BOOLEAN")],
}
