"""Training the two-layer transformer on the shift task: a batched ensemble of seeds, cached.

A :class:`TwoLayerSpec` (task, architecture, optimisation) plus a seed identifies a model. Seeds of one
spec train together in one pass of the shared engine (``engine/ensemble.py``): the plain
:class:`~lengthgen.models.two_layer.transformer.Transformer` modules of every seed are stacked and the
*same* plain forward runs over the member axis with ``vmap(functional_call(...))``; each member draws
its own batches from ``generator(seed, "shift-data")`` and its loss is its own mean cross-entropy. A seed
therefore trains the same alone or in an ensemble
(``tests/test_transformer_train.py`` checks it, and checks the vmapped forward against the plain one).

The cached form, ``trained_transformers(members, cache)``, is in ``store/two_layer.py``.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Callable, Sequence

import torch
import torch.nn.functional as F
from torch.func import functional_call, vmap

from lengthgen.config import EvalConfig, SpecParts, TrainConfig, _require
from lengthgen.device import CPU
from lengthgen.encodings.ape import zero_unseen_rows
from lengthgen.engine.ensemble import Member, train_ensemble
from lengthgen.models.two_layer.transformer import Transformer, TransformerConfig
from lengthgen.seeding import generator
from lengthgen.tasks.shift import IGNORE, ShiftConfig, ShiftTask
from lengthgen.engine.train import TrainedModel

DATA_CHUNK = 50  # training steps drawn per call to the sampler (part of the data stream's definition)
MAX_MEMBERS = 8  # seeds per ensemble pass (the model is compute-bound: larger passes gain nothing)
# the suite's training choice (the paper gives none for this model): Adam at the paper's lr 1e-3, batch 32
# full sequences (each supervises its positions t >= K), 300 steps: long enough that the in- and
# out-of-range numbers of both encodings no longer change (see experiments/two_layer.py and the README)
PAPER_TRAIN = TrainConfig(steps=300, batch=32, lr=1e-3, record_every=50)


def eval_width(task: ShiftConfig, evaluation: EvalConfig) -> int:
    """W: the longest evaluation length, and at least Lmax (the in-distribution probes need Lmax positions)."""
    return max(*evaluation.lengths, task.max_len)


@dataclass(frozen=True)
class TwoLayerSpec(SpecParts):
    """Everything that determines a trained transformer except its seed."""

    task: ShiftConfig = field(default_factory=ShiftConfig)  # the shift task and its training lengths
    model: TransformerConfig = field(default_factory=TransformerConfig)  # the architecture
    train: TrainConfig = PAPER_TRAIN  # the optimisation

    def __post_init__(self) -> None:
        _require(self.model.vocab == self.task.vocab, f"model vocab {self.model.vocab} != task vocab {self.task.vocab}")
        if self.model.encoding == "ape":
            _require(
                self.model.positions >= self.task.max_len,
                f"APE table of {self.model.positions} positions is shorter than max_len={self.task.max_len}",
            )

    def check_eval(self, evaluation: EvalConfig) -> None:
        """Raise ``ValueError`` for an evaluation length this model cannot be evaluated at (as
        ``RunSpec.check_eval`` does for the one-layer head)."""
        for length in evaluation.lengths:
            _require(
                length > self.task.offset, f"evaluation length {length} must exceed the offset K={self.task.offset}"
            )
        width = eval_width(self.task, evaluation)
        if self.model.encoding == "ape":
            _require(
                width <= self.model.positions,
                f"evaluation length {width} exceeds the APE table ({self.model.positions} positions)",
            )


class TrainedTransformer(TrainedModel):
    """A trained transformer: ``spec`` is a :class:`TwoLayerSpec`, ``state`` is named as ``Transformer``'s
    parameters, ``trajectory`` holds "step" and "loss" every ``record_every`` steps."""

    def build(self) -> Transformer:
        return build_transformer(self.spec, self.seed)


def build_transformer(spec: TwoLayerSpec, seed: int) -> Transformer:
    """The seed's initial model: parameters drawn from ``generator(seed, "init")`` only; under
    ``ape_unseen == "zero"`` the APE rows from the task's Lmax on are then set to 0."""
    model = Transformer(spec.model, generator(seed, "init"))
    if spec.model.encoding == "ape":
        zero_unseen_rows(model.encoding.pos.weight, spec.model, spec.task.max_len)
    return model


def member_losses(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Each member's mean cross-entropy over its positions that have a target: (S, B, P, m), (S, B, P) -> (S,)."""
    S, m = logits.shape[0], logits.shape[-1]
    losses = F.cross_entropy(logits.reshape(-1, m), targets.reshape(-1), ignore_index=IGNORE, reduction="none")
    counted = (targets != IGNORE).reshape(S, -1).sum(1)  # (S,)
    return losses.view(S, -1).sum(1) / counted  # (S,)


def ensemble_forward(template: Transformer) -> Callable[[dict[str, torch.Tensor], torch.Tensor], torch.Tensor]:
    """``forward(params, tokens)``: the plain forward of ``template`` over stacked params (S, ...) and
    tokens (S, B, P) -> logits (S, B, P, m)."""
    skeleton = copy.deepcopy(template).to("meta")  # holds no numbers: functional_call supplies them
    return vmap(lambda p, tokens: functional_call(skeleton, (p,), (tokens,)))


class _Streams:
    """Each member's own training data, drawn a chunk at a time and stacked on the member axis."""

    def __init__(self, members: Sequence[Member], batch: int, length_mix: str):
        self.task = ShiftTask(members[0].spec.task)
        self.generators = [generator(m.seed, "shift-data") for m in members]
        self.batch, self.length_mix = batch, length_mix
        self.chunk: tuple[torch.Tensor, torch.Tensor] | None = None

    def step(self, step: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Tokens and targets of every member at ``step``: (S, B, P) each."""
        if step % DATA_CHUNK == 0:
            draws = [self.task.draw_training(g, DATA_CHUNK, self.batch, self.length_mix) for g in self.generators]
            tokens = torch.stack([tokens for tokens, _ in draws], 1)  # (T, S, B, P)
            lengths = torch.stack([lengths for _, lengths in draws], 1)  # (T, S, B)
            self.chunk = (tokens, self.task.targets(tokens, lengths))
        tokens, targets = self.chunk
        return tokens[step % DATA_CHUNK], targets[step % DATA_CHUNK]


def train_transformers(
    members: Sequence[Member], progress: Callable[[int], None] | None = None, device: torch.device = CPU
) -> list[TrainedTransformer]:
    """Train members of one spec together (any seeds) on ``device`` in one pass of the shared engine
    (``engine/ensemble.py``); ``progress(steps_done)`` is called every 10 steps."""
    if not members:
        return []
    spec = members[0].spec
    for member in members:
        if member.spec != spec:
            raise ValueError(f"member {member} cannot share an ensemble with {members[0]}: specs differ")
    modules = [build_transformer(spec, m.seed) for m in members]
    forward = ensemble_forward(modules[0])
    streams = _Streams(members, spec.train.batch, spec.train.length_mix)

    def losses(params: dict[str, torch.Tensor], step: int) -> torch.Tensor:
        tokens, targets = (t.to(device) for t in streams.step(step))  # (S, B, P), drawn on the CPU
        return member_losses(forward(params, tokens), targets)  # (S,)

    results = train_ensemble(modules, spec.train, losses, progress=progress, progress_every=10, device=device)
    return [
        TrainedTransformer(spec, member.seed, r.state, r.trajectory, r.seconds) for member, r in zip(members, results)
    ]
