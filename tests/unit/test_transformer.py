"""The two-layer transformer and the shift task: config validation, deterministic init, causality (the
prefix identity the evaluation relies on), hook points, RoPE's offset-only logits, the positions from
``lengthgen/encodings/`` bit for bit equal to an inline reference, the task's targets."""

from __future__ import annotations

import copy
import math

import pytest
import torch
import torch.nn.functional as F
from torch.func import functional_call, stack_module_state, vmap

from lengthgen.encodings.rope import rotate_pairs, rotation_tables
from lengthgen.models.two_layer.transformer import Transformer, TransformerConfig, capture
from lengthgen.seeding import generator
from lengthgen.tasks.shift import IGNORE, ShiftConfig, ShiftTask, shift_targets

# float32: a prefix forward and a longer forward sum the same products, but the matmuls may block them
# differently; logits are of order 1-10
PREFIX_ATOL = 1e-5


def tiny(encoding: str = "rope", **fields) -> TransformerConfig:
    return TransformerConfig(encoding=encoding, **{"d": 32, **fields})


def model(encoding: str = "rope", seed: int = 0, **fields) -> Transformer:
    return Transformer(tiny(encoding, **fields), generator(seed, "init")).requires_grad_(False)


@pytest.mark.parametrize(
    "fields, fragment",
    [
        ({"encoding": "alibi"}, "'alibi'"),
        ({"d": 30}, "d=30"),
        ({"heads": 0}, "heads=0"),
        ({"d": 12, "heads": 4}, "head width, got 3"),
        ({"rope_base": 1.0}, "rope_base=1.0"),
        ({"init_std": 0.0}, "init_std=0.0"),
        ({"vocab": 1}, "vocab=1"),
        ({"layers": 2.0}, "layers=2.0"),
    ],
)
def test_config_rejects_bad_values_by_name(fields, fragment):
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(".", r"\.")):
        TransformerConfig(**fields)


@pytest.mark.parametrize(
    "fields, fragment",
    [
        ({"offset": 0}, "K=0"),
        ({"offset": 8}, "K=8"),
        ({"min_len": 9, "max_len": 8}, "max_len=8"),
        ({"vocab": 1}, "vocab=1"),
    ],
)
def test_shift_config_rejects_bad_values_by_name(fields, fragment):
    with pytest.raises(ValueError, match=fragment):
        ShiftConfig(**fields)


def test_init_is_deterministic_and_leaves_the_global_rng_alone():
    state = torch.random.get_rng_state()
    a, b, c = model(seed=3), model(seed=3), model(seed=4)
    assert torch.equal(torch.random.get_rng_state(), state)
    for (name, pa), (_, pb), (_, pc) in zip(a.named_parameters(), b.named_parameters(), c.named_parameters()):
        assert torch.equal(pa, pb), name
        if not name.endswith("ln_1.weight") and not name.endswith("ln_2.weight") and name != "ln_f.weight":
            assert not torch.equal(pa, pc), name


def test_init_scales_follow_nanogpt():
    m = Transformer(TransformerConfig(encoding="ape", d=128), generator(0, "init"))
    assert m.embed.weight.std().item() == pytest.approx(0.02, rel=0.05)
    assert m.encoding.pos.weight.std().item() == pytest.approx(0.02, rel=0.05)
    assert m.blocks[0].attn.W_Q.weight.std().item() == pytest.approx(0.02, rel=0.05)
    assert m.blocks[1].mlp.W_2.weight.std().item() == pytest.approx(0.02 / 2, rel=0.05)  # 0.02 / sqrt(2 layers)
    assert torch.equal(m.ln_f.weight, torch.ones(128))


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_prefix_forward_equals_slice_of_longer_forward(encoding):
    m = model(encoding)
    tokens = torch.randint(0, 20, (8, 40), generator=generator(0, "test"))  # (B, W)
    full = m(tokens)  # (B, W, m)
    for length in (5, 16, 23):
        torch.testing.assert_close(m(tokens[:, :length]), full[:, :length], atol=PREFIX_ATOL, rtol=0)


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_future_tokens_do_not_change_earlier_outputs(encoding):
    m = model(encoding)
    tokens = torch.randint(0, 20, (4, 24), generator=generator(1, "test"))
    changed = tokens.clone()
    changed[:, 12:] = (changed[:, 12:] + 1) % 20
    assert torch.equal(m(tokens)[:, :12], m(changed)[:, :12])
    assert not torch.equal(m(tokens)[:, 12:], m(changed)[:, 12:])


