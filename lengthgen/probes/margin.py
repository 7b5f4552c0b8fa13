"""The margin bound of Corollary 2: exact per-vocabulary logit tables of a RoPE head.

A RoPE logit depends on the query token a, the key token b and the offset delta = t - n only:

    T[a, b, delta] = (W_Q x_a)^T R_delta (W_K x_b) / (sqrt(dh) tau)

At delta = 0 the key *is* the query, so only b = a occurs there. For the fixed-offset task the target
token y sits at delta = -K, and every other position of a length-L sequence (L <= span) holds some token
at some other offset in -(L-1) .. 0. With the worst-case margin

    mu = min_{a, y} [ T[a, y, -K] - max_{(b, delta): delta != -K} T[a, b, delta] ]

(delta over -(span-1) .. 0, b = a at delta = 0), every other logit of every sequence is at least mu below
the target's, so the target's softmax weight is at least 1 / (1 + (L-1) e^{-mu}) in every sequence, and
hence on average: a true lower bound at every L <= span, whatever the sign of mu. The *typical* margin
uses the mean logit profile p(delta) = mean_{a,b} T[a, b, delta] (mean_a T[a, a, 0] at delta = 0):
mu_typ = p(-K) - max_{delta != -K} p(delta); its "bound" is an estimate, not a guarantee.

Per length (``length_margins``): a length-L sequence has only the offsets -(L-1) .. 0, so mu_L, the worst
case over those offsets alone, is the exact worst case at L (mu_L >= mu_span, a tighter bound that is still
guaranteed), and mu_typ_L the typical margin over the same offsets.

Pure functions in float64; any leading dimensions (members, heads).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Mapping, Sequence

import torch

from lengthgen.config import ModelConfig
from lengthgen.probes.carrier import head_vectors, offsets_up_to, rotate_by_offsets


def logit_table(
    q_tab: torch.Tensor, k_tab: torch.Tensor, offsets: torch.Tensor, base: float, scale: float
) -> torch.Tensor:
    """T[..., a, b, j] = scale * q_a^T R_{offsets[j]} k_b: q_tab, k_tab (..., m, dh) -> (..., m, m, D) float64."""
    rotated = rotate_by_offsets(k_tab, offsets, base)  # (..., m, D, dh): R_delta k_b
    return scale * torch.einsum("...ae,...bde->...abd", q_tab.to(torch.float64), rotated)  # (..., m, m, D)


def _self_only(table: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """True where (a, b, delta) can occur: everywhere but delta = 0 with b != a. (m, m, D)"""
    m = table.shape[-2]
    same = torch.eye(m, dtype=torch.bool)[:, :, None]  # (m, m, 1)
    return same | (offsets != 0)[None, None, :]  # (m, m, D)


def worst_case_margin(table: torch.Tensor, offsets: torch.Tensor, target_offset: int) -> torch.Tensor:
    """mu = min_{a,y} [T[a, y, -K] - max over possible (b, delta != -K) of T[a, b, delta]]: (..., m, m, D) -> (...)."""
    target = _column(offsets, target_offset)
    possible = _self_only(table, offsets).clone()  # (m, m, D)
    possible[:, :, target] = False
    rivals = table.masked_fill(~possible, float("-inf")).amax((-2, -1))  # (..., m): per query token a
    on_target = table[..., target].amin(-1)  # (..., m): the weakest target token y per query token a
    return (on_target - rivals).amin(-1)  # (...)


def mean_logit_profile(table: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """p(delta) = mean_{a,b} T[a, b, delta], with mean_a T[a, a, 0] at delta = 0: (..., m, m, D) -> (..., D)."""
    possible = _self_only(table, offsets).to(table.dtype)  # (m, m, D)
    return (table * possible).sum((-3, -2)) / possible.sum((0, 1))  # (..., D)


def typical_margin(table: torch.Tensor, offsets: torch.Tensor, target_offset: int) -> torch.Tensor:
    """p(-K) - max_{delta != -K} p(delta) of the mean logit profile: (..., m, m, D) -> (...)."""
    target = _column(offsets, target_offset)
    profile = mean_logit_profile(table, offsets)  # (..., D)
    others = torch.cat((profile[..., :target], profile[..., target + 1 :]), -1)  # (..., D-1)
    return profile[..., target] - others.amax(-1)


def margin_bound(mu: float, length: int) -> float:
    """1 / (1 + (L-1) e^{-mu}): the lower bound on the target's softmax weight at length L."""
    if length < 1:
        raise ValueError(f"length {length} must be at least 1")
    return 1.0 / (1.0 + (length - 1) * math.exp(-mu))


