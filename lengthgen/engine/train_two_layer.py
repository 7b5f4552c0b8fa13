"""Training the two-layer transformer on the shift task: a batched ensemble of seeds, cached.

A :class:`TwoLayerSpec` (task, architecture, optimisation) plus a seed identifies a model. Seeds of one
spec train together: the plain :class:`~lengthgen.models.two_layer.transformer.Transformer` modules of every seed
are stacked (``torch.func.stack_module_state``) and the *same* plain forward runs over the member axis
with ``vmap(functional_call(...))``; each member draws its own batches from ``generator(seed,
"shift-data")``, the loss is the sum of the members' own mean losses (so each member's gradient is its
own) and Adam is elementwise. A seed therefore trains the same alone or in an ensemble
(``tests/test_transformer_train.py`` checks it, and checks the vmapped forward against the plain one).

``trained_transformers(members, cache)`` loads what the cache holds and trains the rest, one lock per
entry (like ``lengthgen.store.one_layer.trained``). The cache key covers the full spec, the seed, the code
fingerprint of the core plus this model's files, torch's version and the thread count.
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import torch
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap

from lengthgen.engine import cluster
from lengthgen.store.cache import Cache, fetch_or_compute, payload_key
from lengthgen.config import SpecParts, TrainConfig, _require
from lengthgen.device import get_device
from lengthgen.models.two_layer.transformer import Transformer, TransformerConfig
from lengthgen.engine.parallel import train_passes
from lengthgen.progress import progress_bar
from lengthgen.seeding import check_seed, generator
from lengthgen.store.one_layer import environment
from lengthgen.tasks.shift import IGNORE, ShiftConfig, ShiftTask
from lengthgen.engine.train import TrainedModel

# the files besides the core whose code decides a trained transformer's numbers
MODEL_FILES = ("models/two_layer/transformer.py", "tasks/shift.py", "engine/train_two_layer.py", "encodings/rope.py")
DATA_CHUNK = 50  # training steps drawn per call to the sampler (part of the data stream's definition)
MAX_MEMBERS = 8  # seeds per ensemble pass (the model is compute-bound: larger passes gain nothing)
CACHE_KIND = "two-layer"
# the suite's training choice (the paper gives none for this model): Adam at the paper's lr 1e-3, batch 32
# full sequences (~390 supervised positions per step), 300 steps; the in- and out-of-range numbers of
# both encodings are settled by step ~150 (see experiments/two_layer.py)
PAPER_TRAIN = TrainConfig(steps=300, batch=32, lr=1e-3, record_every=50)


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


@dataclass(frozen=True)
class TransformerMember:
    spec: TwoLayerSpec  # what is trained
    seed: int  # seeds the initialisation ("init") and the data stream ("shift-data")

    def __post_init__(self) -> None:
        check_seed(self.seed)


class TrainedTransformer(TrainedModel):
    """A trained transformer: ``spec`` is a :class:`TwoLayerSpec`, ``state`` is named as ``Transformer``'s
    parameters, ``trajectory`` holds "step" and "loss" every ``record_every`` steps."""

    def build(self) -> Transformer:
        return build_transformer(self.spec, self.seed)


def build_transformer(spec: TwoLayerSpec, seed: int) -> Transformer:
    """The seed's initial model: parameters drawn from ``generator(seed, "init")`` only."""
    return Transformer(spec.model, generator(seed, "init"))


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

    def __init__(self, members: Sequence[TransformerMember], batch: int):
        self.task = ShiftTask(members[0].spec.task)
        self.generators = [generator(m.seed, "shift-data") for m in members]
        self.batch = batch
        self.chunk: tuple[torch.Tensor, torch.Tensor] | None = None

    def step(self, step: int) -> tuple[torch.Tensor, torch.Tensor]:
        """Tokens and targets of every member at ``step``: (S, B, P) each."""
        if step % DATA_CHUNK == 0:
            draws = [self.task.draw_training(g, DATA_CHUNK, self.batch) for g in self.generators]
            tokens = torch.stack([tokens for tokens, _ in draws], 1)  # (T, S, B, P)
            lengths = torch.stack([lengths for _, lengths in draws], 1)  # (T, S, B)
            self.chunk = (tokens, self.task.targets(tokens, lengths))
        tokens, targets = self.chunk
        return tokens[step % DATA_CHUNK], targets[step % DATA_CHUNK]


