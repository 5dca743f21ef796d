"""The Differentiable Logic Machine network (Zimmer et al., TMLR 2023), written from its published design.

Predicates of arity 0..B live as tensors ``[batch, n, ..., n, channels]`` over
the ``n`` objects of a world.  Each layer builds, per arity ``r``, the
candidate atoms a rule body may use:

* the previous layer's arity-``r`` predicates (plus the input predicates, which
  every layer sees again so a deep model need not copy them forward);
* the arity-``r-1`` predicates *expanded* with a new last variable;
* the arity-``r+1`` predicates *reduced* over their last variable by ∃ (max)
  and ∀ (min), over the cells whose arguments are pairwise distinct (the
  quantified variable differs from the others; at a cell with a repeated
  argument the range is empty);
* every permutation of the ``r`` variables of all of the above, each atom and
  its negation ``1 - p``, and the constant True.

A computation unit selects two candidates with a softmax over learnable
logits (training: Gumbel noise, a temperature, and dropout that hides random
candidates; evaluation: argmax, so the network is a discrete program) and
combines them with the product t-norm AND ``a*b`` or the probabilistic-sum OR
``a + b - a*b``; half the units of each arity are AND, half OR.  Negated
inputs and the True constant give the other forms (``a ∧ ¬b``, ``¬a ∨ b``,
copy ``a ∧ True``).  The head selects one arity-``t`` candidate of the last
layer as the target predicate.

Selection commutes with permuting variables, so a unit's input is computed as
``Σ_π permute_π(Z @ S_π)`` over the ``Z`` channels rather than materialising
``r!`` permuted copies and their negations (``S·(1-Z) = ΣS - S·Z``).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import torch
from torch import nn

from relreason_dagster.benchmarks.relational.dlm.config import DLMConfig


@dataclass(frozen=True)
class Source:
    """Where one input channel of a layer's arity comes from (for reading the program back)."""

    kind: str  # own | expand | exists | forall
    arity: int  # arity of the referenced predicate in the previous layer
    channel: int  # its channel index there


@dataclass
class Noise:
    """Training-time selection noise; ``None`` in a forward pass means hard (argmax) selection."""

    temperature: float
    gumbel_scale: float
    dropout: float
    straight_through: bool = False  # forward the argmax of the noisy logits, backpropagate the softmax
    per_sample: int = 0  # > 0: independent noise for each of this many batch items (the DLM authors' default)
    drop_weights: bool = False  # dropout on the softmax weights, renormalised (may hide the favourite)


