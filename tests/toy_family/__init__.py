"""A toy benchmark family that lives only in the tests: proof that a family is one folder plus one
registry line (``tests/integration/families/test_toy_family.py`` registers and runs it)."""
