"""The interface every positional encoding implements: an ``nn.Module`` acting on one model and a
concrete batch. ``embed`` may add a vector to each token embedding (APE), ``rotate`` may rotate per-head
queries and keys by their position (RoPE), ``score_bias`` may add a bias to each attention logit (ALiBi,
T5). The plain forward in ``models/one_layer/head.py`` and the two-layer transformer call these three.

The one-layer head's fast path, which computes the same logits from per-row tables of a stacked
ensemble, is not here: it lives in ``models/one_layer/fast/``, one file per encoding.
"""

from __future__ import annotations

import torch
from torch import nn

from lengthgen.config import ModelConfig


GPT2_STD = 0.02  # init "gpt2": every weight N(0, 0.02^2), as GPT-2 and nanoGPT initialise
# init "flax": Flax's lecun_normal() draws a normal truncated at +-2 of its scale, and divides that scale by the
# standard deviation of a standard normal truncated to [-2, 2] so that the variance is exactly 1/fan_in
FLAX_TRUNCATION = 2.0
FLAX_TRUNCATED_STD = 0.87962566103423978


def init_normal(
    weight: torch.Tensor, torch_std: float, cfg, generator: torch.Generator, flax_std: float | None = None
) -> None:
    """Draw ``weight`` in place: N(0, ``torch_std``^2) under ``cfg.init == "torch"`` (the suite's reading:
    the layer's PyTorch / paper default), N(0, GPT2_STD^2) under "gpt2", N(0, ``flax_std``^2) under "flax"
    (``torch_std`` where None: a weight Flax initialises as PyTorch does). One ``normal_`` call either way,
    so the generator advances by the same draws."""
    std = {"gpt2": GPT2_STD, "flax": torch_std if flax_std is None else flax_std}.get(cfg.init, torch_std)
    nn.init.normal_(weight, std=std, generator=generator)


def lecun_normal_(weight: torch.Tensor, generator: torch.Generator) -> None:
    """Flax's default ``nn.Dense`` kernel initialiser (``nn.initializers.lecun_normal()``) on an ``nn.Linear``
    weight (out, in), in place: a normal truncated at +-FLAX_TRUNCATION of its scale, variance 1/fan_in."""
    fan_in = weight.shape[1]
    std = fan_in**-0.5 / FLAX_TRUNCATED_STD
    bound = FLAX_TRUNCATION * std
    nn.init.trunc_normal_(weight, std=std, a=-bound, b=bound, generator=generator)


def embedding_table(rows: int, width: int) -> nn.Embedding:
    """An ``nn.Embedding`` whose weight is left uninitialised (the model initialises it from its own
    generator). Under ``torch.device("meta")`` a default-initialised ``nn.Embedding`` runs ``normal_`` on
    a meta tensor, whose Python decomposition imports ``torch._dynamo``: about 3 s of start-up per process.
    """
    return nn.Embedding(rows, width, _weight=torch.empty(rows, width))


def materialize(module: nn.Module, device: str = "cpu") -> None:
    """Give every meta parameter and buffer of ``module`` uninitialised storage on ``device``, in place: what
    ``module.to_empty(device=device)`` does to them, through ``torch.empty``. ``to_empty`` calls ``empty_like``
    on each meta tensor, whose Python reference imports sympy: about 0.4 s of start-up in every process that
    builds a model. Tensors already off the meta device are kept (uninitialised too: ``embedding_table``);
    the model draws every value afterwards (``reset_parameters``)."""
    for sub in module.modules():
        for name, param in sub._parameters.items():
            if param is not None and param.is_meta:
                empty = torch.empty(param.shape, dtype=param.dtype, device=device)
                sub._parameters[name] = nn.Parameter(empty, requires_grad=param.requires_grad)
        for name, buffer in sub._buffers.items():
            if buffer is not None and buffer.is_meta:
                sub._buffers[name] = torch.empty(buffer.shape, dtype=buffer.dtype, device=device)


class Encoding(nn.Module):
    """Identity encoding; subclasses override what they change (NoPE is this class as is)."""

    name = "nope"

    def __init__(self, cfg: ModelConfig):
        super().__init__()
        self.cfg = cfg

    def reset_parameters(self, generator: torch.Generator) -> None:
        """Initialise this encoding's parameters (if any) from ``generator``."""

    def embed(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """Token embeddings (B, P, d) at absolute positions (B, P) -> the layer's input z."""
        return x

    def rotate(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        """Per-head vectors (B, H, P, dh) at positions (B, 1|P) -> rotated vectors."""
        return x

    def score_bias(self, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor | float:
        """Additive bias on the scaled logits, broadcastable to (B, H, P); q_pos (B, 1, 1), k_pos (B, 1, P)."""
        return 0.0
