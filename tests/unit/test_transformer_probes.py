"""The transformer's probes on hand-made patterns and vectors with known answers, the carrier probe
against the paper's vocabulary definition in layer 1, and the evaluation's one-forward design."""

from __future__ import annotations

import math

import pytest
import torch

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig
from lengthgen.probes.geometry import carrier_fraction
from lengthgen.probes.retrieval import (
    last_query_profile,
    offset_attention,
    retrieving_head,
    token_conditioned_means,
)
from lengthgen.seeding import generator
from lengthgen.tasks.shift import shift_targets
from lengthgen.engine.evaluate_two_layer import (
    TransformerEval,
    eval_tokens,
    evaluate_transformer,
    vocabulary_carriers,
)
from lengthgen.store.two_layer import evaluated_transformers
from lengthgen.engine.train_two_layer import Member, TwoLayerSpec, train_transformers

CARRIER_ATOL = 1e-5  # float32 keys: hook values vs the same projection computed by hand


def shifted_pattern(P: int, K: int) -> torch.Tensor:
    """Every query t >= K attends only to t - K; earlier queries attend to themselves."""
    pattern = torch.zeros(P, P)
    for t in range(P):
        pattern[t, t - K if t >= K else t] = 1.0
    return pattern


def uniform_causal(P: int) -> torch.Tensor:
    return torch.ones(P, P).tril() / torch.arange(1, P + 1)[:, None]


def test_offset_attention_hand_made():
    assert offset_attention(shifted_pattern(16, 2), 2, range(2, 16)).item() == 1.0
    assert offset_attention(shifted_pattern(16, 2), 3, range(3, 16)).item() == 0.0
    expected = sum(1 / (t + 1) for t in range(2, 16)) / 14
    assert offset_attention(uniform_causal(16), 2, range(2, 16)).item() == pytest.approx(expected)
    stacked = torch.stack((uniform_causal(16), shifted_pattern(16, 2)))  # (2, P, P): leading dims kept
    assert offset_attention(stacked, 2, range(2, 16)).tolist() == pytest.approx([expected, 1.0])
    with pytest.raises(ValueError, match="query rows"):
        offset_attention(shifted_pattern(16, 2), 2, range(1, 16))


def test_retrieving_head_is_the_argmax_over_layers_and_heads():
    scores = torch.tensor([[0.1, 0.2, 0.3, 0.1], [0.05, 0.9, 0.2, 0.0]])
    assert retrieving_head(scores) == (1, 1)
    assert retrieving_head(torch.tensor([[0.5, 0.5], [0.5, 0.1]])) == (0, 0)  # ties: the earliest


def test_last_query_profile_is_the_prefix_last_row():
    pattern = shifted_pattern(48, 3)
    for length in (12, 20, 48):
        profile = last_query_profile(pattern, length)
        assert profile.shape == (length,)
        assert int(profile.argmax()) - (length - 1) == -3
    with pytest.raises(ValueError, match="length 49"):
        last_query_profile(pattern, 49)


def test_token_conditioned_means_hand_made():
    tokens = torch.tensor([[0, 1, 0], [2, 1, 2]])  # (N, P)
    vectors = torch.tensor([[[1.0, 0], [0, 1], [3, 0]], [[0, 2], [0, 3], [0, 4]]])  # (N, P, 2)
    means = token_conditioned_means(vectors, tokens, 3)
    assert means.tolist() == [[2.0, 0.0], [0.0, 2.0], [0.0, 3.0]]
    with pytest.raises(ValueError, match="token 3 never occurs"):
        token_conditioned_means(vectors, tokens, 4)


def test_carrier_of_a_pure_carrier_and_of_centred_vectors():
    carrier = torch.tensor([1.0, -2.0, 0.5])
    assert carrier_fraction(carrier.expand(20, 3)).item() == pytest.approx(1.0)
    centred = torch.randn(20, 3, generator=generator(0, "test"))
    centred = centred - centred.mean(0)
    assert carrier_fraction(centred).item() == pytest.approx(0.0, abs=1e-6)


