"""ALiBi and T5 relative bias: the hooks against hand-computed values, offset equivariance, and the fast
table path against the plain reference forward (values and gradients)."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch.func import stack_module_state

from lengthgen.config import ModelConfig
from lengthgen.encodings import ALiBi, T5Bias, encoding_class
from lengthgen.encodings.alibi import alibi_slopes
from lengthgen.encodings.t5 import MAX_DISTANCE, NUM_BUCKETS, relative_bucket
from lengthgen.models import OneLayerHead, table_forward
from lengthgen.seeding import generator

VOCAB = 20
# float32: the two paths sum the same products in different orders, so they agree to rounding: ~1e-5 relative
# to the largest logit (softmax logits are O(1)-O(10); linear attention's grow with the summed ALiBi
# penalties, O(10-100)). Gradients are compared relative to their largest entry.
VALUE_TOLERANCE = 1e-5
GRADIENT_TOLERANCE = 1e-5


def t5_bucket_by_hand(distance: int) -> int:
    """T5's causal bucketing written out with scalars (num_buckets 32, max_distance 128)."""
    max_exact = NUM_BUCKETS // 2
    if distance < max_exact:
        return distance
    scaled = math.log(distance / max_exact) / math.log(MAX_DISTANCE / max_exact)
    large = max_exact + int(scaled * (NUM_BUCKETS - max_exact))
    return min(large, NUM_BUCKETS - 1)


def test_registered():
    assert encoding_class("alibi") is ALiBi
    assert encoding_class("t5") is T5Bias


def test_alibi_slopes_are_the_steepest_of_the_eight_head_set():
    assert alibi_slopes(1).tolist() == [0.5]
    assert alibi_slopes(2).tolist() == [0.5, 0.25]
    assert alibi_slopes(4).tolist() == [0.5, 0.25, 0.125, 0.0625]
    assert alibi_slopes(8).tolist() == [2.0**-h for h in range(1, 9)]  # exactly ALiBi's published set
    with pytest.raises(ValueError, match="heads=0"):
        alibi_slopes(0)


def test_t5_buckets_match_the_scalar_formula():
    distances = torch.arange(0, 400)
    expected = [t5_bucket_by_hand(int(n)) for n in distances]
    assert relative_bucket(distances).tolist() == expected
    assert expected[:16] == list(range(16))  # exact buckets for distances 0..15 (the training range)
    assert expected[16] == 16 and expected[47] == 24  # the evaluation's longest distance 47 -> bucket 24
    assert expected[127] == 31 and expected[399] == 31  # far distances share the last bucket
    assert relative_bucket(torch.tensor([-3])).tolist() == [0]  # future keys (never unmasked) -> bucket 0


def test_alibi_bias_by_hand():
    model = OneLayerHead(ModelConfig(encoding="alibi", heads=2), VOCAB, generator(0, "init"))
    q_pos = torch.tensor([7]).view(1, 1, 1)
    k_pos = torch.arange(8).view(1, 1, 8)
    bias = model.encoding.score_bias(q_pos, k_pos)  # (1, 2, 8)
    distance = torch.arange(7, -1, -1).float()
    torch.testing.assert_close(bias[0, 0], -0.5 * distance)
    torch.testing.assert_close(bias[0, 1], -0.25 * distance)


def test_t5_bias_by_hand():
    model = OneLayerHead(ModelConfig(encoding="t5", heads=2), VOCAB, generator(0, "init"))
    q_pos = torch.tensor([40]).view(1, 1, 1)
    k_pos = torch.arange(41).view(1, 1, 41)
    bias = model.encoding.score_bias(q_pos, k_pos)  # (1, 2, 41)
    table = model.encoding.bias.weight  # (buckets, 2)
    for t in range(41):
        for h in range(2):
            assert bias[0, h, t] == table[t5_bucket_by_hand(40 - t), h]


def test_t5_initialisation_is_seeded_and_scaled():
    a = OneLayerHead(ModelConfig(encoding="t5", heads=4), VOCAB, generator(3, "init"))
    b = OneLayerHead(ModelConfig(encoding="t5", heads=4), VOCAB, generator(3, "init"))
    c = OneLayerHead(ModelConfig(encoding="t5", heads=4), VOCAB, generator(4, "init"))
    assert torch.equal(a.encoding.bias.weight, b.encoding.bias.weight)
    assert not torch.equal(a.encoding.bias.weight, c.encoding.bias.weight)
    assert a.encoding.bias.weight.shape == (NUM_BUCKETS, 4)
    assert 0.5 * 64**-0.5 < float(a.encoding.bias.weight.detach().std()) < 2 * 64**-0.5  # N(0, d^-1/2), 128 draws


