"""Training the transformer: the vmapped ensemble forward is the plain forward (values and gradients),
a seed trains the same alone or in an ensemble, the loss masks what has no target, and the cache
trains each model once."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.func import stack_module_state

from lengthgen.store.cache import Cache
from lengthgen.seeding import generator
from lengthgen.tasks.shift import IGNORE, ShiftTask
from lengthgen.engine.train_two_layer import (
    Member,
    TwoLayerSpec,
    build_transformer,
    ensemble_forward,
    member_losses,
    train_transformers,
)
from lengthgen.store.two_layer import train_key, train_payload, trained_transformers

# float32: vmap runs the members' matmuls as one batched matmul, which may block the sums differently
# from a single matmul; logits are of order 1-10, gradients are compared relative to their largest entry
VALUE_ATOL = 1e-5
GRAD_RTOL = 1e-4
# a seed alone vs in an ensemble: the same batched kernels over S = 1 or S = 3 members; measured
# bitwise equal here, allowed to drift by last-bit rounding over the Adam steps
ENSEMBLE_ATOL = 1e-5


def tiny_spec(encoding: str = "rope", steps: int = 12) -> TwoLayerSpec:
    return TwoLayerSpec().replace(
        model={"encoding": encoding, "d": 32}, train={"steps": steps, "batch": 8, "record_every": 5}
    )


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_vmapped_forward_equals_plain_forward_values_and_gradients(encoding):
    spec = tiny_spec(encoding)
    modules = [build_transformer(spec, seed) for seed in range(3)]
    params, _ = stack_module_state(modules)
    task = ShiftTask(spec.task)
    draws = [task.draw_training(generator(seed, "shift-data"), 1, 6) for seed in range(3)]
    tokens = torch.stack([t[0] for t, _ in draws])  # (S, B, P)
    targets = torch.stack([task.targets(t[0], n[0]) for t, n in draws])  # (S, B, P)
    batched = ensemble_forward(modules[0])(params, tokens)  # (S, B, P, m)
    member_losses(batched, targets).sum().backward()
    for i, module in enumerate(modules):
        plain = module(tokens[i])
        torch.testing.assert_close(batched[i], plain, atol=VALUE_ATOL, rtol=0)
        loss = F.cross_entropy(plain.reshape(-1, 20), targets[i].reshape(-1), ignore_index=IGNORE)
        loss.backward()
        for name, param in module.named_parameters():
            scale = param.grad.abs().max().item()
            torch.testing.assert_close(
                params[name].grad[i],
                param.grad,
                atol=GRAD_RTOL * scale,
                rtol=0,
                msg=lambda m, name=name: f"{name}: {m}",
            )


def test_member_losses_average_only_positions_with_a_target():
    logits = torch.randn(2, 3, 4, 5, generator=generator(0, "test"))  # (S, B, P, m)
    targets = torch.tensor([[[IGNORE, 1, 2, IGNORE]] * 3, [[IGNORE, IGNORE, 0, 4]] * 3])  # (S, B, P)
    losses = member_losses(logits, targets)
    for s in range(2):
        keep = targets[s] != IGNORE
        expected = F.cross_entropy(logits[s][keep], targets[s][keep])
        assert losses[s].item() == pytest.approx(expected.item(), rel=1e-6)


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_seed_trained_alone_equals_seed_in_ensemble(encoding):
    spec = tiny_spec(encoding)
    alone = train_transformers([Member(spec, 4)])[0]
    together = train_transformers([Member(spec, s) for s in (0, 4, 9)])[1]
    assert together.seed == 4
    for name in alone.state:
        torch.testing.assert_close(
            together.state[name], alone.state[name], atol=ENSEMBLE_ATOL, rtol=0, msg=lambda m, name=name: f"{name}: {m}"
        )
    assert together.trajectory["step"] == alone.trajectory["step"] == [5, 10, 12]
    assert together.trajectory["loss"] == pytest.approx(alone.trajectory["loss"], abs=1e-6)


def test_members_of_different_specs_cannot_share_an_ensemble():
    with pytest.raises(ValueError, match="specs differ"):
        train_transformers([Member(tiny_spec("rope"), 0), Member(tiny_spec("ape"), 1)])


def test_cache_trains_once_and_keys_everything_that_decides_the_numbers(tmp_path):
    spec = tiny_spec("rope", steps=3)
    members = [Member(spec, 0), Member(spec, 1)]
    cache = Cache(tmp_path)
    first = trained_transformers(members, cache)
    assert cache.stats["two-layer:computed"] == 2
    second = trained_transformers(members[::-1], Cache(tmp_path))
    assert [m.seed for m in second] == [1, 0]
    for a, b in zip(first, second[::-1]):
        for name in a.state:
            assert torch.equal(a.state[name], b.state[name])
    payload = train_payload(members[0])
    assert payload["seed"] == 0 and payload["spec"]["model"]["encoding"] == "rope"
    assert {"code", "torch", "threads"} <= set(payload)
    assert train_key(members[0]) != train_key(members[1])
    assert train_key(members[0]) != train_key(Member(spec.replace(train={"steps": 4}), 0))


def test_spec_validation_names_the_value():
    with pytest.raises(ValueError, match="model vocab 10 != task vocab 20"):
        TwoLayerSpec().replace(model={"vocab": 10})
    with pytest.raises(ValueError, match="12 positions is shorter than max_len=16"):
        TwoLayerSpec().replace(model={"encoding": "ape", "positions": 12})
    with pytest.raises(ValueError, match="seed -1"):
        Member(TwoLayerSpec(), -1)


@pytest.mark.slow
def test_rope_transformer_learns_the_shift_task():
    spec = TwoLayerSpec().replace(model={"d": 32}, train={"steps": 150, "batch": 16, "lr": 3e-3, "record_every": 50})
    model = train_transformers([Member(spec, 0)])[0]
    losses = model.trajectory["loss"]
    assert losses[-1] < 0.1 * losses[0], f"loss did not fall: {losses}"


@pytest.mark.slow
def test_worker_processes_train_and_evaluate_the_numbers_of_one_process(tmp_path):
    """``--lengthgen-workers``: the passes of two specs train in two processes, and the models evaluate there,
    bit for bit as in this process."""
    from lengthgen.config import EvalConfig
    from lengthgen.engine import parallel
    from lengthgen.runtime import Runtime
    from lengthgen.store.two_layer import evaluated_transformers

    members = [Member(tiny_spec(encoding, steps=6), seed) for encoding in ("rope", "ape") for seed in (0, 1)]
    evaluation = EvalConfig(lengths=(12, 20), sequences=64)
    alone = trained_transformers(members, Cache(tmp_path / "alone"))
    alone_evals = evaluated_transformers(alone, evaluation, Cache(tmp_path / "alone"))
    with Runtime(workers=2) as runtime:
        spread = trained_transformers(members, Cache(tmp_path / "spread", runtime=runtime))
        spread_evals = evaluated_transformers(spread, evaluation, Cache(tmp_path / "spread", runtime=runtime))
        assert parallel.has_pool(runtime)  # the work went to the pool
    for a, b in zip(alone, spread):
        assert all(torch.equal(a.state[name], b.state[name]) for name in a.state)
        assert a.trajectory == b.trajectory
    assert [e.to_dict() for e in alone_evals] == [e.to_dict() for e in spread_evals]
