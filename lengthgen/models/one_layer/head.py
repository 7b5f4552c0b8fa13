"""The paper's one-layer attention head, written plainly: the reference forward.

    x_t = E[s_t]                 token embeddings, (B, P, d)
    z_t = encoding.embed(x_t)    + p_t for APE, unchanged otherwise
    q = W_Q z_n,  k_t = W_K z_t,  v_t = W_V z_t     (query from the last position only;
                                                     APE with ape_value "token": v_t = W_V x_t)
    q, k_t rotated by R_n, R_t for RoPE (per head)
    l_t = q.k_t / (sqrt(dh) tau) + bias(n, t)       (bias: ALiBi / T5)
    a = softmax(l)   or   a = l (linear attention, unnormalised)
    prediction = U concat_h(sum_t a_t v_t)

No MLP, no LayerNorm, no biases. Parameters are initialised from an explicit ``torch.Generator``, in the
order embedding, W_Q, W_K, W_V, readout, then the encoding's (APE table, T5 bias). How is a choice the
paper leaves open (``ModelConfig.init``): under ``"torch"`` (the suite's reading) embeddings (and the APE
table) N(0, 1) as ``nn.Embedding``, projections and readout U(-1/sqrt(d), 1/sqrt(d)) as ``nn.Linear``'s
default, the T5 bias N(0, 1/d) as T5; under ``"gpt2"`` every weight N(0, 0.02^2) (GPT-2, nanoGPT), the
APE table and T5 bias included; under ``"flax"`` JAX/Flax's defaults: embeddings and the APE table N(0, 1/d)
(``nn.Embed``), projections and readout LeCun-normal, N(0, 1/fan_in) truncated at two standard deviations
(``nn.Dense``), the T5 bias as T5. The APE rows never trained may be zeroed after the draw
(``ModelConfig.ape_unseen``, applied by ``engine/train.py``'s ``build_model``, which knows Lmax).

Queries, keys, values, logits and attention weights pass through named identity hook points
(``hook_q`` ... ``hook_attn``) that forward hooks can read, as TransformerLens does.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import torch
from torch import nn

from lengthgen.config import ModelConfig
from lengthgen.encodings import make_encoding
from lengthgen.encodings.base import GPT2_STD, embedding_table, lecun_normal_, materialize
from lengthgen.tasks.batch import absolute_positions, valid_mask

# parameter names in initialisation order (the encoding's follow); the fast path reads the same names
PARAMETERS = ("embed.weight", "W_Q.weight", "W_K.weight", "W_V.weight", "unembed.weight")


def value_input(x: torch.Tensor, z: torch.Tensor, cfg) -> torch.Tensor:
    """The input of the value projection: ``z`` (x_t + p_t, the layer input) under ``cfg.ape_value ==
    "embedded"``, the token embedding ``x`` under ``"token"`` (for other encodings z is x)."""
    return x if cfg.ape_value == "token" else z


class HeadOutput(NamedTuple):
    logits: torch.Tensor  # (B, m) output logits
    attention: torch.Tensor  # (B, H, P) attention weights (0 on padding)
    scores: torch.Tensor  # (B, H, P) attention logits (-inf on padding for softmax)


class OneLayerHead(nn.Module):
    def __init__(self, cfg: ModelConfig, vocab: int, generator: torch.Generator):
        super().__init__()
        self.cfg, self.vocab = cfg, vocab
        with torch.device("meta"):  # no default initialisation: it would draw from the global RNG
            self.embed = embedding_table(vocab, cfg.d)
            self.W_Q = nn.Linear(cfg.d, cfg.d, bias=False)
            self.W_K = nn.Linear(cfg.d, cfg.d, bias=False)
            self.W_V = nn.Linear(cfg.d, cfg.d, bias=False)
            self.unembed = nn.Linear(cfg.d, vocab, bias=False)
            self.encoding = make_encoding(cfg)
        for name in ("q", "k", "v", "scores", "attn"):
            setattr(self, f"hook_{name}", nn.Identity())
        materialize(self)
        self.reset_parameters(generator)

    @torch.no_grad()
    def reset_parameters(self, generator: torch.Generator) -> None:
        linears = (self.W_Q, self.W_K, self.W_V, self.unembed)
        if self.cfg.init == "gpt2":
            for weight in (self.embed.weight, *(linear.weight for linear in linears)):
                nn.init.normal_(weight, std=GPT2_STD, generator=generator)
        elif self.cfg.init == "flax":
            nn.init.normal_(self.embed.weight, std=self.cfg.d**-0.5, generator=generator)  # nn.Embed's default
            for linear in linears:
                lecun_normal_(linear.weight, generator)  # nn.Dense's default
        else:
            bound = 1.0 / math.sqrt(self.cfg.d)
            nn.init.normal_(self.embed.weight, generator=generator)
            for linear in linears:
                nn.init.uniform_(linear.weight, -bound, bound, generator=generator)
        self.encoding.reset_parameters(generator)

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor, position_shift: int = 0) -> HeadOutput:
        """Right-aligned ``tokens`` (B, P) with true ``lengths`` (B,); see ``tasks/batch.py``.

        ``position_shift`` adds a constant to every absolute position (for the equivariance test).
        """
        B, P = tokens.shape
        H, dh = self.cfg.heads, self.cfg.head_dim
        pos = absolute_positions(lengths, P) + position_shift  # (B, P)
        x = self.embed(tokens)  # (B, P, d)
        z = self.encoding.embed(x, pos)  # (B, P, d)
        q = self.hook_q(self.W_Q(z[:, -1:]).view(B, 1, H, dh).transpose(1, 2))  # (B, H, 1, dh)
        k = self.hook_k(self.W_K(z).view(B, P, H, dh).transpose(1, 2))  # (B, H, P, dh)
        v = self.hook_v(self.W_V(value_input(x, z, self.cfg)).view(B, P, H, dh).transpose(1, 2))  # (B, H, P, dh)
        q = self.encoding.rotate(q, pos[:, -1:])  # (B, H, 1, dh)
        k = self.encoding.rotate(k, pos)  # (B, H, P, dh)
        scores = (q @ k.transpose(-1, -2)).squeeze(2) / (math.sqrt(dh) * self.cfg.temperature)  # (B, H, P)
        scores = scores + self.encoding.score_bias(pos[:, None, -1:], pos[:, None, :])  # (B, H, P)
        valid = valid_mask(lengths, P)[:, None, :]  # (B, 1, P)
        if self.cfg.attention == "softmax":
            scores = scores.masked_fill(~valid, float("-inf"))
            attn = scores.softmax(-1)  # (B, H, P)
        else:
            attn = scores.masked_fill(~valid, 0.0)  # linear attention: the logits themselves
        scores, attn = self.hook_scores(scores), self.hook_attn(attn)
        heads_out = (attn[..., None] * v).sum(2)  # (B, H, dh)
        logits = self.unembed(heads_out.reshape(B, H * dh))  # (B, m)
        return HeadOutput(logits, attn, scores)
