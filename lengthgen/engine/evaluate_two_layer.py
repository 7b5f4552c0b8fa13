"""Evaluating the two-layer transformer: accuracy per position, each head's attention, the carrier probe.

Evaluation data. Every model sees the same N sequences of width W = the longest evaluation length
(at least Lmax), drawn from ``generator(eval.seed, f"eval:{W}")``. The sequences of evaluation length
L are their first L tokens: under causal attention (and position-wise LayerNorm and MLP) the outputs
at positions 0..L-1 of a longer sequence are exactly those of the length-L sequence, so one forward
at width W gives every length's numbers (``tests/test_transformer.py`` checks the prefix identity).

Quantities (all averaged over the N sequences):

- ``position_accuracy[t]``: accuracy of the prediction at position t (target s[t-K]); positions t < K
  have no target. The accuracy at length L is the mean over positions K..L-1; "beyond the training
  range" means positions t >= Lmax (0-indexed: the 17th token on, never trained).
- ``target_attention[l][h]``: head (l, h)'s mean attention at offset -K over the in-distribution
  queries K <= t < Lmax. The retrieving head is its argmax.
- ``profiles[L][l][h]``: the mean attention of the last query (t = L-1) over the keys 0..L-1, the
  one-layer paper's probe at length L; its argmax minus (L-1) is the selected offset.
- ``key_carrier`` / ``query_carrier`` (see :func:`vocabulary_carriers`), and the same for the seed's
  untrained initialisation (``baseline_*``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import torch

from lengthgen.config import EvalConfig
from lengthgen.device import CPU
from lengthgen.models.two_layer.transformer import Transformer, capture
from lengthgen.probes.attention import peak_position, selected_offset
from lengthgen.probes.geometry import carrier_fraction
from lengthgen.probes.retrieval import last_query_profile, offset_attention, retrieving_head, token_conditioned_means
from lengthgen.seeding import generator
from lengthgen.tasks.shift import ShiftConfig, ShiftTask, shift_targets
from lengthgen.engine.train_two_layer import TrainedTransformer, eval_width

EVAL_CHUNK = 512  # sequences per forward (bounds the memory of the captured patterns; no effect on results)

Grid = tuple[tuple[float, ...], ...]  # (layers, heads)


@dataclass(frozen=True)
class TransformerEval:
    """One trained model on the shared evaluation sequences (see the module docstring)."""

    offset: int  # K
    max_len: int  # Lmax of training: positions >= max_len were never trained
    lengths: tuple[int, ...]  # evaluation lengths
    position_accuracy: tuple[float | None, ...]  # (W,) accuracy per position; None where t < K
    target_attention: Grid  # (layers, heads) mean attention at offset -K, queries K..Lmax-1
    profiles: dict[int, tuple[Grid, ...]]  # L -> (layers, heads, L): the last query's mean attention
    key_carrier: Grid  # (layers, heads) carrier fraction of the head's vocabulary keys
    query_carrier: Grid  # (layers, heads) ... of its vocabulary queries
    baseline_key_carrier: Grid  # the same on the untrained initialisation
    baseline_query_carrier: Grid

    def accuracy(self, length: int, start: int | None = None) -> float:
        """Accuracy over positions max(K, start)..L-1 of the length-L sequences."""
        first = self.offset if start is None else max(self.offset, start)
        values = self.position_accuracy[first:length]
        if not values:
            raise ValueError(f"no position with a target in [{first}, {length})")
        return sum(values) / len(values)

    def beyond_range_accuracy(self, length: int | None = None) -> float:
        """Accuracy over the positions never trained, Lmax..L-1 (L = the longest evaluated by default)."""
        return self.accuracy(len(self.position_accuracy) if length is None else length, start=self.max_len)

    def retrieving_head(self) -> tuple[int, int]:
        """(layer, head) with the most attention at offset -K in distribution."""
        return retrieving_head(torch.tensor(self.target_attention))

    def profile(self, length: int, layer: int, head: int) -> torch.Tensor:
        return torch.tensor(self.profiles[length][layer][head], dtype=torch.float64)  # (L,)

    def selected_offset(self, length: int, layer: int, head: int) -> int:
        """argmax of the last query's mean attention, relative to the query (negative before it)."""
        return int(selected_offset(self.profile(length, layer, head)))

    def peak_position(self, length: int, layer: int, head: int) -> int:
        return int(peak_position(self.profile(length, layer, head)))

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["profiles"] = {str(length): value for length, value in self.profiles.items()}
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "TransformerEval":
        def grid(rows) -> Grid:
            return tuple(tuple(float(x) for x in row) for row in rows)

        return cls(
            int(data["offset"]),
            int(data["max_len"]),
            tuple(int(L) for L in data["lengths"]),
            tuple(None if x is None else float(x) for x in data["position_accuracy"]),
            grid(data["target_attention"]),
            {int(L): tuple(grid(layer) for layer in rows) for L, rows in data["profiles"].items()},
            grid(data["key_carrier"]),
            grid(data["query_carrier"]),
            grid(data["baseline_key_carrier"]),
            grid(data["baseline_query_carrier"]),
        )