def test_hook_points_expose_each_heads_causal_pattern():
    m = model("rope", heads=4)
    tokens = torch.randint(0, 20, (3, 10), generator=generator(2, "test"))
    names = [f"blocks.{layer}.attn.hook_{kind}" for layer in (0, 1) for kind in ("pattern", "scores", "k")]
    names += ["blocks.1.hook_resid_pre"]
    with capture(m, names) as seen:
        m(tokens)
    for layer in (0, 1):
        pattern = seen[f"blocks.{layer}.attn.hook_pattern"]
        assert pattern.shape == (3, 4, 10, 10)
        torch.testing.assert_close(pattern.sum(-1), torch.ones(3, 4, 10))
        assert torch.all(pattern.triu(1) == 0)
        assert torch.isinf(seen[f"blocks.{layer}.attn.hook_scores"].triu(1)[..., 0, 1]).all()
        assert seen[f"blocks.{layer}.attn.hook_k"].shape == (3, 4, 10, 8)
    assert seen["blocks.1.hook_resid_pre"].shape == (3, 10, 32)
    with capture(m, ["blocks.0.attn.hook_pattern"]):
        pass
    assert all(not module._forward_hooks for module in m.modules())  # capture removes its hooks
    with pytest.raises(ValueError, match="hook_nothing"), capture(m, ["blocks.0.attn.hook_nothing"]):
        pass


def test_rope_first_layer_logits_depend_on_offset_only():
    """Prefixing c tokens moves every position by c; the first layer's inputs are the token embeddings
    alone, so its logit between positions (t, j) must equal the shifted one at (t + c, j + c)."""
    m = model("rope")
    tokens = torch.randint(0, 20, (2, 12), generator=generator(3, "test"))
    for c in (1, 5, 30):
        prefix = torch.randint(0, 20, (2, c), generator=generator(c, "test"))
        with capture(m, ["blocks.0.attn.hook_scores"]) as seen:
            m(tokens)
            plain = seen["blocks.0.attn.hook_scores"]  # (B, H, 12, 12)
            m(torch.cat((prefix, tokens), 1))
            shifted = seen["blocks.0.attn.hook_scores"][..., c:, c:]
        finite = torch.isfinite(plain)
        torch.testing.assert_close(shifted[finite], plain[finite], atol=1e-5, rtol=1e-5)


def former_forward(cfg: TransformerConfig, p: dict[str, torch.Tensor], tokens: torch.Tensor) -> torch.Tensor:
    """The forward written inline, without ``lengthgen/encodings/``: the APE table added as a slice, the
    RoPE tables built in each attention layer; a pure function of the parameters (B, P) -> (B, P, m)."""
    B, P = tokens.shape
    H, dh = cfg.heads, cfg.head_dim
    x = F.embedding(tokens, p["embed.weight"])  # (B, P, d)
    if cfg.encoding == "ape":
        x = x + p["encoding.pos.weight"][:P]  # (B, P, d)
    for layer in range(cfg.layers):
        block = {
            name[len(f"blocks.{layer}.") : -len(".weight")]: value
            for name, value in p.items()
            if name.startswith(f"blocks.{layer}.")
        }  # "attn.W_Q" -> weight
        a = F.layer_norm(x, (cfg.d,), block["ln_1"])  # (B, P, d)
        q, k, v = (F.linear(a, block[f"attn.W_{n}"]).view(B, P, H, dh).transpose(1, 2) for n in "QKV")
        if cfg.encoding == "rope":
            cos, sin = rotation_tables(torch.arange(P), dh, cfg.rope_base)  # (P, dh/2) each
            q, k = rotate_pairs(q, cos, sin), rotate_pairs(k, cos, sin)  # (B, H, P, dh)
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh)  # (B, H, P, P)
        future = torch.ones(P, P, dtype=torch.bool).triu(1)  # (P, P)
        pattern = scores.masked_fill(future, float("-inf")).softmax(-1)  # (B, H, P, P)
        x = x + F.linear((pattern @ v).transpose(1, 2).reshape(B, P, H * dh), block["attn.W_O"])
        hidden = F.gelu(F.linear(F.layer_norm(x, (cfg.d,), block["ln_2"]), block["mlp.W_1"]))
        x = x + F.linear(hidden, block["mlp.W_2"])  # (B, P, d)
    return F.linear(F.layer_norm(x, (cfg.d,), p["ln_f.weight"]), p["unembed.weight"])  # (B, P, m)


