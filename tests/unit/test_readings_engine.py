"""The readings of the choices the paper leaves open (the multiverse's): ``TrainConfig.length_mix``,
``ModelConfig.init`` / ``ape_unseen`` / ``ape_value``, ``TransformerConfig.init`` / ``ape_unseen``.

The default of each is the suite's reading, under which every number is bit for bit the suite's; each
alternative changes what it says and nothing else. The fast path's agreement with the reference forward
under every reading is in ``tests/unit/test_fast_path.py`` (its ``READINGS``).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from lengthgen.config import ModelConfig, RunSpec, TaskConfig, TrainConfig
from lengthgen.engine.train import Member, build_model, train_members
from lengthgen.engine.train_two_layer import TwoLayerSpec, build_transformer, member_losses, train_transformers
from lengthgen.models import OneLayerHead, table_forward
from lengthgen.models.two_layer.transformer import Transformer, TransformerConfig
from lengthgen.seeding import generator
from lengthgen.tasks import make_task
from lengthgen.tasks.shift import ShiftConfig, ShiftTask

# Sums (float64) of every final parameter of 20-step models, seed 1, one CPU thread, computed by the engine
# without the readings, on a CPU whose torch kernels were AVX2; the default readings must give them within
# KERNEL_RTOL. One-layer: d=16, batch 32, offset 2; two-layer:
# d=16, 2 heads, batch 8.
HEAD_1E63F06 = {
    "rope": (-7.9265003966211225, 2.992890477180481),  # (parameter sum, last recorded loss)
    "ape": (-1.7443874621203577, 3.017311143875122),
    "t5": (-9.580479277938139, 3.0032360792160033),
    "two-layer-rope": (78.94952214834484, 2.9795809984207153),
    "two-layer-ape": (78.57372078196386, 2.9893876552581786),
}
# Those numbers come from another machine: torch's CPU kernels (AVX-512, AVX2, the plain "default" ones) round
# float32 sums differently, and 20 Adam steps carry that rounding into every parameter. KERNEL_RTOL covers,
# several times over, the largest move between kernel choices on one CPU and between the AVX2 machine's
# numbers above and an AVX-512 CPU's. A change of the engine's meaning (the learning rate 1e-3 -> 1.1e-3, one
# more step, the batch 32 -> 31) moves some sum by more than SEMANTIC_FACTOR KERNEL_RTOLs
# (test_kernel_tolerance_separates_rounding_from_a_changed_engine).
KERNEL_RTOL = 3e-5
SEMANTIC_FACTOR = 100  # a semantic change must move some sum by more than this many KERNEL_RTOLs
KERNELS = ("avx2", "default")  # the ATEN_CPU_CAPABILITY choices every x86-64 CPU of this kind offers
# the padded and the unpadded batch sum the same products over a different number of (zero) terms
PAD_ATOL = 1e-6
GPT2_STD = 0.02


@pytest.fixture
def one_cpu_thread():
    """The reference numbers were computed on the CPU (the engine's default device) with one thread (a matmul's
    blocking may depend on it)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _one_layer(encoding: str, steps: int = 20, train: dict | None = None, **model) -> RunSpec:
    return RunSpec(
        TaskConfig(offset=2),
        ModelConfig(encoding=encoding, d=16, **model),
        TrainConfig(**{"steps": steps, "batch": 32, "record_every": 10, **(train or {})}),
    )


def _two_layer(encoding: str, steps: int = 20, train: dict | None = None, **model) -> TwoLayerSpec:
    return TwoLayerSpec(
        model=TransformerConfig(encoding=encoding, d=16, heads=2, **model),
        train=TrainConfig(**{"steps": steps, "batch": 8, "record_every": 10, **(train or {})}),
    )


def _parameter_sum(state: dict[str, torch.Tensor]) -> float:
    return sum(float(value.double().sum()) for value in state.values())


# --- defaults: bit for bit the numbers before the readings existed ---------------------------------------


def _train(name: str, train: dict | None = None) -> tuple[float, float]:
    """(parameter sum, last recorded loss) of the 20-step model ``name`` of HEAD_1E63F06, seed 1."""
    if name.startswith("two-layer"):
        model = train_transformers([Member(_two_layer(name.removeprefix("two-layer-"), train=train), 1)])[0]
    else:
        model = train_members([Member(_one_layer(name, train=train), 1)])[0]
    return _parameter_sum(model.state), float(model.trajectory["loss"][-1])


