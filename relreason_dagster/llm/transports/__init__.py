"""How a request reaches a model: one protocol (``protocol.py``), one module per way of sending, and the
name → class table a models.yaml entry's ``transport`` picks from (``table.py``).

Empty on purpose: ``llm/registry.py`` reads the table's names while it checks models.yaml, and the
transports' own modules read the registry's ``ModelEntry``, so nothing here may import them eagerly.
"""
