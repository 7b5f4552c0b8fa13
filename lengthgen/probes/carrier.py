"""The carrier probes of Lemma 2: pure functions of a RoPE head's weights.

The *carrier* of the queries is their mean over the vocabulary, m_Q = mean_a W_Q x_a (per head), and
likewise m_K = mean_b W_K x_b for the keys. Three measurements (the paper's metrics (iii) and (iv)):

- carrier energy: ||m||^2 / mean_a ||W x_a||^2 (``carrier_fraction`` of ``probes/geometry.py``);
- the carrier-only profile phi_c(delta) = m_Q^T R_delta m_K over offsets delta = t - n <= 0, whose
  argmax is the offset the carriers alone select;
- the alignment cos(m_Q, R_{-K} m_K): 1 when the key carrier is pre-rotated exactly onto the query's
  at the target offset -K.

R_delta is the block-diagonal rotation of RoPE (``encodings/rope.py``: pairs (2i, 2i+1) rotated by
delta * theta_i), so q.k_t = (W_Q x_n)^T R_{t-n} (W_K x_t) and phi_c is the logit of the mean query
token against the mean key token at offset delta (without the 1/sqrt(dh) scale). Everything is
computed in float64. Every function takes any leading dimensions (members, heads) and any even head
width, so the same code serves one model, an ensemble, or an untrained baseline.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Mapping

import torch

from lengthgen.config import ModelConfig
from lengthgen.encodings.rope import rotate_pairs, rotation_tables
from lengthgen.models.one_layer.fast import vocab_projections
from lengthgen.probes.geometry import carrier_fraction


def offsets_up_to(length: int) -> torch.Tensor:
    """The offsets a query at position L-1 sees in a length-``length`` sequence: -(L-1) .. 0."""
    if length < 1:
        raise ValueError(f"length {length} must be at least 1")
    return torch.arange(-(length - 1), 1)  # (L,)


def rotate_by_offsets(x: torch.Tensor, offsets: torch.Tensor, base: float) -> torch.Tensor:
    """R_delta x for every delta in ``offsets``: x (..., dh) -> (..., D, dh), float64."""
    cos, sin = rotation_tables(offsets, x.shape[-1], base, torch.float64)  # (D, dh/2) each
    return rotate_pairs(x.to(torch.float64)[..., None, :], cos, sin)  # (..., D, dh)


def vocab_vectors(state: Mapping[str, torch.Tensor], cfg: ModelConfig) -> tuple[torch.Tensor, torch.Tensor]:
    """Queries W_Q x_a and keys W_K x_b of every vocabulary entry of ONE model, each (H, m, dh), float64."""
    stacked = {name: state[name][None].to(torch.float64) for name in ("embed.weight", "W_Q.weight", "W_K.weight")}
    q_tab, k_tab = vocab_projections(stacked, cfg)  # (1, H, m, dh) each
    return q_tab[0], k_tab[0]


def head_vectors(
    state: Mapping[str, torch.Tensor], cfg: ModelConfig, head: int, what: str
) -> tuple[torch.Tensor, torch.Tensor]:
    """Queries and keys (m, dh) of every vocabulary entry at one head of a RoPE model, float64; ``what``
    (e.g. "the carrier profile") names the measurement in the error for a model that is not RoPE."""
    if cfg.encoding != "rope":
        raise ValueError(f"{what} is defined for RoPE heads, not encoding {cfg.encoding!r}")
    if not 0 <= head < cfg.heads:
        raise ValueError(f"head {head} is not in 0..{cfg.heads - 1}")
    q_tab, k_tab = vocab_vectors(state, cfg)  # (H, m, dh)
    return q_tab[head], k_tab[head]  # (m, dh) each


def carrier_profile(m_q: torch.Tensor, m_k: torch.Tensor, offsets: torch.Tensor, base: float) -> torch.Tensor:
    """phi_c(delta) = m_Q^T R_delta m_K: carriers (..., dh) -> (..., D)."""
    rotated = rotate_by_offsets(m_k, offsets, base)  # (..., D, dh)
    return (rotated @ m_q.to(torch.float64)[..., :, None]).squeeze(-1)  # (..., D)


def profile_peak(profile: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
    """The offset at which a profile (..., D) over ``offsets`` (D,) is largest -> (...)."""
    return offsets[profile.argmax(-1)]


def aligned_cosine(m_q: torch.Tensor, m_k: torch.Tensor, offset: int, base: float) -> torch.Tensor:
    """cos(m_Q, R_{-K} m_K) for target offset K (K = 0: plain cos(m_Q, m_K)): carriers (..., dh) -> (...)."""
    rotated = rotate_by_offsets(m_k, torch.tensor([-offset]), base)[..., 0, :]  # (..., dh)
    return torch.nn.functional.cosine_similarity(m_q.to(torch.float64), rotated, dim=-1)


@dataclass(frozen=True)
class CarrierGeometry:
    """The carrier measurements of one head (the paper's metrics (iii) and (iv))."""

    query_fraction: float  # ||m_Q||^2 / mean_a ||W_Q x_a||^2
    key_fraction: float  # ||m_K||^2 / mean_b ||W_K x_b||^2
    cosine: float  # cos(m_Q, R_{-K} m_K)
    parallel_cosine: float  # cos(m_Q, m_K): 1 for parallel carriers (delta = 0)
    peak: int  # argmax over delta of phi_c(delta)
    profile: tuple[float, ...]  # phi_c(delta) for delta = -(span-1) .. 0

    def to_dict(self) -> dict:
        return asdict(self)


def carrier_geometry(
    state: Mapping[str, torch.Tensor], cfg: ModelConfig, offset: int, span: int, head: int = 0
) -> CarrierGeometry:
    """Carrier fractions, alignment at target offset ``offset`` and the carrier-only profile over
    offsets -(span-1) .. 0 of one head of a RoPE model's parameters ``state`` (trained or not)."""
    q, k = head_vectors(state, cfg, head, "the carrier profile")  # (m, dh) each
    m_q, m_k = q.mean(0), k.mean(0)  # (dh,)
    offsets = offsets_up_to(span)  # (D,)
    profile = carrier_profile(m_q, m_k, offsets, cfg.rope_base)  # (D,)
    return CarrierGeometry(
        query_fraction=float(carrier_fraction(q)),
        key_fraction=float(carrier_fraction(k)),
        cosine=float(aligned_cosine(m_q, m_k, offset, cfg.rope_base)),
        parallel_cosine=float(aligned_cosine(m_q, m_k, 0, cfg.rope_base)),
        peak=int(profile_peak(profile, offsets)),
        profile=tuple(profile.tolist()),
    )