def _relative(value: float, reference: float) -> float:
    return abs(value - reference) / abs(reference)


def _sums_under(kernels: str) -> dict[str, list[float]]:
    """The five (sum, loss) pairs in a fresh process whose torch dispatches to ``kernels``
    (ATEN_CPU_CAPABILITY is read once, when torch loads), one CPU thread."""
    code = (
        "import json, sys, torch; torch.set_num_threads(1); sys.path.insert(0, sys.argv[1]); "
        "import test_readings_engine as t; "
        "print(json.dumps({'capability': torch.backends.cpu.get_cpu_capability(), "
        "'sums': {n: t._train(n) for n in t.HEAD_1E63F06}}))"
    )
    env = {**os.environ, "ATEN_CPU_CAPABILITY": kernels}
    done = subprocess.run(
        [sys.executable, "-c", code, str(Path(__file__).parent)], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", list(HEAD_1E63F06))
def test_default_readings_reproduce_the_numbers_before_them(name, one_cpu_thread):
    """Within kernel rounding of the numbers recorded on another CPU (bit for bit on that CPU's kernels)."""
    total, loss = _train(name)
    reference_total, reference_loss = HEAD_1E63F06[name]
    assert _relative(total, reference_total) <= KERNEL_RTOL, (
        f"{name}: parameter sum {total!r} vs {reference_total!r} before the readings "
        f"({_relative(total, reference_total):.2e} relative > KERNEL_RTOL {KERNEL_RTOL:g})"
    )
    assert _relative(loss, reference_loss) <= KERNEL_RTOL, (
        f"{name}: last loss {loss!r} vs {reference_loss!r} ({_relative(loss, reference_loss):.2e} relative)"
    )


@pytest.mark.slow
def test_kernel_tolerance_separates_rounding_from_a_changed_engine(one_cpu_thread):
    """KERNEL_RTOL is the right size: the sums under each kernel choice this machine offers (separate processes,
    ATEN_CPU_CAPABILITY) agree within it, while a changed protocol number moves them far beyond it."""
    here = {name: _train(name) for name in HEAD_1E63F06}
    spread = {}
    for kernels in KERNELS:
        other = _sums_under(kernels)
        for name, (total, loss) in other["sums"].items():
            moved = max(_relative(total, here[name][0]), _relative(loss, here[name][1]))
            spread[f"{kernels}/{name}"] = moved
            assert moved <= KERNEL_RTOL, (
                f"{name} under ATEN_CPU_CAPABILITY={kernels} ({other['capability']}): sum {total!r} vs "
                f"{here[name][0]!r} here ({moved:.2e} relative > KERNEL_RTOL {KERNEL_RTOL:g})"
            )
    for change in ({"lr": 1.1e-3}, {"steps": 21}, {"batch": 31}):
        moved = {name: _relative(_train(name, change)[0], here[name][0]) for name in HEAD_1E63F06}
        assert max(moved.values()) > SEMANTIC_FACTOR * KERNEL_RTOL, (
            f"changing {change} moved the sums by only {moved} (kernels moved them by up to {max(spread.values()):.1e})"
        )


def test_default_training_draw_is_the_former_draw():
    """per-sequence: lengths (T, B) then tokens (T, B, Lmax) from the one generator, in that order."""
    task = make_task(TaskConfig())
    tokens, lengths = task.draw_training(generator(4, "data"), 3, 5)
    g = generator(4, "data")
    assert torch.equal(lengths, torch.randint(8, 17, (3, 5), generator=g))
    assert torch.equal(tokens, torch.randint(0, 20, (3, 5, 16), generator=g))


# --- invalid values ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "build, value",
    [
        (lambda: TrainConfig(length_mix="per-token"), "per-token"),
        (lambda: ModelConfig(init="xavier"), "xavier"),
        (lambda: ModelConfig(encoding="ape", ape_unseen="mean"), "mean"),
        (lambda: ModelConfig(encoding="ape", ape_value="query"), "query"),
        (lambda: ModelConfig(encoding="rope", ape_unseen="zero"), "zero"),  # APE readings on APE specs only
        (lambda: ModelConfig(encoding="t5", ape_value="token"), "token"),
        (lambda: TransformerConfig(init="kaiming"), "kaiming"),
        (lambda: TransformerConfig(encoding="rope", ape_unseen="zero"), "zero"),
    ],
)
def test_invalid_reading_raises_naming_it(build, value):
    with pytest.raises(ValueError, match=repr(value)):
        build()


