"""The training engine: every member of an ensemble (seed, offset) trains in one batched pass.

A *member* is a (RunSpec, seed) pair. Members whose specs agree on everything but the target offset(s)
share an ensemble: their parameters are stacked (``torch.func.stack_module_state`` of independently
initialised ``OneLayerHead`` modules), each draws batches from its own data generator, the loss is the
sum of the members' mean cross-entropies (so each member's gradient is exactly its own), and Adam is
elementwise. Seed s therefore yields the same model trained alone or beside others
(``tests/test_train.py`` checks it).

The data stream of a member is drawn ``DATA_CHUNK`` steps at a time from ``generator(seed, "data")``;
the chunk size is a constant of the stream, never of the ensemble, so it does not affect the numbers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Sequence

import torch
import torch.nn.functional as F
from torch.func import stack_module_state

from lengthgen.config import RunSpec
from lengthgen.device import get_device
from lengthgen.models import OneLayerHead, table_forward
from lengthgen.models.one_layer.fast import vocab_projections
from lengthgen.probes import carrier_fraction, per_head_bilinear, top_singular_energy
from lengthgen.seeding import check_seed, generator
from lengthgen.tasks import Batch, make_task

DATA_CHUNK = 50  # training steps drawn per call to the task sampler (part of the data stream's definition)


@dataclass(frozen=True)
class Member:
    spec: RunSpec  # what is trained
    seed: int  # seeds the initialisation and the data stream

    def __post_init__(self) -> None:
        check_seed(self.seed)


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
    """The seed's initial model: parameters drawn from ``generator(seed, "init")`` only."""
    return OneLayerHead(spec.model, spec.task.vocab, generator(seed, "init"))


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


class FusedAdam:
    """Adam as ``torch.optim.Adam(params, lr, weight_decay=..., fused=True)`` computes it: the same fused
    kernel (``torch._fused_adam_``), state and step counters, so the same numbers bit for bit
    (``tests/test_fast_path.py`` checks it), without the ``Optimizer`` machinery: its per-step Python
    overhead and its first use, which imports ``torch._dynamo`` (seconds of start-up per process).
    """

    def __init__(self, params: Sequence[torch.Tensor], lr: float, weight_decay: float = 0.0,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8):
        self.params = list(params)
        self.lr, self.weight_decay, self.betas, self.eps = lr, weight_decay, betas, eps
        self.exp_avgs = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
        self.exp_avg_sqs = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
        self.state_steps = [torch.zeros((), dtype=torch.float32, device=p.device) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        torch._foreach_add_(self.state_steps, 1)
        torch._fused_adam_(
            self.params, [p.grad for p in self.params], self.exp_avgs, self.exp_avg_sqs, [], self.state_steps,
            amsgrad=False, lr=self.lr, beta1=self.betas[0], beta2=self.betas[1], weight_decay=self.weight_decay,
            eps=self.eps, maximize=False, grad_scale=None, found_inf=None,
        )


class _Streams:
    """Each member's own training data, drawn a chunk at a time and stacked on the member axis.

    Members with the same seed and the same draw (task equal but for the offsets) share one draw; only
    their labels differ. The result is identical to drawing per member.
    """

    def __init__(self, members: Sequence[Member], batch: int):
        self.tasks = [make_task(m.spec.task) for m in members]
        self.draw_keys = [(m.seed, ensemble_signature(m.spec).task) for m in members]
        self.generators = {key: generator(key[0], "data") for key in self.draw_keys}
        self.batch = batch
        self.chunk: Batch | None = None

    def step(self, step: int) -> Batch:
        if step % DATA_CHUNK == 0:
            draws = {}
            for (key, g), task in zip(self.generators.items(), self._first_task_per_key()):
                draws[key] = task.draw_training(g, DATA_CHUNK, self.batch)  # (T, B, P), (T, B)
            labelled = [task.label(*draws[key]) for task, key in zip(self.tasks, self.draw_keys)]
            self.chunk = Batch.stack(labelled, dim=1)  # (T, S, B, P)
        return self.chunk.index(step % DATA_CHUNK)  # (S, B, P)

    def _first_task_per_key(self):
        first = {}
        for task, key in zip(self.tasks, self.draw_keys):
            first.setdefault(key, task)
        return [first[key] for key in self.generators]


def train_members(
    members: Sequence[Member], progress: Callable[[int], None] | None = None
) -> list[TrainedModel]:
    """Train members of one signature together; ``progress(steps_done)`` is called periodically."""
    if not members:
        return []
    signature = ensemble_signature(members[0].spec)
    for member in members:
        if ensemble_signature(member.spec) != signature:
            raise ValueError(f"member {member} cannot share an ensemble with {members[0]}")
    spec, cfg = members[0].spec, members[0].spec.train
    device = get_device()
    start = time.perf_counter()
    stacked, _ = stack_module_state([build_model(m.spec, m.seed) for m in members])  # name -> (S, ...)
    params = {name: value.detach().to(device).requires_grad_() for name, value in stacked.items()}
    optimizer = FusedAdam(list(params.values()), lr=cfg.lr, weight_decay=cfg.weight_decay)
    streams = _Streams(members, cfg.batch)
    trajectory: dict[str, list] = {"step": [], "loss": []}
    loss_sum = torch.zeros(len(members), dtype=torch.float64, device=device)

    def record(step: int, steps_in_window: int) -> None:
        with torch.no_grad():
            geometry = geometry_record(params, spec)
        trajectory["step"].append(step)
        trajectory["loss"].append((loss_sum / max(steps_in_window, 1)).tolist())
        for name, value in geometry.items():
            trajectory.setdefault(name, []).append(value.tolist())
        loss_sum.zero_()

    record(0, 0)
    for step in range(cfg.steps):
        batch = streams.step(step).to(device)  # drawn on the CPU: the same data on every device
        out = table_forward(params, spec.model, batch.tokens, batch.lengths)
        S, B, m = out.logits.shape
        per_member = F.cross_entropy(out.logits.view(S * B, m), batch.targets.view(-1), reduction="none")
        per_member = per_member.view(S, B).mean(1)  # (S,) each member's own mean loss
        optimizer.zero_grad()
        per_member.sum().backward()
        optimizer.step()
        loss_sum += per_member.detach()
        done = step + 1
        if done % cfg.record_every == 0 or done == cfg.steps:
            record(done, done - trajectory["step"][-1])
        if progress is not None and (done % 100 == 0 or done == cfg.steps):
            progress(done)
    seconds = (time.perf_counter() - start) / len(members)
    results = []
    for i, member in enumerate(members):
        state = {name: value[i].detach().cpu().clone() for name, value in params.items()}
        member_trajectory = {"step": list(trajectory["step"])}
        for name, rows in trajectory.items():
            if name != "step":
                member_trajectory[name] = [row[i] for row in rows]
        results.append(TrainedModel(member.spec, member.seed, state, member_trajectory, seconds))
    return results