def assert_bitwise(got: dict[str, torch.Tensor], expected: dict[str, torch.Tensor]) -> None:
    assert got.keys() == expected.keys()
    for name in expected:
        assert torch.equal(got[name], expected[name]), name


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_positions_from_the_encodings_equal_the_former_inline_code_bit_for_bit(encoding):
    """Logits and every parameter's gradient, of the plain forward and of the vmapped ensemble forward
    the training uses, equal those of the inline positions (``former_forward``) exactly (torch.equal)."""
    cfg = tiny(encoding, positions=40)
    tokens = torch.randint(0, 20, (6, 40), generator=generator(5, "test"))  # (B, P): the full APE table
    m = Transformer(cfg, generator(0, "init"))
    params = dict(m.named_parameters())
    expected = former_forward(cfg, params, tokens)
    expected_grads = dict(zip(params, torch.autograd.grad(expected.square().mean(), list(params.values()))))
    got = m(tokens)
    grads = dict(zip(params, torch.autograd.grad(got.square().mean(), list(params.values()))))
    assert torch.equal(got, expected)
    assert_bitwise(grads, expected_grads)

    stacked, _ = stack_module_state([Transformer(cfg, generator(seed, "init")) for seed in range(3)])
    batch = torch.randint(0, 20, (3, 4, 24), generator=generator(6, "test"))  # (S, B, P)
    skeleton = copy.deepcopy(m).to("meta")
    expected = vmap(lambda p, t: former_forward(cfg, p, t))(stacked, batch)  # (S, B, P, m)
    expected_grads = dict(zip(stacked, torch.autograd.grad(expected.square().mean(), list(stacked.values()))))
    got = vmap(lambda p, t: functional_call(skeleton, (p,), (t,)))(stacked, batch)
    grads = dict(zip(stacked, torch.autograd.grad(got.square().mean(), list(stacked.values()))))
    assert torch.equal(got, expected)
    assert_bitwise(grads, expected_grads)


def test_ape_rejects_lengths_beyond_its_table():
    m = model("ape", positions=16)
    with pytest.raises(ValueError, match="length 17 is beyond the APE table"):
        m(torch.zeros(1, 17, dtype=torch.long))


def test_shift_targets_hand_made():
    tokens = torch.tensor([[5, 6, 7, 8, 9, 1], [3, 4, 5, 6, 7, 8]])
    lengths = torch.tensor([6, 4])
    expected = torch.tensor([[IGNORE, IGNORE, 5, 6, 7, 8], [IGNORE, IGNORE, 3, 4, IGNORE, IGNORE]])
    assert torch.equal(shift_targets(tokens, lengths, 2), expected)
    assert torch.equal(shift_targets(tokens[None], lengths[None], 2), expected[None])  # leading dims


def test_shift_training_draws_are_seeded_and_mixed_length():
    task = ShiftTask(ShiftConfig(offset=3))
    tokens, lengths = task.draw_training(generator(0, "data"), 7, 500)
    again, _ = task.draw_training(generator(0, "data"), 7, 500)
    assert torch.equal(tokens, again)
    assert tokens.shape == (7, 500, 16) and lengths.shape == (7, 500)
    assert int(lengths.min()) == 8 and int(lengths.max()) == 16
    targets = task.targets(tokens, lengths)
    assert (targets[..., :3] == IGNORE).all()
    counted = (targets != IGNORE).sum(-1)  # (T, B) supervised positions per sequence
    assert torch.equal(counted, lengths - 3)
    with pytest.raises(ValueError, match="length 3 must exceed the offset K=3"):
        task.draw_eval(generator(0, "eval"), 4, 3)
