"""Self-contradictory reasoning (Liu et al.): Wino-style coreference answered with reasoning.

Pure Python like every family: items and loaders, prompts, the answer/reasoning
parser, human-annotation import and judge-based detection prompts.  The symbolic step
checker for relational chain-of-thought lives with its family, in ``relational/cot_verdict.py``.
"""
