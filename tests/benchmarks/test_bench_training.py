"""Training-speed benchmarks: one ensemble step per model family (one-layer heads and the two-layer
transformer), the C1 grid cold, and the full one-layer sweep (C17/C18) cold.

The C1 grid target: 48 models x 4000 steps in at most 60 s on 2 cores, i.e. two processes with one
thread each. A plain per-seed PyTorch loop takes many times longer per model on one core (see
``test_plain_loop_step`` for the per-step figure); the ensemble's per-vocabulary tables and shared steps
are what make the difference.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.func import stack_module_state

from lengthgen.context import Context
from lengthgen.experiments.common import paper_spec
from lengthgen.engine.grouping import MAX_MEMBERS, group_members
from lengthgen.models import table_forward
from lengthgen.engine.parallel import train_passes
from lengthgen.runtime import Runtime
from lengthgen.engine.train import Member, _Streams, build_model

FAMILIES = {
    "rope": {"model": {"encoding": "rope"}},
    "ape": {"model": {"encoding": "ape"}},
    "rope-linear": {"model": {"encoding": "rope", "attention": "linear"}},
    "rope-4heads": {"model": {"encoding": "rope", "heads": 4}},
}


def _step_fn(spec, members: int):
    group = [Member(spec, seed) for seed in range(members)]
    params, _ = stack_module_state([build_model(m.spec, m.seed) for m in group])
    optimizer = torch.optim.Adam(params.values(), lr=1e-3, fused=True)
    batch = _Streams(group, spec.train.batch, spec.train.length_mix).step(0)

    def step():
        out = table_forward(params, spec.model, batch.tokens, batch.lengths)
        S, B, m = out.logits.shape
        loss = F.cross_entropy(out.logits.view(S * B, m), batch.targets.view(-1), reduction="none").view(S, B)
        optimizer.zero_grad(set_to_none=True)
        loss.mean(1).sum().backward()
        optimizer.step()

    return step


@pytest.mark.parametrize("family", list(FAMILIES))
def test_ensemble_step(benchmark, family):
    """One training step of a full ensemble pass as the engine takes it (16 members, batch 256 each; the
    hand-derived backward)."""
    torch.set_num_threads(1)
    spec = paper_spec(Context((), 4000), **FAMILIES[family])
    benchmark.extra_info["members"] = MAX_MEMBERS
    benchmark(_manual_step_fn(spec, MAX_MEMBERS))


def _manual_step_fn(spec, members: int):
    """``_step_fn`` with the hand-derived backward (``models/one_layer/fast/manual.py``): the same members,
    batch and Adam, the gradients assigned to ``p.grad`` instead of ``backward()``."""
    from lengthgen.models.one_layer.fast.manual import loss_and_grads

    group = [Member(spec, seed) for seed in range(members)]
    params, _ = stack_module_state([build_model(m.spec, m.seed) for m in group])
    detached = {name: value.detach() for name, value in params.items()}
    optimizer = torch.optim.Adam(params.values(), lr=1e-3, fused=True)
    batch = _Streams(group, spec.train.batch, spec.train.length_mix).step(0)

    def step():
        _, grads = loss_and_grads(detached, spec.model, batch.tokens, batch.lengths, batch.targets)
        for value, grad in zip(params.values(), grads.values()):
            value.grad = grad
        optimizer.step()

    return step


@pytest.mark.parametrize("backward", ["autograd", "manual"])
@pytest.mark.parametrize("family", ["rope", "ape"])
def test_ensemble_step_backward(benchmark, family, backward):
    """One training step of a 16-member pass, autograd against the hand-derived backward (the targets: RoPE at
    most 0.20 ms per member-step, APE at most 0.30; per member-step = median / 16)."""
    torch.set_num_threads(1)
    spec = paper_spec(Context((), 4000), **FAMILIES[family])
    benchmark.extra_info["members"] = MAX_MEMBERS
    benchmark((_step_fn if backward == "autograd" else _manual_step_fn)(spec, MAX_MEMBERS))


def test_plain_loop_step(benchmark):
    """One step of the plain reference forward for one model (the per-seed loop baseline)."""
    torch.set_num_threads(1)
    spec = paper_spec(Context((), 4000))
    member = Member(spec, 0)
    model = build_model(spec, 0)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    batch = _Streams([member], spec.train.batch, spec.train.length_mix).step(0).index(0)

    def step():
        loss = F.cross_entropy(model(batch.tokens, batch.lengths).logits, batch.targets)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    benchmark(step)


def test_c1_grid_cold(benchmark):
    """The C1 grid (RoPE/APE x K in {1,2,3} x 8 seeds, 4000 steps): two processes, no cache."""
    members = [
        Member(paper_spec(Context((), 4000), model={"encoding": e}, task={"offset": k}), s)
        for e in ("rope", "ape")
        for k in (1, 2, 3)
        for s in range(8)
    ]
    passes = group_members(members)

    def grid():
        with Runtime(workers=2) as runtime:
            return sum(len(models) for _, models in train_passes(passes, runtime, threads=1))

    assert benchmark.pedantic(grid, rounds=1, iterations=1) == 48


def test_transformer_step(benchmark):
    """One training step of a two-layer transformer ensemble pass (C12/C13's model, 5 seeds)."""
    from lengthgen.experiments.two_layer import PAPER_SEEDS, STEPS, two_layer_spec
    from lengthgen.engine.train_two_layer import Member, _Streams as ShiftStreams, build_transformer
    from lengthgen.engine.train_two_layer import ensemble_forward, member_losses

    torch.set_num_threads(1)
    spec = two_layer_spec(Context((), STEPS["paper"]), "rope")
    members = [Member(spec, seed) for seed in range(PAPER_SEEDS)]
    modules = [build_transformer(spec, m.seed) for m in members]
    params, _ = stack_module_state(modules)
    forward = ensemble_forward(modules[0])
    optimizer = torch.optim.Adam(params.values(), lr=1e-3, fused=True)
    tokens, targets = ShiftStreams(members, spec.train.batch, spec.train.length_mix).step(0)

    def step():
        loss = member_losses(forward(params, tokens), targets).sum()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    benchmark(step)


def test_one_layer_sweep_cold(benchmark):
    """The full one-layer sweep of C17/C18 (every sweep point x K in {2, 3} x seeds 0-2, 4000 steps):
    two processes, no cache."""
    from lengthgen.experiments.sweeps import SWEEP, sweep_spec

    specs = {
        sweep_spec(Context((), 4000), k, factor, value)
        for factor, values in SWEEP.items()
        for value in values
        for k in (2, 3)
    }
    members = [Member(spec, seed) for spec in sorted(specs, key=repr) for seed in range(3)]
    passes = group_members(members)

    def sweep():
        with Runtime(workers=2) as runtime:
            return sum(len(models) for _, models in train_passes(passes, runtime, threads=1))

    assert benchmark.pedantic(sweep, rounds=1, iterations=1) == len(members)
