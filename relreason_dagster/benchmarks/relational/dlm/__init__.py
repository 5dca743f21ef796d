"""Differentiable Logic Machine (Zimmer et al., TMLR 2023): the relational study's trained baseline.

``config`` holds the hyper-parameters, ``data`` turns samples into truth-value
tensors, ``model`` is the network, ``train`` fits it, ``program`` reads the
learned rules back out, ``checkpoint`` saves and loads it.
"""