def _column(offsets: torch.Tensor, target_offset: int) -> int:
    hits = (offsets == -target_offset).nonzero()
    if target_offset < 1 or len(hits) != 1:
        raise ValueError(f"target offset K={target_offset} is not among the offsets {offsets.min()}..{offsets.max()}")
    return int(hits[0, 0])


@dataclass(frozen=True)
class Margins:
    """The margins of one head at target offset K over offsets -(span-1) .. 0."""

    worst: float  # mu: worst case over tokens (gives a true lower bound)
    typical: float  # mu_typ: from the mean logit profile (an estimate)
    span: int  # offsets -(span-1) .. 0 were searched: the bound holds for every L <= span

    def bound(self, length: int) -> float:
        return margin_bound(self.worst, length)

    def typical_bound(self, length: int) -> float:
        return margin_bound(self.typical, length)

    def bounds(self, lengths: Sequence[int]) -> list[float]:
        return [self.bound(L) for L in lengths]

    def to_dict(self) -> dict:
        return asdict(self)


def head_logit_table(state: Mapping[str, torch.Tensor], cfg: ModelConfig, span: int, head: int = 0) -> torch.Tensor:
    """The exact logit table T[a, b, delta] (m, m, span) of one head of a RoPE model, delta = -(span-1) .. 0."""
    q, k = head_vectors(state, cfg, head, "the logit table")  # (m, dh) each
    scale = 1.0 / (math.sqrt(cfg.head_dim) * cfg.temperature)
    return logit_table(q, k, offsets_up_to(span), cfg.rope_base, scale)  # (m, m, D)


def head_logit_profile(state: Mapping[str, torch.Tensor], cfg: ModelConfig, span: int, head: int = 0) -> torch.Tensor:
    """The mean logit profile p(delta), delta = -(span-1) .. 0, of one RoPE head (softmax or linear): (span,)."""
    return mean_logit_profile(head_logit_table(state, cfg, span, head), offsets_up_to(span))


def _check_margin_head(cfg: ModelConfig, offset: int, span: int) -> None:
    if cfg.encoding != "rope" or cfg.attention != "softmax":
        raise ValueError(f"the margin bound needs a softmax RoPE head, got {cfg.encoding!r} / {cfg.attention!r}")
    if span <= offset:
        raise ValueError(f"span {span} must exceed the target offset K={offset}")


def _margins(table: torch.Tensor, offset: int, span: int) -> Margins:
    """The margins over the last ``span`` offset columns of a table (m, m, D) over -(D-1) .. 0."""
    offsets = offsets_up_to(span)
    part = table[..., table.shape[-1] - span :]  # (m, m, span): offsets -(span-1) .. 0
    return Margins(float(worst_case_margin(part, offsets, offset)), float(typical_margin(part, offsets, offset)), span)


def head_margins(state: Mapping[str, torch.Tensor], cfg: ModelConfig, offset: int, span: int, head: int = 0) -> Margins:
    """Worst-case and typical margins of one head of a softmax RoPE model's parameters ``state``."""
    _check_margin_head(cfg, offset, span)
    return _margins(head_logit_table(state, cfg, span, head), offset, span)  # table (m, m, span)


def length_margins(
    state: Mapping[str, torch.Tensor], cfg: ModelConfig, offset: int, lengths: Sequence[int], head: int = 0
) -> list[Margins]:
    """Per length L, the margins over the offsets -(L-1) .. 0 that exist at L (``Margins.span`` = L):
    mu_L, the exact worst case at L, and the typical margin over the same offsets. One table, sliced."""
    if not lengths:
        raise ValueError("length_margins needs at least one length")
    for length in lengths:
        _check_margin_head(cfg, offset, length)
    table = head_logit_table(state, cfg, max(lengths), head)  # (m, m, max L)
    return [_margins(table, offset, length) for length in lengths]
