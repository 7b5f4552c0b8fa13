"""The fast per-row table path agrees with the plain reference forward, in values and gradients."""

from __future__ import annotations

import pytest
import torch
from torch.func import stack_module_state

from lengthgen.config import ModelConfig, RunSpec, TaskConfig
from lengthgen.engine.train import build_model
from lengthgen.models import OneLayerHead, table_forward
from lengthgen.seeding import generator
from lengthgen.tasks import Batch, make_task

# float32: the two paths sum the same products in a different order (tables vs per position)
VALUE_ATOL = 2e-5  # logits/attention of order 1-10
GRAD_RTOL = 1e-4  # relative to the largest gradient entry of each parameter
MEMBERS = 3

# the readings of the open choices (the multiverse's): model fields, and "length_mix" for the training draw
READINGS = {
    "gpt2": {"init": "gpt2"},
    "token-value": {"ape_value": "token"},
    "zero-unseen": {"ape_unseen": "zero"},
    "per-batch": {"length_mix": "per-batch"},
    "all": {"init": "gpt2", "ape_value": "token", "ape_unseen": "zero", "length_mix": "per-batch"},
}
APE_ONLY = ("ape_value", "ape_unseen")

CASES = [
    pytest.param(encoding, heads, attention, {}, id=f"{encoding}-H{heads}-{attention}")
    for encoding in ("rope", "ape", "nope")
    for heads in (1, 2)
    for attention in ("softmax", "linear")
] + [
    pytest.param(encoding, heads, attention, reading, id=f"{encoding}-H{heads}-{attention}-{name}")
    for name, reading in READINGS.items()
    for encoding in ("rope", "ape", "t5")
    for heads in (1, 2)
    for attention in ("softmax", "linear")
    if encoding == "ape" or not set(reading) & set(APE_ONLY)
    if heads == 2 or attention == "softmax"  # the readings at H=1 softmax and H=2 both normalisations
]


def _ensemble(cfg: ModelConfig, length_mix: str = "per-sequence"):
    """Members built as the engine builds them (``build_model``: ape_unseen applied), and their batches."""
    spec = RunSpec(TaskConfig(offset=3), cfg)
    models = [build_model(spec, s) for s in range(MEMBERS)]
    params, _ = stack_module_state(models)
    task = make_task(spec.task)
    batches = [task.sample_training(generator(s, "data"), 1, 24, length_mix).index(0) for s in range(MEMBERS)]
    return models, params, batches


def _config(encoding, heads, attention, reading, **fields):
    model_fields = {k: v for k, v in reading.items() if k != "length_mix"}
    cfg = ModelConfig(encoding=encoding, d=16, heads=heads, attention=attention, **model_fields, **fields)
    return cfg, reading.get("length_mix", "per-sequence")


@pytest.mark.parametrize("encoding, heads, attention, reading", CASES)
def test_values_agree(encoding, heads, attention, reading):
    cfg, length_mix = _config(encoding, heads, attention, reading, temperature=0.8)
    models, params, batches = _ensemble(cfg, length_mix)
    stacked = Batch.stack(batches)
    fast = table_forward(params, cfg, stacked.tokens, stacked.lengths)
    for s, (model, batch) in enumerate(zip(models, batches)):
        ref = model(batch.tokens, batch.lengths)
        torch.testing.assert_close(fast.logits[s], ref.logits, atol=VALUE_ATOL, rtol=0)
        torch.testing.assert_close(fast.attention[s], ref.attention.transpose(0, 1), atol=VALUE_ATOL, rtol=0)