def test_draw_with_unknown_length_mix_raises():
    with pytest.raises(ValueError, match="'per-token'"):
        ShiftTask(ShiftConfig()).draw_training(generator(0, "data"), 1, 2, "per-token")


def test_cache_keys_hold_the_readings():
    from lengthgen.store import one_layer, two_layer

    base = _one_layer("ape")
    keys = {
        one_layer.train_key(Member(spec, 0))
        for spec in (
            base,
            base.replace(model={"init": "gpt2"}),
            base.replace(model={"ape_unseen": "zero"}),
            base.replace(model={"ape_value": "token"}),
            base.replace(train={"length_mix": "per-batch"}),
        )
    }
    assert len(keys) == 5
    two = _two_layer("ape")
    assert (
        len(
            {
                two_layer.train_key(Member(spec, 0))
                for spec in (two, two.replace(model={"init": "torch"}), two.replace(model={"ape_unseen": "zero"}))
            }
        )
        == 3
    )


# --- initialisation ---------------------------------------------------------------------------------------


def _assert_std(values: torch.Tensor, std: float, name: str) -> None:
    """The sample std of n draws from N(0, std^2) is within 5 of its standard errors (std / sqrt(2n))."""
    n = values.numel()
    assert abs(float(values.std()) / std - 1) <= 5 / math.sqrt(2 * n), f"{name}: std {float(values.std()):.4f}"


@pytest.mark.parametrize("encoding", ["ape", "t5", "rope"])
def test_gpt2_init_draws_every_weight_from_n_0_002(encoding):
    model = OneLayerHead(ModelConfig(encoding=encoding, d=64, heads=4, init="gpt2"), 20, generator(0, "init"))
    for name, param in model.named_parameters():
        values = param.detach()
        _assert_std(values, GPT2_STD, name)
        assert abs(float(values.mean())) <= 5 * GPT2_STD / math.sqrt(values.numel()), name


def test_torch_init_is_pytorch_layer_defaults():
    model = OneLayerHead(ModelConfig(encoding="ape", d=64), 20, generator(0, "init"))
    _assert_std(model.embed.weight.detach(), 1.0, "embed")
    _assert_std(model.encoding.pos.weight.detach(), 1.0, "APE table")
    bound = 1 / math.sqrt(64)
    for name in ("W_Q", "W_K", "W_V", "unembed"):
        weight = getattr(model, name).weight.detach()
        assert float(weight.abs().max()) <= bound, name
        _assert_std(weight, bound / math.sqrt(3), name)  # U(-b, b) has std b / sqrt(3)


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_two_layer_torch_init_is_pytorch_layer_defaults(encoding):
    cfg = TransformerConfig(encoding=encoding, init="torch")
    model = Transformer(cfg, generator(0, "init"))
    for name, param in model.named_parameters():
        values = param.detach()
        if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
            assert torch.equal(values, torch.ones_like(values)), name
        elif name in ("embed.weight", "encoding.pos.weight"):
            _assert_std(values, 1.0, name)
        else:
            bound = 1 / math.sqrt(values.shape[1])
            assert float(values.abs().max()) <= bound, name
            _assert_std(values, bound / math.sqrt(3), name)


# --- the never-trained APE rows --------------------------------------------------------------------------


def test_zero_unseen_rows_draw_the_same_numbers_then_zero():
    init, zero = (build_model(_one_layer("ape", ape_unseen=reading), 3) for reading in ("init", "zero"))
    table_init, table_zero = init.encoding.pos.weight, zero.encoding.pos.weight  # (48, d)
    assert torch.equal(table_zero[:16], table_init[:16]) and not table_zero[16:].any()
    for name in ("embed.weight", "W_Q.weight", "unembed.weight"):
        assert torch.equal(init.state_dict()[name], zero.state_dict()[name]), name


