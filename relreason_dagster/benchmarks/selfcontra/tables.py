"""Tables of schema ``raw`` the Self-Contra family owns: imported human labels and the judge's detections.

``storage/schema.py`` creates every registered family's ``RAW_TABLES`` beside the generic ones and adds
``ADDED_COLUMNS`` to an older DuckDB file in place, so a family owns its tables' columns here.
"""

RAW_TABLES: dict[str, str] = {
    # Human (or imported) Self-Contra labels on responses: the study's annotation CSVs, or a CSV exported
    # by `relreason selfcontra export-annotations` and filled in.  prompt_id/model link a label to one of
    # our own responses when the CSV came from an export.
    "annotations": """
        annotation_id VARCHAR NOT NULL PRIMARY KEY,
        source VARCHAR NOT NULL,
        row_number INTEGER NOT NULL,
        dataset VARCHAR,
        split VARCHAR,
        model VARCHAR,
        setting VARCHAR,
        question VARCHAR,
        response VARCHAR,
        correct BOOLEAN,
        self_contra BOOLEAN,
        type VARCHAR,
        categories JSON,
        prompt_id VARCHAR,
        raw JSON,
        notes JSON,
        imported_at TIMESTAMP
    """,
    # A judge model's Self-Contra verdict on one response under one detection method (§4).
    # target_kind 'annotation': an annotated response (target_id = annotation_id), scored against the
    # human label; 'response': one of our own responses (target_id = prompt_id, model = its model) read
    # on its answer; 'trace': the same response read on its reasoning trace (the knob reasoning_source),
    # status 'empty' when it has none (nothing asked).  The kind says the source, so the table kept
    # its columns: staging.stg_detections spells it out as target_kind 'response' with source 'trace'.
    "detections": """
        detection_id VARCHAR NOT NULL PRIMARY KEY,
        method VARCHAR NOT NULL,
        judge VARCHAR NOT NULL,
        target_kind VARCHAR NOT NULL,
        target_id VARCHAR NOT NULL,
        dataset VARCHAR,
        model VARCHAR,
        setting VARCHAR,
        status VARCHAR NOT NULL,
        self_contra BOOLEAN,
        type VARCHAR,
        correct BOOLEAN,
        probes JSON,
        created_at TIMESTAMP
    """,
    # The referent a response's reasoning trace reaches beside the one its answer names
    # (trace_readings.py): read for marts.selfcontra_trace_vs_answer, never scored.
    "selfcontra_trace_readings": """
        prompt_id VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        dataset VARCHAR,
        setting VARCHAR,
        has_trace BOOLEAN NOT NULL,
        trace_index INTEGER,
        trace_referent VARCHAR,
        trace_correct BOOLEAN,
        answer_index INTEGER,
        answer_status VARCHAR,
        correct BOOLEAN,
        PRIMARY KEY (prompt_id, model)
    """,
    # App. D's evidence-missing probe (probe_steps.py): per judged response, how many of the question's
    # evidence segments the judge says its reasoning mentions; evidence_missing when one is not.
    "selfcontra_em_probes": """
        probe_id VARCHAR NOT NULL PRIMARY KEY,
        judge VARCHAR NOT NULL,
        target_kind VARCHAR NOT NULL,
        target_id VARCHAR NOT NULL,
        dataset VARCHAR,
        model VARCHAR,
        setting VARCHAR,
        n_segments INTEGER,
        n_mentioned INTEGER,
        status VARCHAR NOT NULL,
        evidence_missing BOOLEAN,
        correct BOOLEAN,
        probes JSON,
        created_at TIMESTAMP
    """,
    # App. C's POV conversations (probe_steps.py, pov.py): one row per annotated response x kind
    # (reasoning: Table 13, diagnostic: Table 11) x order x variant, asked of the run's model.
    "selfcontra_pov": """
        pov_id VARCHAR NOT NULL PRIMARY KEY,
        model VARCHAR NOT NULL,
        kind VARCHAR NOT NULL,
        pov_order VARCHAR NOT NULL,
        variant VARCHAR NOT NULL,
        target_id VARCHAR NOT NULL,
        dataset VARCHAR,
        split VARCHAR,
        judged_model VARCHAR,
        setting VARCHAR,
        correct_answer BOOLEAN,
        reasoning VARCHAR,
        categories JSON,
        status VARCHAR NOT NULL,
        final_index INTEGER,
        correct BOOLEAN,
        score DOUBLE,
        final_reply VARCHAR,
        created_at TIMESTAMP
    """,
    # Per model, dataset and setting: how many prompts it answered, and how many were worded as the study
    # asked that model (wording.py); study_model is the release's name of the model it is taken for.
    "selfcontra_wording": """
        model VARCHAR NOT NULL,
        dataset VARCHAR NOT NULL,
        setting VARCHAR NOT NULL,
        study_model VARCHAR NOT NULL,
        n INTEGER NOT NULL,
        n_study_wording INTEGER NOT NULL,
        PRIMARY KEY (model, dataset, setting)
    """,
}

# Columns added after a table first shipped: an older DuckDB file gains them in place.
ADDED_COLUMNS: dict[str, list[tuple[str, str]]] = {
    # The WinoBias split of an imported annotation file (anti_test / pro_test; NULL when its name says none).
    "annotations": [("split", "VARCHAR")],
}
