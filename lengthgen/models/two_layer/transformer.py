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

Initialisation, from one explicit ``torch.Generator`` in parameter order (``TransformerConfig.init``):
``"gpt2"`` (nanoGPT, the suite's reading): every embedding and Linear weight N(0, 0.02^2), the residual
output projections (W_O, W_2) N(0, (0.02 / sqrt(2 layers))^2), LayerNorm gains 1; ``"torch"`` (PyTorch's
layer defaults): the embedding and the APE table N(0, 1) as ``nn.Embedding``, every Linear weight
U(+-1/sqrt(fan_in)) as ``nn.Linear``, LayerNorm gains 1. The APE table has ``positions`` rows; rows the
training lengths never reach keep their initial values (``ape_unseen="init"``) or are zeroed after the
draw (``"zero"``, by ``engine/train_two_layer.py``'s ``build_transformer``, which knows the task's Lmax).
The value path has one reading here (the table row joins the residual stream at the input, which every
later sub-layer reads): the one-layer head's ``ape_value="token"`` has no single counterpart in a
two-layer residual stream.

Hook points (identity modules, readable with forward hooks as in TransformerLens), per block ``l``:
``blocks.l.hook_resid_pre`` (B, P, d), ``blocks.l.attn.hook_q`` / ``hook_k`` / ``hook_v`` (B, H, P, dh),
the per-head projections *before* rotation, ``blocks.l.attn.hook_scores`` (B, H, P, P) (masked logits),
``blocks.l.attn.hook_pattern`` (B, H, P, P) (each head's attention pattern), ``blocks.l.hook_resid_mid``,
``blocks.l.hook_resid_post``. :func:`capture` reads any of them.

Positions come from ``lengthgen/encodings/`` through the reference interface of
:class:`~lengthgen.encodings.base.Encoding`, as in the one-layer head: ``self.encoding`` is the
one-layer model's :class:`~lengthgen.encodings.rope.RoPE` or :class:`~lengthgen.encodings.ape.APE`,
``encoding.embed`` adds P[t] at the input (identity for RoPE) and ``encoding.rotate`` rotates every
layer's queries and keys (identity for APE); the APE table is the parameter ``encoding.pos.weight``, the
one-layer head's name, in the same place of the parameter order as before (after ``embed``), so the
initial draws are unchanged. The token embedding and the APE table are ``base.embedding_table``s: an
``nn.Embedding`` built under ``torch.device("meta")`` would run its default initialisation there, which
imports ``torch._dynamo`` (a slow start-up, timed in the README's Speed section); every value is drawn
by ``reset_parameters`` anyway.
The numbers are bit for bit those of the former inline code (the position table added as a slice, the
rotation tables built here), because:

- the positions are ``arange(P)`` shaped (1, P): APE's lookup of unique rows returns the slice's values
  and its backward puts each row's one gradient into a zero table, as the slice's backward does; the
  broadcast over the batch is summed by the same reduction. RoPE's tables are computed from CPU
  positions, as before (the encoding moves them to the device; tables computed on a GPU could round
  differently), and broadcast the same way.
- the encodings get the :class:`TransformerConfig` itself: they read ``d``, ``head_dim``, ``rope_base``
  and ``positions``, which it has with the same meaning (a one-layer ``ModelConfig`` copy would add that
  config's own limits, positions >= 2 and d >= 2, which this model never had).

What is not reused, and why:

- ``APE.reset_parameters`` (N(0, 1), the one-layer head's choice): this model initialises every parameter
  itself in parameter order, the APE table with nanoGPT's N(0, 0.02^2) like every embedding.
- APE's own range check ("position P-1 is beyond the APE table"): the forward checks the length first,
  with this model's message ("length P is beyond the APE table").
- ``score_bias``: neither RoPE nor APE has one (the base's 0.0); adding that zero would only add an op.
- the fast path (``rows``, ``table_scores``, ``row_mass``): it relies on the one-layer head's single
  query at the last position and inputs that are rows of a small table; here the second layer's input
  depends on the context.
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import asdict, dataclass
from typing import Any, Iterator, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from lengthgen.config import _require, check_readings, require_integers
from lengthgen.encodings.ape import APE
from lengthgen.encodings.base import Encoding, embedding_table, materialize
from lengthgen.encodings.rope import RoPE

ENCODING_CLASSES: dict[str, type[Encoding]] = {"rope": RoPE, "ape": APE}  # the encodings this model supports
ENCODINGS = tuple(ENCODING_CLASSES)


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
    init_std: float = 0.02  # nanoGPT's initialisation scale (init "gpt2")
    # "gpt2": nanoGPT's N(0, init_std^2) weights (residual outputs scaled); "torch": PyTorch's layer
    # defaults (nn.Linear U(+-1/sqrt(fan_in)), nn.Embedding and the APE table N(0, 1), LayerNorm ones)
    init: str = "gpt2"
    # APE only: table rows at positions >= the task's Lmax (never trained): "init" keeps their initial
    # draw; "zero" sets them to 0 after the draw (done where the model is built from its spec)
    ape_unseen: str = "init"

    def __post_init__(self) -> None:
        _require(self.encoding in ENCODINGS, f"unknown encoding {self.encoding!r} (known: {', '.join(ENCODINGS)})")
        check_readings(self)
        require_integers(self, ("vocab", "d", "heads", "layers", "mlp_ratio", "positions"), minimum=1)
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

    def forward(self, x: torch.Tensor, encoding: Encoding, pos: torch.Tensor) -> torch.Tensor:
        """``x`` (B, P, d) at absolute positions ``pos`` (1, P) on the CPU -> the attention output (B, P, d)."""
        B, P, _ = x.shape
        H, dh = self.cfg.heads, self.cfg.head_dim
        q = self.hook_q(self.W_Q(x).view(B, P, H, dh).transpose(1, 2))  # (B, H, P, dh)
        k = self.hook_k(self.W_K(x).view(B, P, H, dh).transpose(1, 2))  # (B, H, P, dh)
        v = self.hook_v(self.W_V(x).view(B, P, H, dh).transpose(1, 2))  # (B, H, P, dh)
        q, k = encoding.rotate(q, pos), encoding.rotate(k, pos)  # (B, H, P, dh): RoPE's R_t at position t
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

    def forward(self, x: torch.Tensor, encoding: Encoding, pos: torch.Tensor) -> torch.Tensor:
        x = self.hook_resid_pre(x)
        x = self.hook_resid_mid(x + self.attn(self.ln_1(x), encoding, pos))
        return self.hook_resid_post(x + self.mlp(self.ln_2(x)))  # (B, P, d)


class Transformer(nn.Module):
    """The model. ``forward(tokens)`` on left-aligned tokens (B, P) gives logits (B, P, m) per position."""

    def __init__(self, cfg: TransformerConfig, generator: torch.Generator):
        super().__init__()
        self.cfg = cfg
        with torch.device("meta"):  # no default initialisation: it would draw from the global RNG
            self.embed = embedding_table(cfg.vocab, cfg.d)
            self.encoding = ENCODING_CLASSES[cfg.encoding](cfg)  # APE: the table P (encoding.pos); RoPE: none
            self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
            self.ln_f = nn.LayerNorm(cfg.d, bias=False)
            self.unembed = nn.Linear(cfg.d, cfg.vocab, bias=False)
        materialize(self)
        self.reset_parameters(generator)

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator) -> None:
        residual_std = self.cfg.init_std / math.sqrt(2 * self.cfg.layers)
        for name, param in self.named_parameters():  # a fixed order: registration order
            if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
                param.fill_(1.0)
            elif self.cfg.init == "torch":  # nn.Embedding's N(0, 1); nn.Linear's U(+-1/sqrt(fan_in))
                if name in ("embed.weight", "encoding.pos.weight"):
                    param.normal_(0.0, 1.0, generator=generator)
                else:
                    bound = 1.0 / math.sqrt(param.shape[1])  # (out, in): fan_in = in
                    param.uniform_(-bound, bound, generator=generator)
            else:
                std = residual_std if name.endswith(("W_O.weight", "W_2.weight")) else self.cfg.init_std
                param.normal_(0.0, std, generator=generator)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        P = tokens.shape[-1]
        if self.cfg.encoding == "ape" and P > self.cfg.positions:
            raise ValueError(f"length {P} is beyond the APE table ({self.cfg.positions} rows)")
        pos = torch.arange(P)[None]  # (1, P) left-aligned: column t is position t; on the CPU for RoPE's tables
        x = self.encoding.embed(self.embed(tokens), pos.to(tokens.device))  # (B, P, d)
        for block in self.blocks:
            x = block(x, self.encoding, pos)
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
