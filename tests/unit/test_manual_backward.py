"""The hand-derived step (``models/one_layer/fast/manual.py``): its loss and every parameter's gradient agree
with autograd through the plain reference forward (``OneLayerHead``, one member at a time) and through the
autograd fast path (``table_forward``), for every encoding, attention, head count, task and reading the
suite trains; and 50 training steps on it end where the autograd engine's do.
"""

from __future__ import annotations

import types

import pytest
import torch
import torch.nn.functional as F
from torch.func import stack_module_state

from lengthgen.config import ENCODINGS, ModelConfig, RunSpec, TaskConfig, TrainConfig
from lengthgen.engine import train as engine_train
from lengthgen.engine.train import Member, build_model
from lengthgen.models import table_forward
from lengthgen.models.one_layer.fast import FAST_PATHS
from lengthgen.models.one_layer.fast.manual import (
    MANUAL_ENCODINGS,
    check_supported,
    cross_entropy,
    cross_entropy_grad,
    loss_and_grads,
    manual_forward,
    manual_losses,
)
from lengthgen.seeding import generator
from lengthgen.tasks import Batch, make_task

MEMBERS = 3
# Tolerances, all relative to the largest entry of what is compared against (a gradient, the logits, the
# losses). In float32 the paths sum the same products in different orders (the tables' matmuls against
# per-position sums; the hand-derived backward's matmuls against autograd's), so they agree to a few float32
# roundings of the largest term. Each float32 tolerance is several times the largest gap over every case below,
# so it leaves room for rounding and for nothing else.
FAST_RTOL = 5e-6  # float32, against autograd through table_forward
REFERENCE_RTOL = 1e-5  # float32, against autograd through the reference forward
LOSS_RTOL = 2e-6  # float32 mean cross-entropies
# In float64 the rounding is 2^-53 ~ 1.1e-16: a gap above this bound, far above a few roundings, is a wrong
# derivation, not rounding
DERIVATION_RTOL = 1e-11

READINGS = {
    "gpt2": {"init": "gpt2"},
    "token-value": {"ape_value": "token"},
    "zero-unseen": {"ape_unseen": "zero"},
    "per-batch": {"length_mix": "per-batch"},
    "all": {"init": "gpt2", "ape_value": "token", "ape_unseen": "zero", "length_mix": "per-batch"},
}
APE_ONLY = ("ape_value", "ape_unseen")
CONTENT = {"kind": "content", "offset": 2, "alt_offset": 3}

CASES = (
    [
        pytest.param(encoding, heads, attention, {}, {}, id=f"{encoding}-H{heads}-{attention}")
        for encoding in ENCODINGS
        for heads in (1, 2)
        for attention in ("softmax", "linear")
    ]
    + [
        pytest.param(encoding, heads, attention, reading, {}, id=f"{encoding}-H{heads}-{attention}-{name}")
        for name, reading in READINGS.items()
        for encoding in ENCODINGS
        for heads, attention in ((1, "softmax"), (2, "linear"))
        if encoding == "ape" or not set(reading) & set(APE_ONLY)
    ]
    + [
        pytest.param(encoding, heads, "softmax", {}, CONTENT, id=f"{encoding}-H{heads}-content")
        for encoding in ENCODINGS
        for heads in (1, 2, 4)
    ]
    + [pytest.param("rope", 1, "softmax", {"rope_base": base}, {}, id=f"rope-base{base:g}") for base in (1e3, 1e5)]
)


def _setup(encoding, heads, attention, reading, task, dtype=torch.float32, d=16):
    """Members built as the engine builds them and their own training batches, stacked."""
    model_fields = {k: v for k, v in reading.items() if k != "length_mix"}
    cfg = ModelConfig(encoding=encoding, d=d, heads=heads, attention=attention, temperature=0.8, **model_fields)
    spec = RunSpec(TaskConfig(**task), cfg)
    models = [build_model(spec, s).to(dtype) for s in range(MEMBERS)]
    params, _ = stack_module_state(models)
    task_of = make_task(spec.task)
    length_mix = reading.get("length_mix", "per-sequence")
    batches = [task_of.sample_training(generator(s, "data"), 1, 24, length_mix).index(0) for s in range(MEMBERS)]
    return cfg, models, params, batches


def _manual(cfg, params, stacked):
    return loss_and_grads(
        {n: v.detach() for n, v in params.items()}, cfg, stacked.tokens, stacked.lengths, stacked.targets
    )


def _fast_autograd(cfg, params, stacked):
    out = table_forward(params, cfg, stacked.tokens, stacked.lengths)
    S, B, m = out.logits.shape
    losses = (
        F.cross_entropy(out.logits.reshape(S * B, m), stacked.targets.view(-1), reduction="none").view(S, B).mean(1)
    )
    return losses.detach(), dict(zip(params, torch.autograd.grad(losses.sum(), list(params.values()))))