def train_transformers(
    members: Sequence[TransformerMember], progress: Callable[[int], None] | None = None
) -> list[TrainedTransformer]:
    """Train members of one spec together (any seeds); ``progress(steps_done)`` is called periodically."""
    if not members:
        return []
    spec = members[0].spec
    for member in members:
        if member.spec != spec:
            raise ValueError(f"member {member} cannot share an ensemble with {members[0]}: specs differ")
    cfg = spec.train
    start = time.perf_counter()
    device = get_device()
    modules = [build_transformer(spec, m.seed) for m in members]
    stacked, _ = stack_module_state(modules)  # name -> (S, ...)
    params = {name: value.detach().to(device).requires_grad_() for name, value in stacked.items()}
    forward = ensemble_forward(modules[0])
    optimizer = torch.optim.Adam(params.values(), lr=cfg.lr, weight_decay=cfg.weight_decay, fused=True)
    streams = _Streams(members, cfg.batch)
    trajectory: dict[str, list] = {"step": [], "loss": []}
    loss_sum = torch.zeros(len(members), dtype=torch.float64, device=device)  # (S,)
    last = 0
    for step in range(cfg.steps):
        tokens, targets = (t.to(device) for t in streams.step(step))  # (S, B, P), drawn on the CPU
        per_member = member_losses(forward(params, tokens), targets)  # (S,)
        optimizer.zero_grad(set_to_none=True)
        per_member.sum().backward()
        optimizer.step()
        loss_sum += per_member.detach()
        done = step + 1
        if done % cfg.record_every == 0 or done == cfg.steps:
            trajectory["step"].append(done)
            trajectory["loss"].append((loss_sum / (done - last)).tolist())
            loss_sum.zero_()
            last = done
        if progress is not None and (done % 10 == 0 or done == cfg.steps):
            progress(done)
    seconds = (time.perf_counter() - start) / len(members)
    results = []
    for i, member in enumerate(members):
        state = {name: value[i].detach().cpu().clone() for name, value in params.items()}
        own = {"step": list(trajectory["step"]), "loss": [row[i] for row in trajectory["loss"]]}
        results.append(TrainedTransformer(spec, member.seed, state, own, seconds))
    return results


# ---- the cache --------------------------------------------------------------------------------------


def train_payload(member: TransformerMember) -> dict[str, Any]:
    """Everything that decides the trained numbers."""
    return {"what": "two-layer-transformer", "spec": member.spec.to_dict(), "seed": member.seed,
            **environment(MODEL_FILES)}


def train_key(member: TransformerMember) -> str:
    return payload_key(train_payload(member))


def trained_transformers(
    members: Sequence[TransformerMember], cache: Cache, progress: bool | None = None
) -> list[TrainedTransformer]:
    """One trained model per member: loaded from the cache, or trained now (missing seeds of a spec in
    one ensemble pass) and saved. One lock per entry, so concurrent processes train each model once."""

    def decode(i: int, entry: tuple[dict, dict]) -> TrainedTransformer:
        meta, tensors = entry
        return TrainedTransformer(members[i].spec, members[i].seed, tensors, meta["trajectory"], meta["seconds"])

    def compute(todo: list[int]):
        groups: dict[TwoLayerSpec, list[int]] = {}
        for i in todo:
            groups.setdefault(members[i].spec, []).append(i)
        chunks = [indices[start : start + MAX_MEMBERS]
                  for indices in groups.values() for start in range(0, len(indices), MAX_MEMBERS)]
        for chunk, models in _train_chunks(chunks):
            for i, model in zip(chunk, models):
                meta = {"trajectory": model.trajectory, "seconds": model.seconds}
                yield i, model, (train_payload(members[i]), meta, model.state)

    def _train_chunks(chunks: list[list[int]]):
        """``(chunk, models)`` per ensemble pass: on the connected Dask cluster, else here, in order."""
        if cluster.active():
            passes = [[members[i] for i in chunk] for chunk in chunks]
            for number, models in train_passes(passes, threads=torch.get_num_threads(), train=train_transformers,
                                               payload=train_payload, make=TrainedTransformer):
                yield chunks[number], models
            return
        for chunk in chunks:
            spec = members[chunk[0]].spec
            with progress_bar(spec.train.steps, f"train two-layer {spec.model.encoding} x{len(chunk)}", progress) as update:
                yield chunk, train_transformers([members[i] for i in chunk], progress=update)

    return fetch_or_compute(cache, CACHE_KIND, [train_key(m) for m in members], decode, compute)