def test_layer_one_rope_carrier_is_the_papers_vocabulary_definition():
    """In layer 1 of the RoPE model every key is W_K^h LN_1(E[b]) for its token b: the token-conditioned
    probe must equal the carrier fraction of that vocabulary table computed by hand."""
    spec = TwoLayerSpec().replace(model={"d": 32}, train={"steps": 5, "batch": 8})
    model = train_transformers([Member(spec, 0)])[0].module()
    tokens = torch.randint(0, 20, (64, 16), generator=generator(0, "test"))
    key, query = vocabulary_carriers(model, tokens)
    assert key.shape == query.shape == (2, 4)
    normed = model.blocks[0].ln_1(model.embed.weight)  # (m, d)
    for head in range(4):
        rows = slice(8 * head, 8 * head + 8)
        by_hand_k = normed @ model.blocks[0].attn.W_K.weight[rows].T  # (m, dh)
        by_hand_q = normed @ model.blocks[0].attn.W_Q.weight[rows].T
        assert key[0, head].item() == pytest.approx(carrier_fraction(by_hand_k).item(), abs=CARRIER_ATOL)
        assert query[0, head].item() == pytest.approx(carrier_fraction(by_hand_q).item(), abs=CARRIER_ATOL)


def _fake_eval() -> TransformerEval:
    W = 20
    accuracy = tuple(None if t < 2 else (1.0 if t < 16 else 0.25) for t in range(W))
    profile = {
        L: tuple(tuple(tuple(shifted_pattern(L, 2)[L - 1].tolist()) for _ in range(2)) for _ in range(2))
        for L in (12, 20)
    }
    grid = ((0.1, 0.2), (0.9, 0.3))
    return TransformerEval(2, 16, (12, 20), accuracy, grid, profile, grid, grid, grid, grid)


def test_eval_record_accessors_and_round_trip():
    result = _fake_eval()
    assert result.accuracy(12) == 1.0
    assert result.accuracy(20) == pytest.approx((14 * 1.0 + 4 * 0.25) / 18)
    assert result.beyond_range_accuracy() == 0.25
    assert result.retrieving_head() == (1, 0)
    assert result.selected_offset(20, 1, 0) == -2 and result.peak_position(20, 1, 0) == 17
    assert TransformerEval.from_dict(result.to_dict()) == result
    with pytest.raises(ValueError, match="no position"):
        result.accuracy(2)


def test_evaluation_matches_separate_length_L_forwards(tmp_path):
    """One forward at the longest length must give each length's numbers as a length-L forward does."""
    spec = TwoLayerSpec().replace(model={"d": 32}, train={"steps": 5, "batch": 4})
    trained = train_transformers([Member(spec, 1)])[0]
    evaluation = EvalConfig(lengths=(12, 20, 24), sequences=48)
    result = evaluate_transformer(trained, evaluation)
    tokens = eval_tokens(spec.task, evaluation)  # (N, 24)
    module = trained.module()
    for length in evaluation.lengths:
        prefix = tokens[:, :length]
        targets = shift_targets(prefix, torch.full((48,), length), 2)
        correct = (module(prefix).argmax(-1) == targets)[:, 2:].double().mean().item()
        assert result.accuracy(length) == pytest.approx(correct, abs=1e-12)
    assert result.lengths == (12, 20, 24) and len(result.position_accuracy) == 24
    assert all(0 <= v <= 1 for row in result.target_attention for v in row)
    for length in evaluation.lengths:
        for layer in result.profiles[length]:
            for row in layer:
                assert len(row) == length and math.isclose(sum(row), 1.0, rel_tol=1e-6)
    cache = Cache(tmp_path)
    assert evaluated_transformers([trained], evaluation, cache) == [result]
    assert evaluated_transformers([trained], evaluation, cache) == [result]
    assert cache.stats["two-layer-eval:computed"] == 1 and cache.stats["two-layer-eval:hit"] == 1