def _gap(ours: torch.Tensor, theirs: torch.Tensor) -> float:
    return float((ours - theirs).abs().max() / theirs.abs().max().clamp(min=1e-30))


@pytest.mark.parametrize("encoding, heads, attention, reading, task", CASES)
def test_matches_autograd_through_the_reference(encoding, heads, attention, reading, task):
    cfg, models, params, batches = _setup(encoding, heads, attention, reading, task)
    loss, grads = _manual(cfg, params, Batch.stack(batches))
    assert list(grads) == list(params)
    for s, (model, batch) in enumerate(zip(models, batches)):
        ref_loss = F.cross_entropy(model(batch.tokens, batch.lengths).logits, batch.targets)
        ref_grads = torch.autograd.grad(ref_loss, list(model.parameters()))
        assert _gap(loss[s], ref_loss.detach()) <= LOSS_RTOL
        for (name, _), g_ref in zip(model.named_parameters(), ref_grads):
            assert grads[name][s].shape == g_ref.shape, name
            gap = _gap(grads[name][s], g_ref)
            assert gap <= REFERENCE_RTOL, f"{name}: relative gap {gap:.1e} to the reference"


@pytest.mark.parametrize("encoding, heads, attention, reading, task", CASES)
def test_matches_autograd_through_the_fast_path(encoding, heads, attention, reading, task):
    cfg, _, params, batches = _setup(encoding, heads, attention, reading, task)
    stacked = Batch.stack(batches)
    loss, grads = _manual(cfg, params, stacked)
    fast_loss, fast_grads = _fast_autograd(cfg, params, stacked)
    assert _gap(loss, fast_loss) <= LOSS_RTOL
    for name, g_fast in fast_grads.items():
        gap = _gap(grads[name], g_fast)
        assert gap <= FAST_RTOL, f"{name}: relative gap {gap:.1e} to the autograd fast path"
    out, _ = manual_forward({n: v.detach() for n, v in params.items()}, cfg, stacked.tokens, stacked.lengths)
    fast = table_forward(params, cfg, stacked.tokens, stacked.lengths)
    assert _gap(out.logits, fast.logits.detach()) <= FAST_RTOL
    assert _gap(out.attention, fast.attention.detach()) <= FAST_RTOL


@pytest.mark.parametrize("encoding, heads, attention, reading, task", CASES)
def test_derivation_is_exact_in_float64(encoding, heads, attention, reading, task):
    """In float64 the two backwards agree to rounding at 2^-53: the float32 gaps above are rounding only."""
    cfg, _, params, batches = _setup(encoding, heads, attention, reading, task, dtype=torch.float64)
    stacked = Batch.stack(batches)
    loss, grads = _manual(cfg, params, stacked)
    fast_loss, fast_grads = _fast_autograd(cfg, params, stacked)
    assert grads["embed.weight"].dtype == torch.float64
    assert _gap(loss, fast_loss) <= DERIVATION_RTOL
    for name, g_fast in fast_grads.items():
        assert _gap(grads[name], g_fast) <= DERIVATION_RTOL, name


def test_the_autograd_node_gives_the_same_gradients():
    """``manual_losses`` (one autograd node, for ``loss.sum().backward()``) gives ``loss_and_grads``'s numbers,
    and weights each member by the gradient flowing into its loss."""
    cfg, _, params, batches = _setup("ape", 2, "softmax", {}, {})
    stacked = Batch.stack(batches)
    loss, grads = _manual(cfg, params, stacked)
    weights = torch.tensor([1.0, 0.5, 2.0])
    node = manual_losses(params, cfg, stacked.tokens, stacked.lengths, stacked.targets)
    assert torch.equal(node.detach(), loss)
    weighted = torch.autograd.grad((node * weights).sum(), list(params.values()))
    for name, g in zip(params, weighted):
        torch.testing.assert_close(g, grads[name] * weights.view(-1, *[1] * (g.dim() - 1)), atol=1e-7, rtol=1e-6)


def test_evaluation_batch_broadcasts_over_members():
    """A batch with member dimension 1 (an evaluation batch) gives each member what its own copy would."""
    cfg, _, params, _ = _setup("ape", 2, "softmax", {}, {})
    tokens = torch.randint(0, 20, (1, 8, 30), generator=generator(0, "test"))  # (1, B, L)
    lengths = torch.full((1, 8), 30)
    detached = {n: v.detach() for n, v in params.items()}
    shared, _ = manual_forward(detached, cfg, tokens, lengths)
    own, _ = manual_forward(detached, cfg, tokens.expand(MEMBERS, -1, -1), lengths.expand(MEMBERS, -1))
    torch.testing.assert_close(shared.logits, own.logits, atol=1e-6, rtol=0)


