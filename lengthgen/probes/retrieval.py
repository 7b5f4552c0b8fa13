"""Probes of a full-sequence causal model's heads: pure functions of attention patterns and activations.

A *pattern* is a causal attention matrix (..., P, P) with the query position as row and the key
position as column (``hook_pattern`` of ``models/two_layer/transformer.py``, or its mean over sequences). Offsets
are key minus query: the target of the shift task sits at offset -K from every query t >= K.
"""

from __future__ import annotations

import torch


def offset_attention(pattern: torch.Tensor, offset: int, queries: range) -> torch.Tensor:
    """Mean attention at offset -``offset`` over the query rows ``queries``: (..., P, P) -> (...).

    The retrieving head is the one for which this is largest at the training offset K, over the
    in-distribution queries K <= t < Lmax.
    """
    rows = torch.arange(queries.start, queries.stop)  # (T,)
    if len(rows) == 0 or int(rows.min()) < offset or int(rows.max()) >= pattern.shape[-1]:
        raise ValueError(f"query rows {queries} must lie in [{offset}, {pattern.shape[-1]})")
    return pattern[..., rows, rows - offset].double().mean(-1)  # (...)


def retrieving_head(scores: torch.Tensor) -> tuple[int, int]:
    """(layer, head) of the largest entry of ``scores`` (layers, heads); ties go to the earliest."""
    flat = int(scores.reshape(-1).argmax())
    return divmod(flat, scores.shape[-1])


def last_query_profile(pattern: torch.Tensor, length: int) -> torch.Tensor:
    """The attention of the last query of a length-``length`` prefix: (..., P, P) -> (..., length).

    Under causal attention the first ``length`` positions of a longer sequence *are* a length-``length``
    sequence, so this is the evaluation-length-L profile of the one-layer probes (query n = L - 1).
    """
    if not 1 <= length <= pattern.shape[-1]:
        raise ValueError(f"length {length} is outside the pattern's {pattern.shape[-1]} positions")
    return pattern[..., length - 1, :length]  # (..., L)


def token_conditioned_means(vectors: torch.Tensor, tokens: torch.Tensor, vocab: int) -> torch.Tensor:
    """Per vocabulary entry b, the mean of ``vectors`` (N, P, dh) over the positions holding token b.

    tokens (N, P) in [0, vocab) -> (vocab, dh). Raises ``ValueError`` if a token never occurs.
    """
    flat_tokens = tokens.reshape(-1)  # (N*P,)
    flat = vectors.reshape(flat_tokens.shape[0], -1).double()  # (N*P, dh)
    counts = torch.bincount(flat_tokens, minlength=vocab)  # (vocab,)
    if int(counts.min()) == 0:
        raise ValueError(f"token {int(counts.argmin())} never occurs; cannot condition on it")
    sums = torch.zeros(vocab, flat.shape[1], dtype=torch.float64).index_add_(0, flat_tokens, flat)  # (vocab, dh)
    return sums / counts[:, None]  # (vocab, dh)
