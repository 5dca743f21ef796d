"""A raw table the toy family owns, so the tests see a family's own table created with no generic
file naming it (``storage/schema.py`` reads every registered family's ``tables.py``)."""

RAW_TABLES: dict[str, str] = {
    # One made-up note per toy sample; nothing writes it, the test checks that it exists.
    "toy_notes": """
        sample_id VARCHAR NOT NULL PRIMARY KEY,
        note VARCHAR
    """,
}

ADDED_COLUMNS: dict[str, list[tuple[str, str]]] = {"toy_notes": [("written_at", "TIMESTAMP")]}
