"""A small causal transformer (two layers, four heads, MLP, LayerNorm), written plainly like nanoGPT.

    x^0_t = E[s_t]  (+ P[t] for APE)                       residual stream, (B, P, d)
    for each block l:
        a = LN_1(x);  q, k, v = W_Q a, W_K a, W_V a       per head (B, H, P, dh); RoPE rotates q, k
        pattern = softmax(q k^T / sqrt(dh) + causal mask)  (B, H, P, P), query row, key column
        x = x + W_O concat_h(pattern v)
        x = x + W_2 GELU(W_1 LN_2(x))
    logits = U LN_f(x)                                    (B, P, m), one prediction per position

Pre-LayerNorm blocks as in nanoGPT / GPT-2, no biases anywhere (nanoGPT's ``bias=False``: Linear and
LayerNorm without bias), untied embedding and readout (the readout is the paper's U). RoPE rotates the
queries and keys of every layer by their absolute position (so every logit depends on positions only
through the offset); APE adds a learned table row P[t] to the token embedding once, at the input.

Initialisation (nanoGPT), from one explicit ``torch.Generator`` in parameter order: every embedding and
Linear weight N(0, 0.02^2), the residual output projections (W_O, W_2) N(0, (0.02 / sqrt(2 layers))^2),
LayerNorm gains 1. The APE table has ``positions`` rows; rows the training lengths never reach keep
their initial N(0, 0.02^2) values.

Hook points (identity modules, readable with forward hooks as in TransformerLens), per block ``l``:
``blocks.l.hook_resid_pre`` (B, P, d), ``blocks.l.attn.hook_q`` / ``hook_k`` / ``hook_v`` (B, H, P, dh),
the per-head projections *before* rotation, ``blocks.l.attn.hook_scores`` (B, H, P, P) (masked logits),
``blocks.l.attn.hook_pattern`` (B, H, P, P) (each head's attention pattern), ``blocks.l.hook_resid_mid``,
``blocks.l.hook_resid_post``. :func:`capture` reads any of them.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import asdict, dataclass
from typing import Any, Iterator, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from lengthgen.config import _is_int, _require
from lengthgen.encodings.rope import rotate_pairs, rotation_tables

ENCODINGS = ("rope", "ape")


@dataclass(frozen=True)
class TransformerConfig:
    """The architecture. The paper gives two layers, four heads, MLP and LayerNorm; the rest is ours."""

    encoding: str = "rope"  # "rope": rotary q/k in every layer; "ape": learned position table at the input
    vocab: int = 20  # m, input and output vocabulary
    d: int = 64  # residual width (the one-layer model's d)
    heads: int = 4  # heads per layer, each d // heads wide
    layers: int = 2  # transformer blocks
    mlp_ratio: int = 4  # MLP hidden width = mlp_ratio * d (GPT-2's 4)
    rope_base: float = 1e4  # RoPE base: theta_i = base^(-2i/dh)
    positions: int = 48  # APE table rows (the longest evaluation length); unused by RoPE
    init_std: float = 0.02  # nanoGPT's initialisation scale

    def __post_init__(self) -> None:
        _require(self.encoding in ENCODINGS, f"unknown encoding {self.encoding!r} (known: {', '.join(ENCODINGS)})")
        for name in ("vocab", "d", "heads", "layers", "mlp_ratio", "positions"):
            _require(_is_int(getattr(self, name)), f"{name}={getattr(self, name)!r} must be an integer")
            _require(getattr(self, name) >= 1, f"{name}={getattr(self, name)} must be at least 1")
        _require(self.vocab >= 2, f"vocab={self.vocab} must be at least 2")
        _require(self.d % self.heads == 0, f"width d={self.d} is not divisible by heads={self.heads}")
        _require(
            self.head_dim % 2 == 0 or self.encoding != "rope", f"RoPE needs an even head width, got {self.head_dim}"
        )
        _require(self.rope_base > 1, f"rope_base={self.rope_base} must be greater than 1")
        _require(self.init_std > 0, f"init_std={self.init_std} must be positive")

    @property
    def head_dim(self) -> int:
        return self.d // self.heads

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class Attention(nn.Module):
    """Causal multi-head self-attention; every position queries itself and the positions before it."""

    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.cfg = cfg
        self.W_Q = nn.Linear(cfg.d, cfg.d, bias=False)
        self.W_K = nn.Linear(cfg.d, cfg.d, bias=False)
        self.W_V = nn.Linear(cfg.d, cfg.d, bias=False)
        self.W_O = nn.Linear(cfg.d, cfg.d, bias=False)
        for name in ("q", "k", "v", "scores", "pattern"):
            setattr(self, f"hook_{name}", nn.Identity())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, P, _ = x.shape
        H, dh = self.cfg.heads, self.cfg.head_dim
        q = self.hook_q(self.W_Q(x).view(B, P, H, dh).transpose(1, 2))  # (B, H, P, dh)
        k = self.hook_k(self.W_K(x).view(B, P, H, dh).transpose(1, 2))  # (B, H, P, dh)
        v = self.hook_v(self.W_V(x).view(B, P, H, dh).transpose(1, 2))  # (B, H, P, dh)
        if self.cfg.encoding == "rope":
            cos, sin = rotation_tables(torch.arange(P), dh, self.cfg.rope_base)  # (P, dh/2) each
            cos, sin = cos.to(x.device), sin.to(x.device)
            q, k = rotate_pairs(q, cos, sin), rotate_pairs(k, cos, sin)  # R_t applied at position t
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh)  # (B, H, P, P): [query t, key j]
        future = torch.ones(P, P, dtype=torch.bool, device=x.device).triu(1)  # (P, P) key after query
        scores = self.hook_scores(scores.masked_fill(future, float("-inf")))
        pattern = self.hook_pattern(scores.softmax(-1))  # (B, H, P, P)
        z = pattern @ v  # (B, H, P, dh)
        return self.W_O(z.transpose(1, 2).reshape(B, P, H * dh))  # (B, P, d)


class MLP(nn.Module):
    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.W_1 = nn.Linear(cfg.d, cfg.mlp_ratio * cfg.d, bias=False)
        self.W_2 = nn.Linear(cfg.mlp_ratio * cfg.d, cfg.d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.W_2(F.gelu(self.W_1(x)))  # (B, P, d)


class Block(nn.Module):
    def __init__(self, cfg: TransformerConfig):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.d, bias=False)
        self.attn = Attention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.d, bias=False)
        self.mlp = MLP(cfg)
        for name in ("resid_pre", "resid_mid", "resid_post"):
            setattr(self, f"hook_{name}", nn.Identity())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.hook_resid_pre(x)
        x = self.hook_resid_mid(x + self.attn(self.ln_1(x)))
        return self.hook_resid_post(x + self.mlp(self.ln_2(x)))  # (B, P, d)


class Transformer(nn.Module):
    """The model. ``forward(tokens)`` on left-aligned tokens (B, P) gives logits (B, P, m) per position."""

    def __init__(self, cfg: TransformerConfig, generator: torch.Generator):
        super().__init__()
        self.cfg = cfg
        with torch.device("meta"):  # no default initialisation: it would draw from the global RNG
            self.embed = nn.Embedding(cfg.vocab, cfg.d)
            self.pos = nn.Embedding(cfg.positions, cfg.d) if cfg.encoding == "ape" else None
            self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
            self.ln_f = nn.LayerNorm(cfg.d, bias=False)
            self.unembed = nn.Linear(cfg.d, cfg.vocab, bias=False)
        self.to_empty(device="cpu")
        self.reset_parameters(generator)

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator) -> None:
        residual_std = self.cfg.init_std / math.sqrt(2 * self.cfg.layers)
        for name, param in self.named_parameters():  # a fixed order: registration order
            if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
                param.fill_(1.0)
            else:
                std = residual_std if name.endswith(("W_O.weight", "W_2.weight")) else self.cfg.init_std
                param.normal_(0.0, std, generator=generator)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        P = tokens.shape[-1]
        x = self.embed(tokens)  # (B, P, d)
        if self.pos is not None:
            if P > self.cfg.positions:
                raise ValueError(f"length {P} is beyond the APE table ({self.cfg.positions} rows)")
            x = x + self.pos.weight[:P]  # (B, P, d)
        for block in self.blocks:
            x = block(x)
        return self.unembed(self.ln_f(x))  # (B, P, m)


@contextlib.contextmanager
def capture(model: nn.Module, names: Sequence[str]) -> Iterator[dict[str, torch.Tensor]]:
    """Record the outputs of the named hook points during forwards inside the ``with`` block.

    ``with capture(model, ["blocks.0.attn.hook_pattern"]) as seen: model(tokens)`` leaves the pattern in
    ``seen["blocks.0.attn.hook_pattern"]`` (the last forward's value).
    """
    modules = dict(model.named_modules())
    missing = [name for name in names if name not in modules]
    if missing:
        raise ValueError(f"no hook point named {missing[0]!r}")
    seen: dict[str, torch.Tensor] = {}
    handles = []
    for name in names:
        handles.append(modules[name].register_forward_hook(lambda _m, _i, out, name=name: seen.__setitem__(name, out)))
    try:
        yield seen
    finally:
        for handle in handles:
            handle.remove()
