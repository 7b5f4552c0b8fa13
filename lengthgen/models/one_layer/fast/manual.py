"""The one-layer step by hand: the table path's forward (the tables of ``forward.py``'s ``table_forward``),
keeping what its backward needs, and the backward derived in closed form, with no autograd graph: the
engine's training step (``engine/train.py``; autograd through ``table_forward`` on request,
``backward="autograd"``). ``tests/test_manual_backward.py`` checks its loss and every gradient against
autograd through the reference forward (``head.py``) and through the fast path, for every encoding, head
count, attention, task and reading.

Per member (S members side by side, no sum across them), with rows X (R, d) (the vocabulary E, and for APE
the reachable position rows too), c = 1 / (sqrt(dh) tau), and per head h:

    Q = X W_Q^T, K = X W_K^T, V = X W_V^T (R, dh)         logits z_b = sum_h sum_r M_hrb C_hr
    S_hjb = T_h[query row_b, key row_jb] (+ bias)         C_h = V_h U_h^T (R, m): the rows' readout
    A = softmax_j(S) over the real columns (linear: A=S)  M_hrb = sum_j A_hjb [row_jb = r]: the row mass
    L = mean_b CE(z_b, y_b)                               T = c Q K^T (NoPE, ALiBi, T5, APE)
                                                          T[a, b, j] = c q_a . R_j k_b (RoPE, j the column)

Backward, line by line the adjoint of the forward (G = dL/dz):

    G_b = (softmax(z_b) - onehot(y_b)) / B
    dC_h = M_h G^T,  dM_h = C_h G;   dV_h = dC_h U_h,  dU_h = dC_h^T V_h
    dA_hjb = dM_h[row_jb, b]               (the adjoint of a scatter-add is the gather at the same index)
    dS = A * (dA - sum_j A dA)  (softmax; 0 on padding, as A is),  dS = dA on real columns (linear)
    dT = scatter-add of dS at each logit's table entry  (the adjoint of the gather)
    T = c Q K^T:  dQ = c dT K,  dK = c dT^T Q;   T5: db[bucket(P-1-j), h] += sum_b dS_hjb (ALiBi's is fixed)
    RoPE, with Rot_K[b, j] = c R_j k_b and Rot_Q[a, j] = c R_j^T q_a (both kept from the forward):
        T = Q Rot_K^T,  dQ = dT Rot_K,  dK[b] = sum_{a, j} dT[a, b, j] Rot_Q[a, j]   (three matmuls)
    dW_Q = dQ^T X,  dW_K = dK^T X,  dW_V = dV^T X,  dX = dQ W_Q + dK W_K + dV W_V
    dE = dX[:m];  APE: dP[:U] = dX[m:]; the positions a batch cannot reach get 0

A batch is kept column-major, (S, H, P, B) for the logits and (S, H, R, B) for the row mass, and the logits
(S, m, B): the softmaxes then run over a non-innermost axis with the sequences side by side, which
vectorises; ``manual_scores.py`` says where each encoding puts the scale c.

It covers every configuration ``ModelConfig`` allows (encodings rope, ape, nope, alibi, t5; softmax and
linear attention; any head count; the readings init, ape_unseen, ape_value; temperature, rope_base,
positions, d) and every task (the task only sets the targets; ``length_mix`` only the batches). It is a
training path: ``evaluate_variants.py``'s position and logit scaling and the reference's
``position_shift`` are not in it (evaluation keeps ``table_forward``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from lengthgen.config import ATTENTIONS, ModelConfig
from lengthgen.models.one_layer.fast.forward import TableOutput
from lengthgen.models.one_layer.fast.manual_scores import SCORES, bmm, expand_index
from lengthgen.models.one_layer.fast.paths import fast_path

MANUAL_ENCODINGS = tuple(SCORES)


def check_supported(cfg: ModelConfig) -> None:
    """Raise ``ValueError`` for a configuration the hand-derived step does not implement."""
    if cfg.encoding not in SCORES:
        raise ValueError(f"encoding {cfg.encoding!r} has no hand-derived step (known: {', '.join(SCORES)})")
    if cfg.attention not in ATTENTIONS:
        raise ValueError(f"attention {cfg.attention!r} has no hand-derived step (known: {', '.join(ATTENTIONS)})")


@dataclass
class ManualState:
    """What the backward needs from a forward (one step's activations, no graph)."""

    cfg: ModelConfig
    names: tuple[str, ...]  # the parameter names, in the order of ``p``
    shapes: dict[str, torch.Size]  # their stacked shapes
    rows: torch.Tensor  # (S, R, d) the rows X
    weights: tuple[torch.Tensor, torch.Tensor, torch.Tensor]  # W_Q, W_K, W_V (S, d, d) each
    unembed: torch.Tensor  # (S, m, d) U
    v: torch.Tensor  # (S, H, R, dh) values of the rows
    row_readout: torch.Tensor  # (S, H, R, m) C = V U_h
    attention: torch.Tensor  # (S, H, P, B) A, column-major (0 on padding)
    padding: torch.Tensor  # (S|1, 1, P, B) the padding columns
    mass: torch.Tensor  # (S, H, R, B) M, column-major
    mass_index: tuple[torch.Tensor, ...]  # (S, H, P*B) each: the (row, sequence) a column's mass adds to
    scores: object  # the encoding's ``manual_scores`` object (its own saved tensors)


def _heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    """(S, R, d) -> (S, H, R, dh), contiguous (a view for one head)."""
    S, R, d = x.shape
    return x.view(S, R, heads, d // heads).transpose(1, 2).contiguous()


def _merge(x: torch.Tensor) -> torch.Tensor:
    """(S, H, R, dh) -> (S, R, H*dh), contiguous: the inverse of ``_heads``."""
    S, H, R, dh = x.shape
    return x.transpose(1, 2).reshape(S, R, H * dh)


@torch.no_grad()
def manual_forward(
    p: dict[str, torch.Tensor], cfg: ModelConfig, tokens: torch.Tensor, lengths: torch.Tensor
) -> tuple[TableOutput, ManualState]:
    """``table_forward``'s logits and attention of right-aligned ``tokens`` (S|1, B, P) with ``lengths``
    (S|1, B), and the state ``manual_backward`` needs. The outputs are views of column-major tensors."""
    check_supported(cfg)
    S, m, _ = p["embed.weight"].shape
    H = cfg.heads
    B, width = tokens.shape[-2:]
    rows = fast_path(cfg.encoding).rows(p, cfg, width)  # (S, R, d)
    R = rows.shape[1]
    weights = (p["W_Q.weight"], p["W_K.weight"], p["W_V.weight"])  # (S, d, d) each
    q, k, v = (_heads(torch.bmm(rows, w.transpose(1, 2)), H) for w in weights)  # (S, H, R, dh) each, unscaled
    scores_of = SCORES[cfg.encoding](cfg, tokens, lengths, R, 1.0 / (math.sqrt(cfg.head_dim) * cfg.temperature))
    scores = scores_of.forward(p, q, k)  # (S, H, P, B) scaled logits, column-major
    column = torch.arange(width, device=tokens.device)[:, None]  # (P, 1)
    padding = (column < (width - lengths)[:, None, :])[:, None]  # (S|1, 1, P, B)
    if cfg.attention == "softmax":
        attention = scores.masked_fill_(padding, float("-inf")).softmax(2)  # (S, H, P, B)
    else:
        attention = scores.masked_fill_(padding, 0.0)  # (S, H, P, B): linear attention, unnormalised
    mass_index = tuple(expand_index(i, S, H) for i in scores_of.mass_rows)  # (S, H, P*B) each, into (R, B)
    flat_attention = attention.view(S, H, width * B)
    mass = attention.new_zeros(S, H, R * B)
    for index in mass_index:
        mass.scatter_add_(2, index, flat_attention)  # (S, H, R*B)
    mass = mass.view(S, H, R, B)  # (S, H, R, B)
    unembed = p["unembed.weight"]  # (S, m, d)
    row_readout = bmm(v, _heads(unembed, H).transpose(-1, -2))  # (S, H, R, m): C_h = V_h U_h^T
    logits = torch.bmm(row_readout.view(S, H * R, m).transpose(1, 2), mass.view(S, H * R, B))  # (S, m, B)
    state = ManualState(
        cfg,
        tuple(p),
        {n: t.shape for n, t in p.items()},
        rows,
        weights,
        unembed,
        v,
        row_readout,
        attention,
        padding,
        mass,
        tuple(mass_index),
        scores_of,
    )
    return TableOutput(logits.transpose(1, 2), attention.transpose(2, 3)), state


@torch.no_grad()
def manual_backward(state: ManualState, d_logits: torch.Tensor) -> dict[str, torch.Tensor]:
    """Every parameter's gradient (stacked, named and ordered as ``p``) from dL/dlogits (S, B, m); a
    transposed view of a column-major (S, m, B) tensor, as ``cross_entropy`` returns it, is the fast case."""
    cfg = state.cfg
    S, H, width, B = state.attention.shape
    R = state.rows.shape[1]
    m = d_logits.shape[-1]
    g = d_logits.transpose(1, 2)  # (S, m, B)
    d_mass = torch.bmm(state.row_readout.view(S, H * R, m), g).view(S, H, R, B)  # (S, H, R, B)
    d_row_readout = torch.bmm(state.mass.view(S, H * R, B), g.transpose(1, 2)).view(S, H, R, m)  # (S, H, R, m)
    d_v = bmm(d_row_readout, _heads(state.unembed, H))  # (S, H, R, dh)
    d_unembed = bmm(d_row_readout.transpose(-1, -2), state.v)  # (S, H, m, dh)
    flat_mass = d_mass.view(S, H, R * B)
    d_attention = flat_mass.gather(2, state.mass_index[0])  # (S, H, P*B)
    for index in state.mass_index[1:]:
        d_attention += flat_mass.gather(2, index)  # (S, H, P*B)
    d_attention = d_attention.view(S, H, width, B)  # (S, H, P, B)
    if cfg.attention == "softmax":
        d_scores = torch._softmax_backward_data(d_attention, state.attention, 2, state.attention.dtype)  # (S, H, P, B)
    else:
        d_scores = d_attention.masked_fill_(state.padding, 0.0)  # (S, H, P, B)
    d_q, d_k, encoding_grads = state.scores.backward(d_scores)  # (S, H, R, dh) each
    d_proj = [_merge(t) for t in (d_q, d_k, d_v)]  # (S, R, d) each
    grads = {
        "W_Q.weight": torch.bmm(d_proj[0].transpose(1, 2), state.rows),  # (S, d, d)
        "W_K.weight": torch.bmm(d_proj[1].transpose(1, 2), state.rows),  # (S, d, d)
        "W_V.weight": torch.bmm(d_proj[2].transpose(1, 2), state.rows),  # (S, d, d)
        "unembed.weight": _merge(d_unembed),  # (S, m, d)
        **encoding_grads,
    }
    d_rows = torch.bmm(d_proj[0], state.weights[0])  # (S, R, d)
    d_rows.baddbmm_(d_proj[1], state.weights[1]).baddbmm_(d_proj[2], state.weights[2])
    vocab = state.shapes["embed.weight"][1]
    if cfg.encoding == "ape":
        grads["embed.weight"] = d_rows[:, :vocab].contiguous()  # (S, m, d)
        d_positions = d_rows.new_zeros(state.shapes["encoding.pos.weight"])  # (S, positions, d)
        d_positions[:, : R - vocab] = d_rows[:, vocab:]  # rows a batch cannot reach: 0
        grads["encoding.pos.weight"] = d_positions
    else:
        grads["embed.weight"] = d_rows  # (S, m, d)
    missing = set(state.names) - set(grads)
    if missing:
        raise ValueError(f"the hand-derived step has no gradient for {sorted(missing)}")
    return {name: grads[name] for name in state.names}


def cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Each member's mean cross-entropy (S,) of ``logits`` (S, B, m) against ``targets`` (S, B), and the
    log-probabilities (S, m, B) that ``cross_entropy_grad`` turns into the gradient. Computed over the
    vocabulary axis of a column-major (S, m, B) tensor when ``logits`` is a view of one (as ``manual_forward``
    returns them)."""
    log_probs = logits.transpose(1, 2).log_softmax(1)  # (S, m, B)
    return -log_probs.gather(1, targets[:, None]).squeeze(1).mean(1), log_probs  # (S,), (S, m, B)


def cross_entropy_grad(log_probs: torch.Tensor, targets: torch.Tensor, d_loss: torch.Tensor | None = None):
    """The gradient of sum_s d_loss_s L_s (d_loss = 1 if None) with respect to the logits:
    d_loss_s (softmax - onehot) / B, (S, B, m) as a view of a column-major (S, m, B) tensor. Consumes
    ``log_probs`` (in place)."""
    S, _, B = log_probs.shape
    d_z = log_probs.exp_().scatter_add_(1, targets[:, None], log_probs.new_full((S, 1, B), -1.0))  # (S, m, B)
    d_z = d_z.div_(B) if d_loss is None else d_z.mul_((d_loss / B)[:, None, None])
    return d_z.transpose(1, 2)  # (S, B, m)


def loss_and_grads(
    p: dict[str, torch.Tensor], cfg: ModelConfig, tokens: torch.Tensor, lengths: torch.Tensor, targets: torch.Tensor
) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
    """Each member's mean training loss (S,) and the gradient of their sum for every parameter."""
    out, state = manual_forward(p, cfg, tokens, lengths)
    loss, log_probs = cross_entropy(out.logits, targets)
    return loss, manual_backward(state, cross_entropy_grad(log_probs, targets))


class _TableLoss(torch.autograd.Function):
    """The members' losses as one autograd node whose backward is ``manual_backward``: it plugs into the
    engine's ``per_member.sum().backward()`` with no graph inside."""

    @staticmethod
    def forward(ctx, cfg, tokens, lengths, targets, names, *values):
        out, state = manual_forward(dict(zip(names, values)), cfg, tokens, lengths)
        loss, ctx.log_probs = cross_entropy(out.logits, targets)
        ctx.state, ctx.targets = state, targets
        return loss  # (S,)

    @staticmethod
    def backward(ctx, d_loss):
        grads = manual_backward(ctx.state, cross_entropy_grad(ctx.log_probs, ctx.targets, d_loss))
        del ctx.state, ctx.log_probs, ctx.targets
        return (None, None, None, None, None, *grads.values())


def manual_losses(
    p: dict[str, torch.Tensor], cfg: ModelConfig, tokens: torch.Tensor, lengths: torch.Tensor, targets: torch.Tensor
) -> torch.Tensor:
    """Each member's mean loss (S,), differentiable through the hand-derived backward (one node)."""
    return _TableLoss.apply(cfg, tokens, lengths, targets, tuple(p), *p.values())