def test_zero_unseen_rows_stay_zero_through_training_with_weight_decay():
    spec = _one_layer("ape", steps=30, train={"weight_decay": 1e-2}, ape_unseen="zero")
    model = train_members([Member(spec, 0)])[0]
    table = model.state["encoding.pos.weight"]  # (48, d)
    assert not table[16:].any() and table[:16].abs().min() > 0
    assert not model.initial_module().encoding.pos.weight[16:].any()  # the probes' baseline is built alike
    default = train_members([Member(spec.replace(model={"ape_unseen": "init"}), 0)])[0]
    assert table[16:].ne(default.state["encoding.pos.weight"][16:]).all()


def test_two_layer_zero_unseen_rows_stay_zero_through_training():
    spec = _two_layer("ape", steps=20, ape_unseen="zero")
    model = train_transformers([Member(spec, 0)])[0]
    table = model.state["encoding.pos.weight"]  # (48, d)
    assert not table[spec.task.max_len :].any() and table[: spec.task.max_len].abs().min() > 0
    assert not model.initial_module().encoding.pos.weight[spec.task.max_len :].any()
    initial = build_transformer(spec.replace(model={"ape_unseen": "init"}), 0).encoding.pos.weight
    assert torch.equal(model.initial_module().encoding.pos.weight[:16], initial[:16])


# --- APE's value path -------------------------------------------------------------------------------------


def _values(model: OneLayerHead, tokens: torch.Tensor, shift: int) -> torch.Tensor:
    seen = {}
    handle = model.hook_v.register_forward_hook(lambda _m, _i, out: seen.setdefault("v", out))
    model(tokens, torch.full((tokens.shape[0],), tokens.shape[1]), position_shift=shift)
    handle.remove()
    return seen["v"]  # (B, H, P, dh)


def test_token_values_ignore_the_position():
    """The same tokens at other positions: equal values under "token", different under "embedded"."""
    tokens = torch.randint(0, 20, (4, 12), generator=generator(0, "test"))  # (B, L)
    for reading, same in (("token", True), ("embedded", False)):
        model = OneLayerHead(ModelConfig(encoding="ape", d=16, ape_value=reading), 20, generator(0, "init"))
        assert torch.equal(_values(model, tokens, 0), _values(model, tokens, 20)) == same, reading


def test_fast_token_values_keep_the_position_in_queries_and_keys_only():
    """Fast path: "token" changes the readout (no value on the position rows) but not the attention."""
    cfg = ModelConfig(encoding="ape", d=16, ape_value="token")
    model = build_model(RunSpec(TaskConfig(), cfg), 0)
    params = {name: p.detach()[None] for name, p in model.named_parameters()}
    batch = make_task(TaskConfig()).sample_training(generator(0, "data"), 1, 16).index(0)
    token = table_forward(params, cfg, batch.tokens[None], batch.lengths[None])
    embedded = table_forward(params, ModelConfig(encoding="ape", d=16), batch.tokens[None], batch.lengths[None])
    assert torch.equal(token.attention, embedded.attention)  # queries and keys still see the position
    assert not torch.allclose(token.logits, embedded.logits)


# --- mixed lengths ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("task", [make_task(TaskConfig()), ShiftTask(ShiftConfig())], ids=["offset", "shift"])
def test_per_batch_draws_one_length_per_step(task):
    tokens, lengths = task.draw_training(generator(0, "data"), 400, 8, "per-batch")  # (T, B, P), (T, B)
    assert tokens.shape == (400, 8, 16)
    assert torch.equal(lengths, lengths[:, :1].expand(400, 8))
    assert set(lengths[:, 0].tolist()) == set(range(8, 17))  # every length of [Lmin, Lmax] is drawn


def test_per_batch_training_changes_the_model_and_nothing_else():
    spec = _one_layer("rope")
    a, b = (train_members([Member(s, 0)])[0] for s in (spec, spec.replace(train={"length_mix": "per-batch"})))
    assert a.state.keys() == b.state.keys()
    assert not torch.equal(a.state["W_Q.weight"], b.state["W_Q.weight"])
    assert torch.equal(a.initial_module().W_Q.weight, b.initial_module().W_Q.weight)  # same initialisation


