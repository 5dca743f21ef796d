"""Tables of schema ``raw`` the FLenQA family owns: its CoT reads of answers and traces.

``storage/schema.py`` creates every registered family's ``RAW_TABLES`` beside the generic ones.
"""

RAW_TABLES: dict[str, str] = {
    # One row per FLenQA true/false response (direct and CoT prompts) and source ('answer' | 'trace', the
    # profile's reasoning_source): §7's reads of that text.
    "flenqa_trace_reads": """
        prompt_id VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        source VARCHAR NOT NULL,
        setting VARCHAR,
        answer_first BOOLEAN,
        keys_covered INTEGER,
        has_trace BOOLEAN,
        PRIMARY KEY (prompt_id, model, source)
    """,
}

# Columns added after the table first shipped (``storage/schema.py`` adds them to an older file in place):
# ``reading``, the rules the row was read by ('study' = the study's notebook, 'relreason'; reading.py).
ADDED_COLUMNS: dict[str, list[tuple[str, str]]] = {
    "flenqa_trace_reads": [("reading", "VARCHAR")],
}