def test_every_encoding_has_a_hand_derived_step():
    assert set(MANUAL_ENCODINGS) == set(ENCODINGS) == set(FAST_PATHS)


def test_unsupported_configuration_raises():
    with pytest.raises(ValueError, match="no hand-derived step"):
        check_supported(types.SimpleNamespace(encoding="xpos", attention="softmax"))
    with pytest.raises(ValueError, match="no hand-derived step"):
        check_supported(types.SimpleNamespace(encoding="rope", attention="sigmoid"))
    with pytest.raises(ValueError, match="unknown backward"):
        engine_train.train_members([], backward="symbolic")


def test_cross_entropy_matches_torch():
    logits = torch.randn(3, 5, 7, generator=generator(1, "test"), requires_grad=True)
    targets = torch.randint(0, 7, (3, 5), generator=generator(2, "test"))
    ours, log_probs = cross_entropy(logits.detach(), targets)
    theirs = F.cross_entropy(logits.transpose(1, 2), targets, reduction="none").mean(1)
    torch.testing.assert_close(ours, theirs.detach(), atol=1e-6, rtol=0)
    torch.testing.assert_close(
        cross_entropy_grad(log_probs, targets), torch.autograd.grad(theirs.sum(), logits)[0], atol=1e-7, rtol=0
    )


# 50 Adam steps (lr 1e-3) carry the float32 gradient gaps (about 1e-7 relative) into the weights. Adam divides
# each gradient entry by its own running scale, so an entry whose gradient stays near zero turns a 1e-7 gap
# into a visible share of a step, though far below the weights' own move over 50 steps (up to 5e-2, 50 steps
# of at most lr each). TRAIN_ATOL is several times the largest gap seen over the cases below (batch 128) and at
# the paper's batch of 256, and a tenth of one step's largest move (lr); one step more on the same path moves
# the weights by more than 10 TRAIN_ATOLs (checked below), so the tolerance tells one step apart.
TRAIN_STEPS, TRAIN_MEMBERS = 50, 4
TRAIN_ATOL = 1e-4
TRAIN_LOSS_ATOL = 1e-6  # the recorded window losses (order 3) and probes (order 1): several times the largest gap


def _train_spec(steps: int, **model) -> RunSpec:
    return RunSpec(TaskConfig(), ModelConfig(**model), TrainConfig(steps=steps, batch=128, record_every=25))


def _largest_gap(a, b) -> float:
    return max(float((x.state[n] - y.state[n]).abs().max()) for x, y in zip(a, b) for n in x.state)


@pytest.mark.slow
@pytest.mark.parametrize("model", [{"encoding": "rope"}, {"encoding": "ape", "heads": 2}], ids=["rope", "ape-H2"])
def test_training_ends_where_the_autograd_engine_ends(model):
    members = [Member(_train_spec(TRAIN_STEPS, **model), seed) for seed in range(TRAIN_MEMBERS)]
    autograd = engine_train.train_members(members, backward="autograd")
    manual = engine_train.train_members(members, backward="manual")
    assert _largest_gap(autograd, manual) <= TRAIN_ATOL
    for a, b in zip(autograd, manual):
        assert a.trajectory["step"] == b.trajectory["step"]
        for name in a.trajectory:
            torch.testing.assert_close(
                torch.tensor(b.trajectory[name], dtype=torch.float64),
                torch.tensor(a.trajectory[name], dtype=torch.float64),
                atol=TRAIN_LOSS_ATOL,
                rtol=1e-5,
                msg=name,
            )
    one_more = engine_train.train_members(
        [Member(_train_spec(TRAIN_STEPS + 1, **model), m.seed) for m in members], backward="autograd"
    )
    assert _largest_gap(autograd, one_more) > 10 * TRAIN_ATOL  # the tolerance tells one step apart


@pytest.mark.slow
def test_the_engine_trains_with_the_hand_derived_backward():
    """The suite's engine (``engine.train.train_members`` as called) is the hand-derived step, bit for bit, and
    the autograd path is another computation (it differs in the last bits)."""
    members = [Member(_train_spec(5, encoding="t5"), seed) for seed in range(2)]
    default = engine_train.train_members(members)
    manual = engine_train.train_members(members, backward="manual")
    autograd = engine_train.train_members(members, backward="autograd")
    for a, b in zip(default, manual):
        assert all(torch.equal(a.state[n], b.state[n]) for n in a.state)
        assert a.trajectory == b.trajectory
    assert 0 < _largest_gap(default, autograd) <= TRAIN_ATOL


def test_train_ensemble_takes_one_step_function():
    from lengthgen.engine.ensemble import train_ensemble

    with pytest.raises(ValueError, match="exactly one"):
        train_ensemble([], TrainConfig())
