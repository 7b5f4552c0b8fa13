"""Training one-layer members with the hand-derived step (``models/one_layer/fast/manual.py``): an opt-in
beside ``engine/train.py``, which the suite keeps calling. ``train_members(members, backward="autograd")``
is exactly ``engine.train.train_members`` (it calls it); ``backward="manual"`` trains the same members on
the same data stream, with the same initialisation, Adam and records, but takes each step's gradients from
the closed-form backward instead of autograd: the same numbers up to float rounding, not bit for bit
(``tests/test_manual_backward.py`` bounds the gap after 50 steps).

The loop is ``engine/ensemble.py``'s ``train_ensemble`` with one change: the gradients are assigned to
``p.grad`` (no graph, no ``backward()`` call). It is written out here, not added to ``ensemble.py``,
because ``ensemble.py`` and ``train.py`` are in every cache key (``store/fingerprint.py``'s ``CORE``):
touching them would retrain every cached model. Nothing here is in a cache key; switching the engine to
this path means moving the loop's one change into ``train_ensemble`` and this file's imports into ``CORE``.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

import torch
from torch import nn

from lengthgen.config import TrainConfig
from lengthgen.device import get_device
from lengthgen.engine import train as autograd_train
from lengthgen.engine.ensemble import Member, MemberResult, Params, optimizer_for, stack
from lengthgen.engine.train import TrainedModel, _Streams, build_model, ensemble_signature, geometry_record
from lengthgen.models.one_layer.fast.manual import loss_and_grads

BACKWARDS = ("autograd", "manual")  # the first is the suite's (engine/train.py)


def train_ensemble_by_hand(
    modules: Sequence[nn.Module],
    cfg: TrainConfig,
    losses_and_grads: Callable[[Params, int], tuple[torch.Tensor, Params]],
    probe: Callable[[Params], dict[str, torch.Tensor]] | None = None,
    progress: Callable[[int], None] | None = None,
    progress_every: int = 100,
) -> list[MemberResult]:
    """``train_ensemble`` with ``losses_and_grads(params, step)`` returning each member's loss (S,) and the
    gradient of their sum for every parameter (named as ``params``), which Adam then applies."""
    start = time.perf_counter()
    members = len(modules)
    params = stack(modules)
    detached = {name: value.detach() for name, value in params.items()}  # the same storage, no autograd
    optimizer = optimizer_for(list(params.values()), cfg)
    trajectory: dict[str, list] = {"step": [], "loss": []}
    loss_sum = torch.zeros(members, dtype=torch.float64, device=get_device())  # (S,)

    def record(step: int) -> None:
        window = step - trajectory["step"][-1] if trajectory["step"] else step
        trajectory["step"].append(step)
        trajectory["loss"].append((loss_sum / max(window, 1)).tolist())
        loss_sum.zero_()
        if probe is not None:
            with torch.no_grad():
                for name, value in probe(params).items():  # (S, ...)
                    trajectory.setdefault(name, []).append(value.tolist())

    if probe is not None:
        record(0)
    for step in range(cfg.steps):
        per_member, grads = losses_and_grads(detached, step)  # (S,), name -> (S, ...)
        for name, value in params.items():
            value.grad = grads[name]
        optimizer.step()
        loss_sum += per_member
        done = step + 1
        if done % cfg.record_every == 0 or done == cfg.steps:
            record(done)
        if progress is not None and (done % progress_every == 0 or done == cfg.steps):
            progress(done)
    seconds = (time.perf_counter() - start) / members
    return [
        MemberResult(
            state={name: value[i].detach().cpu().clone() for name, value in params.items()},
            trajectory={
                name: (list(rows) if name == "step" else [row[i] for row in rows]) for name, rows in trajectory.items()
            },
            seconds=seconds,
        )
        for i in range(members)
    ]


def train_members(
    members: Sequence[Member], progress: Callable[[int], None] | None = None, backward: str = BACKWARDS[0]
) -> list[TrainedModel]:
    """``engine.train.train_members`` under ``backward="autograd"`` (the suite's engine, called as is); under
    ``"manual"`` the same members trained with the hand-derived backward."""
    if backward not in BACKWARDS:
        raise ValueError(f"unknown backward {backward!r} (known: {', '.join(BACKWARDS)})")
    if backward == "autograd" or not members:
        return autograd_train.train_members(members, progress)
    signature = ensemble_signature(members[0].spec)
    for member in members:
        if ensemble_signature(member.spec) != signature:
            raise ValueError(f"member {member} cannot share an ensemble with {members[0]}")
    spec = members[0].spec
    device = get_device()
    streams = _Streams(members, spec.train.batch, spec.train.length_mix)

    def losses_and_grads(params: Params, step: int) -> tuple[torch.Tensor, Params]:
        batch = streams.step(step).to(device)  # drawn on the CPU: the same data on every device
        return loss_and_grads(params, spec.model, batch.tokens, batch.lengths, batch.targets)

    results = train_ensemble_by_hand(
        [build_model(m.spec, m.seed) for m in members],
        spec.train,
        losses_and_grads,
        probe=lambda params: geometry_record(params, spec),
        progress=progress,
    )
    return [
        TrainedModel(member.spec, member.seed, r.state, r.trajectory, r.seconds) for member, r in zip(members, results)
    ]