class Selector(nn.Module):
    """``k`` soft selections over the candidates of one arity (optionally with the True constant)."""

    def __init__(
        self,
        arity: int,
        channels: int,
        k: int,
        with_true: bool,
        init_std: float,
        negations: bool = True,
        permutations: bool = True,
    ) -> None:
        super().__init__()
        self.arity = arity
        self.channels = channels
        self.k = k
        self.with_true = with_true
        # negations=False: candidates are the positive atoms only (the DLM authors' layer, where a unit's
        # second atom is negated by the unit's type, not chosen); permutations=False: the identity only.
        self.negations = negations
        self.perms: list[tuple[int, ...]] = (
            list(itertools.permutations(range(arity))) if permutations else [tuple(range(arity))]
        )
        n_candidates = int(with_true) + (2 if negations else 1) * len(self.perms) * channels
        self.logits = nn.Parameter(torch.randn(k, n_candidates) * init_std)

    def weights(self, noise: Noise | None) -> torch.Tensor:
        """``[k, K]`` (or ``[batch, k, K]`` with per-sample noise) selection weights.

        Soft with noise while training, one-hot otherwise.
        """
        logits = self.logits
        if noise is None:
            return nn.functional.one_hot(logits.argmax(dim=1), logits.shape[1]).to(logits.dtype)
        if noise.per_sample:
            logits = logits.unsqueeze(0).expand(noise.per_sample, *logits.shape)
        # Gumbel(0, 1) as -log(Exp(1)); a uniform near 1.0 in float32 would give an infinite sample.
        gumbel = -torch.empty_like(logits).exponential_().clamp_(min=1e-20).log()
        noisy = (logits + noise.gumbel_scale * gumbel) / noise.temperature
        if noise.dropout > 0 and noise.drop_weights:
            soft = torch.softmax(noisy, dim=-1) * (torch.rand_like(logits) >= noise.dropout)
            return soft / (soft.sum(dim=-1, keepdim=True) + 1e-5)
        if noise.dropout > 0:
            hide = torch.rand_like(logits) < noise.dropout
            if self.with_true:
                hide[..., 0] = False
            hide &= ~nn.functional.one_hot(noisy.argmax(dim=-1), logits.shape[-1]).bool()  # keep one visible
            noisy = noisy.masked_fill(hide, float("-inf"))
        soft = torch.softmax(noisy, dim=-1)
        if noise.straight_through:
            hard = nn.functional.one_hot(noisy.argmax(dim=-1), logits.shape[-1]).to(soft.dtype)
            return hard + soft - soft.detach()
        return soft

    def forward(self, z: torch.Tensor | None, noise: Noise | None, shape: tuple[int, ...]) -> torch.Tensor:
        """Selected atoms ``[batch, n^r, k]`` from channels ``z`` ``[batch, n^r, D]``."""
        w = self.weights(noise)
        n_perm, d = len(self.perms), self.channels
        offset = int(self.with_true)
        pos = w[..., offset : offset + n_perm * d]
        if self.negations:
            neg = w[..., offset + n_perm * d :]
            const = neg.sum(dim=-1)  # Σ s·(1 - z) = Σ s - Σ s·z
            signed = pos - neg
        else:
            const, signed = torch.zeros_like(w[..., 0]), pos
        if self.with_true:
            const = const + w[..., 0]
        if w.dim() == 3:  # per-sample weights [batch, k, K]: broadcast over the object axes
            const = const.view(const.shape[0], *([1] * (len(shape) - 1)), self.k)
        if z is None or d == 0:
            return const.expand(*shape, self.k)
        if n_perm > 1:  # candidate (π, c) at (v_0..v_r-1) is channel c at the arguments permuted by π
            z = torch.cat(
                [z.permute(0, *[1 + p for p in perm], self.arity + 1) for perm in self.perms], dim=-1
            )
        # [batch, n^r, D] @ [D, k] (shared weights) or [batch, D, k] (per-sample weights)
        flat = z.reshape(z.shape[0], -1, z.shape[-1])
        return torch.matmul(flat, signed.transpose(-1, -2)).view(*z.shape[:-1], self.k) + const


def _exclusion_mask(arity: int, n: int, device: torch.device) -> torch.Tensor:
    """``[n]*arity + [n]`` bool: some two of the ``arity + 1`` arguments are the same object.

    A reduction ranges only over cells whose arguments are pairwise distinct, as in the Neural
    Logic Machines' reducer that DLM builds on: the quantified variable differs from the remaining
    arguments, and at a cell whose remaining arguments repeat (the diagonal ``(x, x)``) the range is
    empty, so ∃ is False and ∀ is True there.  That is what lets a network say ``x ≠ y``: without
    it, ``∃z (E(x, z) ∧ E(z, y))`` is true at ``(x, x)`` for every node with a neighbour, and no
    program can express k-Connectivity, whose targets are pairs of different nodes (see
    ``tests/unit/relational/test_dlm_formulas.py``).
    """
    idx = torch.arange(n, device=device)
    mask = torch.zeros((n,) * (arity + 1), dtype=torch.bool, device=device)
    for i, j in itertools.combinations(range(arity + 1), 2):
        shape_i, shape_j = [1] * (arity + 1), [1] * (arity + 1)
        shape_i[i], shape_j[j] = n, n
        mask = mask | (idx.view(shape_i) == idx.view(shape_j))
    return mask