def eval_tokens(task: ShiftConfig, evaluation: EvalConfig) -> torch.Tensor:
    """The shared evaluation sequences (N, W); length L uses the first L columns."""
    width = eval_width(task, evaluation)
    return ShiftTask(task).draw_eval(generator(evaluation.seed, f"eval:{width}"), evaluation.sequences, width)


def _grid(values: torch.Tensor) -> Grid:
    return tuple(tuple(float(x) for x in row) for row in values.tolist())


def carrier_hooks(layers: int) -> list[str]:
    """The hook points the carrier probe reads: every layer's pre-rotation keys and queries."""
    return [f"blocks.{layer}.attn.hook_{kind}" for layer in range(layers) for kind in ("k", "q")]


def carriers_from(
    captured: dict[str, torch.Tensor], tokens: torch.Tensor, vocab: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """Key and query carrier fractions (layers, heads) from captured ``hook_k``/``hook_q`` values
    (N, H, P, dh) at the positions of ``tokens`` (N, P). See :func:`vocabulary_carriers`."""
    layers = len(captured) // 2
    heads = captured["blocks.0.attn.hook_k"].shape[1]
    fractions = torch.zeros(2, layers, heads, dtype=torch.float64)  # (key|query, layers, heads)
    for layer in range(layers):
        for which, kind in enumerate(("k", "q")):
            vectors = captured[f"blocks.{layer}.attn.hook_{kind}"]  # (N, H, P, dh)
            for head in range(heads):
                try:
                    means = token_conditioned_means(vectors[:, head], tokens, vocab)  # (m, dh)
                except ValueError as error:
                    raise ValueError(
                        f"{tokens.shape[0]} evaluation sequences are too few for the carrier probe: {error}"
                    ) from None
                fractions[which, layer, head] = carrier_fraction(means)
    return fractions[0], fractions[1]


@torch.no_grad()
def vocabulary_carriers(
    model: Transformer, tokens: torch.Tensor, device: torch.device = CPU
) -> tuple[torch.Tensor, torch.Tensor]:
    """Key and query carrier fractions of every head, each (layers, heads), on in-distribution ``tokens``
    (N, Lmax), the model run on ``device``.

    The paper's (iii) for the one-layer head is ||mean_b k_b||^2 / mean_b ||k_b||^2 over the
    vocabulary's projected keys k_b = W_K x_b (queries alike). Here a head's projected key of vocabulary
    token b is the mean of its pre-rotation key W_K^h LN_l(x_t) over the in-distribution positions t
    whose token is b (``hook_k``; queries from ``hook_q``). In layer 1 of the RoPE model the input x_t is
    the token embedding E[s_t] alone, so every such key equals W_K^h LN_1(E[b]) and this *is* the paper's
    definition, with the LayerNorm the model applies before projecting. In layer 2 (and under APE, whose
    input adds P[t]) the key also depends on the context; conditioning on the position's own token keeps
    exactly the part the vocabulary entry determines, and the fraction measures how much of it is common
    to every token.
    """
    names = carrier_hooks(model.cfg.layers)
    parts: dict[str, list[torch.Tensor]] = {name: [] for name in names}
    model = model.to(device)
    for start in range(0, tokens.shape[0], EVAL_CHUNK):
        with capture(model, names) as seen:
            model(tokens[start : start + EVAL_CHUNK].to(device))
        for name in names:
            parts[name].append(seen[name].cpu())  # (B, H, P, dh)
    return carriers_from({name: torch.cat(values) for name, values in parts.items()}, tokens, model.cfg.vocab)


@torch.no_grad()
def evaluate_transformer(
    model: TrainedTransformer, evaluation: EvalConfig, device: torch.device = CPU
) -> TransformerEval:
    """Every quantity of the module docstring for one trained model (and its untrained baseline), computed on
    ``device``."""
    spec = model.spec
    spec.check_eval(evaluation)
    K, max_len = spec.task.offset, spec.task.max_len
    layers, heads = spec.model.layers, spec.model.heads
    tokens = eval_tokens(spec.task, evaluation)  # (N, W)
    N, W = tokens.shape
    targets = shift_targets(tokens, torch.full((N,), W), K)  # (N, W)
    module = model.module().to(device)
    names = [f"blocks.{layer}.attn.hook_pattern" for layer in range(layers)]
    kq_names = carrier_hooks(layers)
    kq_parts: dict[str, list[torch.Tensor]] = {name: [] for name in kq_names}
    correct = torch.zeros(W, dtype=torch.float64, device=device)  # (W,)
    pattern_sum = torch.zeros(layers, heads, W, W, dtype=torch.float64, device=device)  # (layers, H, W, W)
    for start in range(0, N, EVAL_CHUNK):
        chunk = tokens[start : start + EVAL_CHUNK].to(device)  # (B, W)
        with capture(module, names + kq_names) as seen:
            logits = module(chunk)  # (B, W, m)
        for name in kq_names:  # causal: positions < Lmax are those of the length-Lmax prefix
            kq_parts[name].append(seen[name][:, :, :max_len].cpu())  # (B, H, Lmax, dh)
        correct += (logits.argmax(-1) == targets[start : start + EVAL_CHUNK].to(device)).sum(0)
        pattern_sum += torch.stack([seen[name].sum(0) for name in names]).double()  # (layers, H, W, W)
    correct, pattern_sum = correct.cpu(), pattern_sum.cpu()
    pattern = pattern_sum / N  # (layers, H, W, W) mean attention
    accuracy = (correct / N).tolist()
    in_range = tokens[:, :max_len]  # (N, Lmax) the in-distribution positions
    captured = {name: torch.cat(values) for name, values in kq_parts.items()}  # (N, H, Lmax, dh)
    key, query = carriers_from(captured, in_range, spec.model.vocab)
    base_key, base_query = vocabulary_carriers(model.initial_module(), in_range, device)
    return TransformerEval(
        offset=K,
        max_len=max_len,
        lengths=tuple(evaluation.lengths),
        position_accuracy=tuple(None if t < K else accuracy[t] for t in range(W)),
        target_attention=_grid(offset_attention(pattern, K, range(K, max_len))),
        profiles={
            length: tuple(_grid(rows) for rows in last_query_profile(pattern, length)) for length in evaluation.lengths
        },
        key_carrier=_grid(key),
        query_carrier=_grid(query),
        baseline_key_carrier=_grid(base_key),
        baseline_query_carrier=_grid(base_query),
    )