@pytest.mark.parametrize("encoding", ["alibi", "t5"])
@pytest.mark.parametrize("shift", [1, 5, 100])
def test_logits_depend_on_offsets_only(encoding, shift):
    model = OneLayerHead(ModelConfig(encoding=encoding, heads=2), VOCAB, generator(1, "init"))
    g = generator(1, "equivariance")
    tokens = torch.randint(0, VOCAB, (16, 24), generator=g)
    lengths = torch.randint(2, 25, (16,), generator=g)
    with torch.no_grad():
        base, shifted = model(tokens, lengths).scores, model(tokens, lengths, position_shift=shift).scores
    torch.testing.assert_close(shifted, base)  # -inf padding compares equal


def _randomise_t5(models, seed):
    """Give the T5 tables O(1) entries so the bias really matters in the comparison."""
    with torch.no_grad():
        for i, model in enumerate(models):
            if model.cfg.encoding == "t5":
                model.encoding.bias.weight.normal_(generator=generator(seed + i, "test-t5"))


@pytest.mark.parametrize("encoding", ["alibi", "t5"])
@pytest.mark.parametrize("heads", [1, 2, 4])
@pytest.mark.parametrize("attention, temperature", [("softmax", 1.0), ("softmax", 0.8), ("linear", 1.0)])
def test_fast_path_agrees_with_reference(encoding, heads, attention, temperature):
    cfg = ModelConfig(encoding=encoding, heads=heads, attention=attention, temperature=temperature)
    models = [OneLayerHead(cfg, VOCAB, generator(seed, "init")) for seed in range(3)]
    _randomise_t5(models, 10)
    g = generator(heads, "fast-path")
    S, B, P = 3, 24, 48
    tokens = torch.randint(0, VOCAB, (S, B, P), generator=g)
    lengths = torch.randint(2, P + 1, (S, B), generator=g)  # mixed lengths: padding on the left
    targets = torch.randint(0, VOCAB, (S, B), generator=g)

    params, _ = stack_module_state(models)  # name -> (S, ...) leaves requiring grad
    fast = table_forward(params, cfg, tokens, lengths)
    sum(F.cross_entropy(fast.logits[i], targets[i]) for i in range(S)).backward()

    for i, model in enumerate(models):
        reference = model(tokens[i], lengths[i])
        F.cross_entropy(reference.logits, targets[i]).backward()
        scale = max(1.0, float(reference.logits.detach().abs().max()))
        torch.testing.assert_close(fast.logits[i], reference.logits, atol=VALUE_TOLERANCE * scale, rtol=0)
        scale = max(1.0, float(reference.attention.detach().abs().max()))
        torch.testing.assert_close(
            fast.attention[i].transpose(0, 1), reference.attention, atol=VALUE_TOLERANCE * scale, rtol=0
        )
        for name, parameter in model.named_parameters():
            scale = float(parameter.grad.abs().max()) + 1e-12
            gap = float((params[name].grad[i] - parameter.grad).abs().max()) / scale
            assert gap < GRADIENT_TOLERANCE, f"{encoding} H={heads} member {i}: gradient of {name} differs by {gap:.2e}"
    if encoding == "t5":  # the bias table is trained (only the buckets that the batch reaches get gradient)
        grad = params["encoding.bias.weight"].grad  # (S, buckets, H)
        assert grad[:, : relative_bucket(torch.tensor(P - 1)) + 1].abs().sum() > 0
        assert grad[:, relative_bucket(torch.tensor(P - 1)) + 1 :].abs().sum() == 0


def test_fast_path_shared_batch_across_members():
    """Evaluation feeds one batch (leading dim 1) to every member; it must equal per-member batches."""
    cfg = ModelConfig(encoding="t5", heads=2)
    models = [OneLayerHead(cfg, VOCAB, generator(seed, "init")) for seed in range(2)]
    _randomise_t5(models, 20)
    params, _ = stack_module_state(models)
    g = generator(0, "shared")
    tokens, lengths = torch.randint(0, VOCAB, (1, 8, 30), generator=g), torch.full((1, 8), 30)
    with torch.no_grad():
        shared = table_forward(params, cfg, tokens, lengths).logits
        repeated = table_forward(params, cfg, tokens.expand(2, -1, -1), lengths.expand(2, -1)).logits
    torch.testing.assert_close(shared, repeated)