def _loss_and_grads(model, tokens, lengths, targets):
    loss = F.cross_entropy(model(tokens, lengths).logits, targets)
    return loss, torch.autograd.grad(loss, list(model.parameters()))


@pytest.mark.parametrize("encoding", ["rope", "ape", "t5", "alibi", "nope"])
def test_one_length_batch_padded_equals_unpadded_one_layer(encoding):
    """The "per-batch" draws keep Lmax-wide batches: a batch of one length L, right-aligned, padded to Lmax
    with arbitrary tokens and masked, has the unpadded (B, L) batch's loss and gradients (reference and
    fast forward)."""
    cfg = ModelConfig(encoding=encoding, d=16, heads=2)
    model = OneLayerHead(cfg, 20, generator(0, "init"))
    task = make_task(TaskConfig())
    tokens, lengths = task.draw_training(generator(1, "data"), 1, 16, "per-batch")
    padded = task.label(tokens[0], lengths[0])  # (B, 16), one length L
    L = int(lengths[0, 0])
    unpadded = task.label(padded.tokens[:, 16 - L :], lengths[0])  # (B, L)
    assert torch.equal(padded.targets, unpadded.targets)
    loss_p, grads_p = _loss_and_grads(model, padded.tokens, padded.lengths, padded.targets)
    loss_u, grads_u = _loss_and_grads(model, unpadded.tokens, unpadded.lengths, unpadded.targets)
    torch.testing.assert_close(loss_p, loss_u, atol=PAD_ATOL, rtol=0)
    for name, g_p, g_u in zip(dict(model.named_parameters()), grads_p, grads_u):
        torch.testing.assert_close(g_p, g_u, atol=PAD_ATOL, rtol=0, msg=lambda m: f"{name}: {m}")
    params = {name: p.detach()[None] for name, p in model.named_parameters()}
    fast_p = table_forward(params, cfg, padded.tokens[None], padded.lengths[None]).logits
    fast_u = table_forward(params, cfg, unpadded.tokens[None], unpadded.lengths[None]).logits
    torch.testing.assert_close(fast_p, fast_u, atol=PAD_ATOL, rtol=0)


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_one_length_batch_padded_equals_unpadded_two_layer(encoding):
    """Left-aligned under causal attention: the padded batch's loss and gradients are the unpadded batch's."""
    model = Transformer(TransformerConfig(encoding=encoding, d=16, heads=2), generator(0, "init"))
    task = ShiftTask(ShiftConfig())
    tokens, lengths = task.draw_training(generator(2, "shift-data"), 1, 8, "per-batch")  # (1, B, 16), (1, B)
    L = int(lengths[0, 0])
    results = []
    for width in (16, L):
        toks = tokens[:, :, :width]  # (1, B, width)
        loss = member_losses(model(toks[0])[None], task.targets(toks, lengths))  # (1,)
        results.append((loss, torch.autograd.grad(loss.sum(), list(model.parameters()))))
    (loss_p, grads_p), (loss_u, grads_u) = results
    torch.testing.assert_close(loss_p, loss_u, atol=PAD_ATOL, rtol=0)
    for name, g_p, g_u in zip(dict(model.named_parameters()), grads_p, grads_u):
        torch.testing.assert_close(g_p, g_u, atol=PAD_ATOL, rtol=0, msg=lambda m: f"{name}: {m}")


def test_every_alternative_reading_changes_the_trained_model():
    base = _one_layer("ape")
    default = train_members([Member(base, 0)])[0].state
    for change in (
        {"model": {"init": "gpt2"}},
        {"model": {"ape_value": "token"}},
        {"train": {"length_mix": "per-batch"}},
    ):
        state = train_members([Member(base.replace(**change), 0)])[0].state
        assert not torch.equal(state["W_V.weight"], default["W_V.weight"]), change
    two = _two_layer("rope")
    two_default = train_transformers([Member(two, 0)])[0].state
    for change in ({"model": {"init": "torch"}}, {"train": {"length_mix": "per-batch"}}):
        state = train_transformers([Member(two.replace(**change), 0)])[0].state
        assert not torch.equal(state["unembed.weight"], two_default["unembed.weight"]), change