class DLM(nn.Module):
    """Layers of AND/OR units over predicates of arity 0..breadth; a head picks the target."""

    def __init__(self, n_base: int, target_arity: int, config: DLMConfig, base_arity: int = 2) -> None:
        super().__init__()
        if not 0 <= target_arity <= config.breadth or not 0 <= base_arity <= config.breadth:
            raise ValueError("target and input arities must be within the breadth")
        if config.predicates < 2 or config.predicates % 2:
            raise ValueError("predicates per arity must be an even number ≥ 2 (half AND, half OR)")
        authors = config.layout == "authors"
        if authors and config.predicates % 4:
            raise ValueError(
                "the authors' layout needs predicates per arity divisible by 4 (four unit types)"
            )
        self.config = config
        self.n_base = n_base
        self.base_arity = base_arity
        self.target_arity = target_arity
        breadth, m = config.breadth, config.predicates
        # Channel layout of the "previous" state at each layer: unit outputs, then (arity 2) the inputs.
        self.sources: list[list[list[Source]]] = []  # [layer][arity] -> channels of Z
        self.layers = nn.ModuleList()
        prev_channels = [n_base if r == base_arity else 0 for r in range(breadth + 1)]
        for _layer in range(config.depth):
            selectors = nn.ModuleList()
            layer_sources = []
            for r in range(breadth + 1):
                srcs = self._sources(r, prev_channels)
                layer_sources.append(srcs)
                selectors.append(
                    Selector(
                        r, len(srcs), 2 * m, with_true=True, init_std=config.init_std, negations=not authors
                    )
                )
            self.layers.append(selectors)
            self.sources.append(layer_sources)
            residual = n_base if config.inputs_every_layer else 0
            prev_channels = [m + (residual if r == base_arity else 0) for r in range(breadth + 1)]
        if config.head == "and2":  # the authors' head: a ∧ b over the last layer's arity-t outputs and True
            self.head_sources = [Source("own", target_arity, j) for j in range(prev_channels[target_arity])]
            self.head = Selector(
                target_arity,
                len(self.head_sources),
                2,
                with_true=True,
                init_std=config.init_std,
                negations=False,
                permutations=False,
            )
        else:
            self.head_sources = self._sources(target_arity, prev_channels)
            self.head = Selector(
                target_arity, len(self.head_sources), 1, with_true=False, init_std=config.init_std
            )
        if config.init == "kaiming":  # the DLM authors' init: N(0, 1/fan_in), fan_in = candidates per unit
            for selector in [*(sel for layer in self.layers for sel in layer), self.head]:
                nn.init.kaiming_normal_(selector.logits, nonlinearity="sigmoid")
                if authors:  # their weight is [units, 2 atoms, candidates]: fan_in counts both atoms
                    selector.logits.data.mul_(0.5**0.5)
        self.needed = self._needed_arities()
        self._masks: dict[tuple[int, int], torch.Tensor] = {}
        # relreason's layout: units 0..m/2-1 of every arity are AND, the rest OR.  The authors' layout:
        # quarters AND(a, b), OR(a, b), AND(a, ¬b), OR(a, ¬b).
        unit = torch.arange(m)
        is_or = (unit % (m // 2) >= m // 4) if authors else (unit >= m // 2)
        self.register_buffer("is_or", is_or.float(), persistent=False)
        self.register_buffer("negate_b", (unit >= m // 2).float() * float(authors), persistent=False)

    def unit_form(self, unit: int) -> tuple[str, bool]:
        """``(op, second atom negated)`` of unit ``unit`` of any arity (for reading the program back)."""
        return ("or" if self.is_or[unit] > 0 else "and"), bool(self.negate_b[unit] > 0)

    def _needed_arities(self) -> list[set[int]]:
        """Per layer, the arities whose outputs can still reach the head (arity moves ±1 per layer).

        The others are not computed: the head's value is the same without them, and a breadth-4
        network saves its two most expensive late layers.  Their parameters stay, so the
        parameter count is the authors' architecture.
        """
        breadth, t = self.config.breadth, self.target_arity
        reach = (t,) if self.config.head == "and2" else (t - 1, t, t + 1)  # and2 reads arity t only
        need = {r for r in reach if 0 <= r <= breadth}
        needed: list[set[int]] = []
        for _layer in range(self.config.depth):
            needed.append(need)
            need = {q for r in need for q in (r - 1, r, r + 1) if 0 <= q <= breadth}
        return needed[::-1]

    def _sources(self, r: int, prev_channels: list[int]) -> list[Source]:
        srcs = [Source("own", r, j) for j in range(prev_channels[r])]
        if r >= 1:
            srcs += [Source("expand", r - 1, j) for j in range(prev_channels[r - 1])]
        if r + 1 < len(prev_channels):
            srcs += [Source("exists", r + 1, j) for j in range(prev_channels[r + 1])]
            srcs += [Source("forall", r + 1, j) for j in range(prev_channels[r + 1])]
        return srcs

    def n_parameters(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def _mask(self, arity: int, n: int, device: torch.device) -> torch.Tensor:
        key = (arity, n)
        if key not in self._masks:
            self._masks[key] = _exclusion_mask(arity, n, device)
        return self._masks[key]

    def _gather(
        self, r: int, state: list[torch.Tensor | None], batch: int, n: int, soft: bool = False
    ) -> torch.Tensor | None:
        """The ``Z`` channels of arity ``r`` (own, expanded, reduced) in ``Source`` order.

        ``soft`` (training with ``soft_quantifiers = "noisy_or"``): ∃ is ``1 - Π(1 - p)`` and ∀ is
        ``Π p`` instead of max and min, so every witness gets a gradient, not only the current best
        one.  On 0/1 truth values both are exactly max and min, so the hard program is unchanged.
        """
        parts: list[torch.Tensor] = []
        if state[r] is not None:
            parts.append(state[r])
        if r >= 1 and state[r - 1] is not None:
            low = state[r - 1]
            parts.append(low.unsqueeze(-2).expand(*low.shape[:-1], n, low.shape[-1]))
        if r + 1 < len(state) and state[r + 1] is not None:
            high = state[r + 1]
            if r == 0:
                some, every = high, high
            else:
                mask = self._mask(r, n, high.device).unsqueeze(-1)
                some, every = high.masked_fill(mask, 0.0), high.masked_fill(mask, 1.0)
            if soft:
                exists, forall = 1.0 - (1.0 - some).prod(dim=-2), every.prod(dim=-2)
            else:
                exists, forall = some.amax(dim=-2), every.amin(dim=-2)
            parts += [exists, forall]
        if not parts:
            return None
        return torch.cat(parts, dim=-1)

    def forward(self, base: torch.Tensor, noise: Noise | None = None) -> torch.Tensor:
        """Target truth values ``[batch, n^t]`` for input predicates ``base`` ``[batch, n^2, C]``."""
        batch, n = base.shape[0], base.shape[1]
        breadth = self.config.breadth
        state: list[torch.Tensor | None] = [
            base if r == self.base_arity else None for r in range(breadth + 1)
        ]
        soft = noise is not None and self.config.soft_quantifiers == "noisy_or"
        for selectors, needed in zip(self.layers, self.needed, strict=True):
            new_state: list[torch.Tensor | None] = []
            for r, selector in enumerate(selectors):
                if r not in needed:
                    new_state.append(None)
                    continue
                z = self._gather(r, state, batch, n, soft)
                shape = (batch,) + (n,) * r
                a, b = selector(z, noise, shape).unflatten(-1, (2, -1)).unbind(-2)
                if self.config.layout == "authors":
                    b = b + self.negate_b * (1.0 - 2.0 * b)  # units of the second half read ¬b
                both = a * b
                out = both + self.is_or * (a + b - 2 * both)  # AND: a·b; OR: a + b - a·b
                if r == self.base_arity and self.config.inputs_every_layer:
                    out = torch.cat([out, base], dim=-1)
                new_state.append(out)
            state = new_state
        shape = (batch,) + (n,) * self.target_arity
        if self.config.head == "and2":
            picks = self.head(state[self.target_arity], noise, shape)
            return picks[..., 0] * picks[..., 1]
        z = self._gather(self.target_arity, state, batch, n, soft)
        return self.head(z, noise, shape)[..., 0]


def bce(pred: torch.Tensor, target: torch.Tensor, eps: float = 0.0) -> torch.Tensor:
    """Binary cross-entropy on probabilities; torch clamps the logs at -100, so an exact 0/1 stays finite.

    ``eps`` > 0 squeezes predictions into ``[eps, 1 - eps]`` first (the DLM authors use 1e-5), which
    bounds the loss of a confidently wrong cell at ``-log(eps)`` and its gradient at ``1/eps``.
    """
    pred = pred.clamp(0.0, 1.0)
    if eps:
        pred = eps + pred * (1.0 - 2.0 * eps)
    return nn.functional.binary_cross_entropy(pred, target)
