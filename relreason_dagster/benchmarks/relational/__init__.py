"""Relational reasoning (family trees, general graphs) as in Li et al., "LLMs for Relational Reasoning".

Empty on purpose, like the other family folders: the registry imports ``family.RelationalFamily``, and a
module of this folder importing a sibling (``from ...relational import prompts``) runs no other code.
"""
