"""T5's learned relative position bias (Raffel et al., 2020): a learned scalar per (distance bucket, head)
added to each attention logit.

    l_t = q.k_t / (sqrt(dh) tau) + b[bucket(n - t), h]        (n = query position, t <= n)

No position enters the queries, keys or values; the bias depends on the offset alone, so the head is
exactly offset-equivariant. Bucketing is T5's causal (unidirectional) scheme with T5's defaults,
``NUM_BUCKETS`` = 32 and ``MAX_DISTANCE`` = 128: distances 0..15 have a bucket each (exact), distances
16..127 share 16 logarithmically spaced buckets, bucket(n) = 16 + floor(log(n / 16) / log(128 / 16) * 16),
and every distance >= 128 falls in the last bucket 31. With training lengths up to 16 only distances
0..15 (the exact buckets) are ever trained; the evaluation lengths up to 48 reach distances 16..47,
buckets 16..24, which keep their initial values (like APE's untrained rows, but indexed by distance).

Initialisation as T5's: b ~ N(0, d^-1/2) (std 0.125 at d = 64), drawn from the model's generator
(``cfg.init == "torch"``, the suite's reading); under ``"gpt2"`` N(0, 0.02^2) like every weight. The
bias is added after the 1/(sqrt(dh) tau) scaling and is not affected by the temperature.

The fast path is ``models/one_layer/fast/t5.py``.
"""

from __future__ import annotations

import math

import torch

from lengthgen.config import ModelConfig
from lengthgen.encodings.base import Encoding, embedding_table, init_normal

NUM_BUCKETS = 32  # T5's default number of relative-position buckets
MAX_DISTANCE = 128  # T5's default: distances >= this share the last bucket


def relative_bucket(distance: torch.Tensor, num_buckets: int = NUM_BUCKETS, max_distance: int = MAX_DISTANCE):
    """T5's causal bucket of each distance n - t >= 0 (negative distances, i.e. future keys, -> bucket 0)."""
    n = distance.clamp(min=0)  # (...)
    max_exact = num_buckets // 2
    scaled = torch.log(n.clamp(min=1).double() / max_exact) / math.log(max_distance / max_exact)  # (...)
    large = (max_exact + (scaled * (num_buckets - max_exact)).long()).clamp(max=num_buckets - 1)  # (...)
    return torch.where(n < max_exact, n, large)


class T5Bias(Encoding):
    name = "t5"

    def __init__(self, cfg: ModelConfig):
        super().__init__(cfg)
        self.bias = embedding_table(NUM_BUCKETS, cfg.heads)  # (buckets, H): b[bucket, h]

    def reset_parameters(self, generator: torch.Generator) -> None:
        init_normal(self.bias.weight, self.cfg.d**-0.5, self.cfg, generator)

    def score_bias(self, q_pos: torch.Tensor, k_pos: torch.Tensor) -> torch.Tensor:
        buckets = relative_bucket((q_pos - k_pos)[:, 0])  # (B, P)
        return self.bias(buckets).transpose(1, 2)  # (B, H, P)
