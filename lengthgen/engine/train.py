"""Training the one-layer head: every member of an ensemble (seed, offset) trains in one batched pass of
the shared engine (``engine/ensemble.py``).

A *member* is a (RunSpec, seed) pair. Members whose specs agree on everything but the target offset(s) share
an ensemble: the engine stacks independently initialised ``OneLayerHead`` modules, each member draws batches
from its own data generator, and its loss is its own mean cross-entropy through the fast path
(``models/one_layer/fast/``), its gradients derived by hand (``fast/manual.py``; autograd on request). Seed s
therefore yields the same model trained alone or beside others (``tests/test_train.py`` checks it). The
carrier fractions and rank energy are recorded along the trajectory. The data stream of a member is drawn
``DATA_CHUNK`` steps at a time from ``generator(seed, "data")``; the chunk size is a constant of the stream,
never of the ensemble, so it does not affect the numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import torch
import torch.nn.functional as F

from lengthgen.config import RunSpec
from lengthgen.device import CPU
from lengthgen.encodings.ape import zero_unseen_rows
from lengthgen.engine.ensemble import Member, train_ensemble
from lengthgen.models import OneLayerHead, table_forward
from lengthgen.models.one_layer.fast import vocab_projections
from lengthgen.models.one_layer.fast.manual import loss_and_grads
from lengthgen.probes import carrier_fraction, per_head_bilinear, top_singular_energy
from lengthgen.seeding import generator
from lengthgen.tasks import Batch, make_task

DATA_CHUNK = 50  # training steps drawn per call to the task sampler (part of the data stream's definition)
BACKWARDS = ("manual", "autograd")  # where a step's gradients come from; the first is the suite's


@dataclass
class TrainedModel:
    spec: RunSpec
    seed: int
    state: dict[str, torch.Tensor]  # final parameters, named as OneLayerHead's
    trajectory: dict[str, list] = field(default_factory=dict)  # recorded every record_every steps
    seconds: float = 0.0  # wall time of its ensemble pass divided by the members

    def build(self) -> OneLayerHead:
        """The seed's freshly initialised model (subclasses for other model families override this)."""
        return build_model(self.spec, self.seed)

    def module(self) -> OneLayerHead:
        """The trained model as a plain module."""
        model = self.build()
        model.load_state_dict(self.state)
        return model.requires_grad_(False)

    def initial_module(self) -> OneLayerHead:
        """The same seed's untrained initialisation (the baseline of the carrier probes)."""
        return self.build().requires_grad_(False)


def build_model(spec: RunSpec, seed: int) -> OneLayerHead:
    """The seed's initial model: parameters drawn from ``generator(seed, "init")`` only; under
    ``ape_unseen == "zero"`` the APE rows from the task's Lmax on are then set to 0."""
    model = OneLayerHead(spec.model, spec.task.vocab, generator(seed, "init"))
    if spec.model.encoding == "ape":
        zero_unseen_rows(model.encoding.pos.weight, spec.model, spec.task.max_len)
    return model


def ensemble_signature(spec: RunSpec) -> RunSpec:
    """Members with equal signatures can train in one pass: only the target offsets may differ."""
    return spec.replace(task={"offset": 1, "alt_offset": 0, "kind": "offset"}) if spec.task.kind == "offset" else spec


def geometry_record(p: dict[str, torch.Tensor], spec: RunSpec) -> dict[str, torch.Tensor]:
    """Carrier fractions of per-vocabulary queries and keys and rank concentration of W, each (S, H)."""
    q_tab, k_tab = vocab_projections(p, spec.model)  # (S, H, m, dh)
    bilinear = per_head_bilinear(p["W_Q.weight"], p["W_K.weight"], spec.model.heads)  # (S, H, d, d)
    return {
        "query_carrier": carrier_fraction(q_tab),
        "key_carrier": carrier_fraction(k_tab),
        "rank_energy": top_singular_energy(bilinear),
    }


class _Streams:
    """Each member's own training data, drawn a chunk at a time and stacked on the member axis.

    Members with the same seed and the same draw (task equal but for the offsets) share one draw; only
    their labels differ. The result is identical to drawing per member.
    """

    def __init__(self, members: Sequence[Member], batch: int, length_mix: str):
        self.tasks = [make_task(m.spec.task) for m in members]
        self.draw_keys = [(m.seed, ensemble_signature(m.spec).task) for m in members]
        self.generators = {key: generator(key[0], "data") for key in self.draw_keys}
        self.batch, self.length_mix = batch, length_mix
        self.chunk: Batch | None = None

    def step(self, step: int) -> Batch:
        if step % DATA_CHUNK == 0:
            draws = {}
            for (key, g), task in zip(self.generators.items(), self._first_task_per_key()):
                draws[key] = task.draw_training(g, DATA_CHUNK, self.batch, self.length_mix)  # (T, B, P), (T, B)
            labelled = [task.label(*draws[key]) for task, key in zip(self.tasks, self.draw_keys)]
            self.chunk = Batch.stack(labelled, dim=1)  # (T, S, B, P)
        return self.chunk.index(step % DATA_CHUNK)  # (S, B, P)

    def _first_task_per_key(self):
        first = {}
        for task, key in zip(self.tasks, self.draw_keys):
            first.setdefault(key, task)
        return [first[key] for key in self.generators]


def train_members(
    members: Sequence[Member],
    progress: Callable[[int], None] | None = None,
    backward: str = BACKWARDS[0],
    device: torch.device = CPU,
) -> list[TrainedModel]:
    """Train members of one signature together on ``device`` (``engine/ensemble.py``); ``progress(steps_done)``
    is called every 100 steps. ``backward``: "manual" (the suite's) takes each step's gradients from the
    hand-derived backward (``models/one_layer/fast/manual.py``), "autograd" from autograd through the fast
    path's forward; the two agree up to float rounding (``tests/test_manual_backward.py``)."""
    if backward not in BACKWARDS:
        raise ValueError(f"unknown backward {backward!r} (known: {', '.join(BACKWARDS)})")
    if not members:
        return []
    signature = ensemble_signature(members[0].spec)
    for member in members:
        if ensemble_signature(member.spec) != signature:
            raise ValueError(f"member {member} cannot share an ensemble with {members[0]}")
    spec = members[0].spec
    streams = _Streams(members, spec.train.batch, spec.train.length_mix)

    def losses(params: dict[str, torch.Tensor], step: int) -> torch.Tensor:
        batch = streams.step(step).to(device)  # drawn on the CPU: the same data on every device
        out = table_forward(params, spec.model, batch.tokens, batch.lengths)
        S, B, m = out.logits.shape
        per_member = F.cross_entropy(out.logits.view(S * B, m), batch.targets.view(-1), reduction="none")
        return per_member.view(S, B).mean(1)  # (S,) each member's own mean loss

    def losses_and_grads(params: dict[str, torch.Tensor], step: int) -> tuple[torch.Tensor, dict[str, torch.Tensor]]:
        batch = streams.step(step).to(device)
        return loss_and_grads(params, spec.model, batch.tokens, batch.lengths, batch.targets)  # (S,), name -> (S, ...)

    results = train_ensemble(
        [build_model(m.spec, m.seed) for m in members],
        spec.train,
        losses if backward == "autograd" else None,
        probe=lambda params: geometry_record(params, spec),
        progress=progress,
        losses_and_grads=losses_and_grads if backward == "manual" else None,
        device=device,
    )
    return [
        TrainedModel(member.spec, member.seed, r.state, r.trajectory, r.seconds) for member, r in zip(members, results)
    ]
