"""The ensemble engine shared by both model families: independently initialised members trained in one
batched pass.

A pass stacks the members' parameters on a leading member axis (``torch.func.stack_module_state``),
asks the family for each member's own mean loss at every step, backpropagates their *sum* (so each
member's gradient is exactly its own) and takes an elementwise Adam step. A member therefore trains the
same alone or beside others, in any pass, in any process. What differs between the families is only
the model, its data stream and its forward: ``engine/train.py`` (the one-layer head) and
``engine/train_two_layer.py`` (the two-layer transformer) supply them as a ``losses(params, step)``
function, and the one-layer family adds a ``probe(params)`` recorded along the trajectory.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch
from torch import nn
from torch.func import stack_module_state

from lengthgen.config import TrainConfig
from lengthgen.device import CPU
from lengthgen.seeding import check_seed

Params = dict[str, torch.Tensor]  # parameter name -> stacked values (members, ...)


@dataclass(frozen=True)
class Member:
    """One model to train, of either family: what is trained and the seed of its initialisation and data."""

    spec: Any  # a RunSpec (the one-layer head) or a TwoLayerSpec (the two-layer transformer)
    seed: int  # seeds the initialisation ("init") and the data stream ("data" / "shift-data")

    def __post_init__(self) -> None:
        check_seed(self.seed)


class FusedAdam:
    """Adam as ``torch.optim.Adam(params, lr, weight_decay=..., fused=True)`` computes it: the same fused
    kernel (``torch._fused_adam_``), state and step counters, so the same numbers bit for bit
    (``tests/test_fast_path.py`` checks it), without the ``Optimizer`` machinery: its per-step Python
    overhead and its first use, which imports ``torch._dynamo`` (seconds of start-up per process). With
    ``decoupled``, AdamW as ``torch.optim.AdamW(..., fused=True)`` computes it (``torch._fused_adamw_``).
    """

    def __init__(
        self,
        params: Sequence[torch.Tensor],
        lr: float,
        weight_decay: float = 0.0,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        decoupled: bool = False,
    ):
        self.params = list(params)
        self.lr, self.weight_decay, self.betas, self.eps = lr, weight_decay, betas, eps
        self.kernel = torch._fused_adamw_ if decoupled else torch._fused_adam_
        self.exp_avgs = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
        self.exp_avg_sqs = [torch.zeros_like(p, memory_format=torch.preserve_format) for p in self.params]
        self.state_steps = [torch.zeros((), dtype=torch.float32, device=p.device) for p in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self) -> None:
        torch._foreach_add_(self.state_steps, 1)
        self.kernel(
            self.params,
            [p.grad for p in self.params],
            self.exp_avgs,
            self.exp_avg_sqs,
            [],
            self.state_steps,
            amsgrad=False,
            lr=self.lr,
            beta1=self.betas[0],
            beta2=self.betas[1],
            weight_decay=self.weight_decay,
            eps=self.eps,
            maximize=False,
            grad_scale=None,
            found_inf=None,
        )


@dataclass
class MemberResult:
    """One member's share of a pass."""

    state: dict[str, torch.Tensor]  # its final parameters, on the CPU, named as the family's module's
    trajectory: dict[str, list]  # "step", "loss" (mean over each window) and the probe's quantities
    seconds: float  # wall time of the pass divided by the members


def optimizer_for(params: Sequence[torch.Tensor], cfg: TrainConfig) -> FusedAdam:
    """The optimizer of ``cfg``: Adam at its lr, with its weight decay coupled (Adam) or decoupled (AdamW)."""
    return FusedAdam(params, lr=cfg.lr, weight_decay=cfg.weight_decay, decoupled=cfg.decay == "decoupled")


def stack(modules: Sequence[nn.Module], device: torch.device = CPU) -> Params:
    """The members' parameters stacked on a leading axis, on ``device``, trainable."""
    stacked, _ = stack_module_state(list(modules))  # name -> (S, ...)
    return {name: value.detach().to(device).requires_grad_() for name, value in stacked.items()}


def train_ensemble(
    modules: Sequence[nn.Module],
    cfg: TrainConfig,
    losses: Callable[[Params, int], torch.Tensor] | None = None,
    probe: Callable[[Params], dict[str, torch.Tensor]] | None = None,
    progress: Callable[[int], None] | None = None,
    progress_every: int = 100,
    losses_and_grads: Callable[[Params, int], tuple[torch.Tensor, Params]] | None = None,
    device: torch.device = CPU,
) -> list[MemberResult]:
    """Train the members (freshly initialised ``modules``, one per member) together for ``cfg.steps``.

    Exactly one of the two step functions is given. ``losses(params, step)`` returns each member's own mean
    loss at ``step``, shape (S,), and autograd takes its gradients; ``losses_and_grads(params, step)`` is
    called with the parameters detached (no graph) and returns the losses and the gradient of their sum for
    every parameter (named as ``params``: a hand-derived backward), which Adam then applies. Every
    ``cfg.record_every`` steps (and at the last) the trajectory records the step and each member's mean
    loss over the window; with a ``probe``, also the probe's per-member quantities, and a first record
    at step 0 (loss 0). ``progress(steps_done)`` is called every ``progress_every`` steps and at the end. The
    parameters, and so the training, live on ``device``; the step functions move their batches there.
    """
    if (losses is None) == (losses_and_grads is None):
        raise ValueError("train_ensemble takes exactly one of losses and losses_and_grads")
    start = time.perf_counter()
    members = len(modules)
    params = stack(modules, device)
    detached = {name: value.detach() for name, value in params.items()}  # the same storage, no autograd
    optimizer = optimizer_for(list(params.values()), cfg)
    trajectory: dict[str, list] = {"step": [], "loss": []}
    loss_sum = torch.zeros(members, dtype=torch.float64, device=device)  # (S,)

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
        if losses_and_grads is not None:
            per_member, grads = losses_and_grads(detached, step)  # (S,), name -> (S, ...)
            for name, value in params.items():
                value.grad = grads[name]
        else:
            per_member = losses(params, step)  # (S,)
            optimizer.zero_grad()
            per_member.sum().backward()
        optimizer.step()
        loss_sum += per_member.detach()
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
