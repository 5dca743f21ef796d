"""Self-contradictory reasoning (Liu et al.): Wino-style coreference answered with reasoning.

Pure Python like every family: items and loaders, prompts, the answer/reasoning
parser, human-annotation import, judge-based detection prompts and the symbolic
step checker for relational chain-of-thought.
"""