@pytest.mark.parametrize("encoding, heads, attention, reading", CASES)
def test_gradients_agree(encoding, heads, attention, reading):
    cfg, length_mix = _config(encoding, heads, attention, reading)
    models, params, batches = _ensemble(cfg, length_mix)
    stacked = Batch.stack(batches)
    fast = table_forward(params, cfg, stacked.tokens, stacked.lengths)
    loss = torch.nn.functional.cross_entropy(fast.logits.transpose(1, 2), stacked.targets)
    fast_grads = torch.autograd.grad(loss * MEMBERS, list(params.values()))
    for s, (model, batch) in enumerate(zip(models, batches)):
        ref_loss = torch.nn.functional.cross_entropy(model(batch.tokens, batch.lengths).logits, batch.targets)
        ref_grads = torch.autograd.grad(ref_loss, list(model.parameters()))
        names = [name for name, _ in model.named_parameters()]
        assert names == list(params), "the fast path reads the reference module's parameter names"
        for name, g_fast, g_ref in zip(names, fast_grads, ref_grads):
            scale = g_ref.abs().max().clamp(min=1e-8)
            gap = (g_fast[s] - g_ref).abs().max() / scale
            assert gap <= GRAD_RTOL, f"{name}: relative gradient gap {gap:.2e}"


def test_eval_batch_broadcasts_over_members():
    """An evaluation batch (member dim 1) gives each member what its own batch would."""
    cfg = ModelConfig(encoding="ape", d=16)
    models, params, _ = _ensemble(cfg)
    tokens = torch.randint(0, 20, (8, 30), generator=generator(0, "test"))  # (B, L)
    lengths = torch.full((8,), 30)
    fast = table_forward(params, cfg, tokens[None], lengths[None])
    for s, model in enumerate(models):
        torch.testing.assert_close(fast.logits[s], model(tokens, lengths).logits, atol=VALUE_ATOL, rtol=0)


def test_ape_beyond_table_raises():
    cfg = ModelConfig(encoding="ape", d=16, positions=20)
    model = OneLayerHead(cfg, 20, generator(0, "init"))
    tokens = torch.zeros(2, 21, dtype=torch.long)
    with pytest.raises(ValueError, match="beyond the APE table"):
        model(tokens, torch.full((2,), 21))


@pytest.mark.parametrize(
    "weight_decay, decoupled, reference",
    [(0.0, False, torch.optim.Adam), (1e-2, False, torch.optim.Adam), (1e-2, True, torch.optim.AdamW)],
    ids=["adam", "adam-coupled-decay", "adamw-decoupled-decay"],
)
def test_fused_adam_matches_torch_adam_bit_for_bit(weight_decay, decoupled, reference):
    """The engine's FusedAdam is torch.optim.Adam(fused=True) without the Optimizer machinery; decoupled, it
    is torch.optim.AdamW(fused=True)."""
    from lengthgen.engine.ensemble import FusedAdam

    cfg = ModelConfig(encoding="ape", d=16)
    _, params, batches = _ensemble(cfg)
    stacked = Batch.stack(batches)
    ours = {n: v.detach().clone().requires_grad_() for n, v in params.items()}
    theirs = {n: v.detach().clone().requires_grad_() for n, v in params.items()}
    opt_ours = FusedAdam(list(ours.values()), lr=1e-2, weight_decay=weight_decay, decoupled=decoupled)
    opt_theirs = reference(theirs.values(), lr=1e-2, weight_decay=weight_decay, fused=True)
    for _ in range(5):
        for p, opt in ((ours, opt_ours), (theirs, opt_theirs)):
            logits = table_forward(p, cfg, stacked.tokens, stacked.lengths).logits
            loss = torch.nn.functional.cross_entropy(logits.transpose(1, 2), stacked.targets)
            opt.zero_grad()
            loss.backward()
            opt.step()
    for name in params:
        assert torch.equal(ours[name], theirs[name]), name


def test_every_encoding_has_a_reference_and_a_fast_path():
    """The two registries (``encodings.ENCODING_CLASSES``, ``fast.FAST_PATHS``) name exactly the configured
    encodings, each fast path under its own encoding's name."""
    from lengthgen.config import ENCODINGS
    from lengthgen.encodings import ENCODING_CLASSES
    from lengthgen.models.one_layer.fast import FAST_PATHS

    assert set(ENCODING_CLASSES) == set(FAST_PATHS) == set(ENCODINGS)
    assert all(FAST_PATHS[name].name == ENCODING_CLASSES[name].name == name for name in ENCODINGS)
