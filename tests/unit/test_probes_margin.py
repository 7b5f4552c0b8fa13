"""Margin probes (probes/margin.py): the logit table against the reference forward, hand-made tables,
and the bound's validity for arbitrary weights."""

from __future__ import annotations

import math

import pytest
import torch

from lengthgen.config import ModelConfig
from lengthgen.models import OneLayerHead
from lengthgen.probes.carrier import offsets_up_to, vocab_vectors
from lengthgen.probes.margin import (
    head_logit_profile,
    head_logit_table,
    head_margins,
    length_margins,
    logit_table,
    margin_bound,
    mean_logit_profile,
    typical_margin,
    worst_case_margin,
)
from lengthgen.seeding import generator

LOGIT_ATOL = 1e-4  # float32 forward against the float64 table (logits of order 1)
BOUND_SLACK = 1e-6  # float32 softmax weights against the float64 bound
MARGIN_RTOL = 1e-12  # length_margins reduces every length at once, head_margins one span at a time: the CPU's
# kernels may sum in another order (ATEN_CPU_CAPABILITY=default moved the typical margin by 8e-16 relative)


def _model(seed: int, d: int = 16, heads: int = 1, temperature: float = 1.0) -> OneLayerHead:
    return OneLayerHead(ModelConfig(d=d, heads=heads, temperature=temperature), 20, generator(seed, "init"))


@pytest.mark.parametrize("heads,temperature", [(1, 1.0), (2, 0.5)])
def test_logit_table_matches_the_reference_forward(heads, temperature):
    model = _model(0, d=16, heads=heads, temperature=temperature)
    length = 24
    g = generator(1, "test")
    tokens = torch.randint(0, 20, (64, length), generator=g)  # (B, L)
    with torch.no_grad():
        scores = model(tokens, torch.full((64,), length)).scores  # (B, H, L)
    q_tab, k_tab = vocab_vectors(model.state_dict(), model.cfg)  # (H, m, dh)
    offsets = offsets_up_to(length)
    table = logit_table(q_tab, k_tab, offsets, 1e4, 1 / (math.sqrt(model.cfg.head_dim) * temperature))
    query = tokens[:, -1]  # (B,)
    expected = table[:, query[:, None], tokens, torch.arange(length)]  # (H, B, L)
    torch.testing.assert_close(scores.double(), expected.transpose(0, 1), atol=LOGIT_ATOL, rtol=0)


def test_worst_and_typical_margin_of_a_hand_made_table():
    # m = 2 tokens, offsets -2, -1, 0; target K = 1 (column 1)
    offsets = torch.tensor([-2, -1, 0])
    table = torch.zeros(2, 2, 3, dtype=torch.float64)
    table[:, :, 1] = torch.tensor([[3.0, 2.5], [4.0, 5.0]])  # target logits T[a, y, -1]
    table[:, :, 0] = torch.tensor([[1.0, 0.5], [1.0, 2.0]])  # offset -2
    table[:, :, 2] = torch.tensor([[0.0, 9.0], [9.0, 1.5]])  # offset 0: only b = a can occur (9s are impossible)
    # a = 0: weakest target 2.5, strongest rival max(1.0, 0.5, T[0,0,0]=0.0) = 1.0 -> 1.5
    # a = 1: weakest target 4.0, strongest rival max(1.0, 2.0, T[1,1,0]=1.5) = 2.0 -> 2.0
    assert float(worst_case_margin(table, offsets, 1)) == pytest.approx(1.5)
    # mean profile: offset -2 -> 1.125, -1 -> 3.625, 0 -> mean(0.0, 1.5) = 0.75
    torch.testing.assert_close(
        mean_logit_profile(table, offsets), torch.tensor([1.125, 3.625, 0.75], dtype=torch.float64)
    )
    assert float(typical_margin(table, offsets, 1)) == pytest.approx(3.625 - 1.125)


def test_margin_functions_keep_leading_dimensions_and_reject_bad_offsets():
    table = torch.randn(3, 2, 5, 5, 4, generator=generator(0, "test"), dtype=torch.float64)  # (S, H, m, m, D)
    offsets = offsets_up_to(4)
    assert worst_case_margin(table, offsets, 2).shape == (3, 2)
    assert typical_margin(table, offsets, 2).shape == (3, 2)
    with pytest.raises(ValueError, match="K=4"):
        worst_case_margin(table, offsets, 4)
    with pytest.raises(ValueError, match="K=0"):
        worst_case_margin(table, offsets, 0)


def test_margin_bound_formula():
    assert margin_bound(0.0, 1) == 1.0
    assert margin_bound(0.0, 10) == pytest.approx(0.1)
    assert margin_bound(math.log(9), 10) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="length 0"):
        margin_bound(1.0, 0)


@pytest.mark.parametrize("seed", range(4))
def test_bound_holds_for_every_sequence_of_arbitrary_weights(seed):
    # the worst-case margin bounds the target's softmax weight in EVERY sequence, for any weights;
    # scaled-up random weights make the margin (and so the bound) non-trivial in either sign
    model = _model(seed, d=16)
    with torch.no_grad():
        model.W_Q.weight.mul_(6.0)
    offset, span = 2, 24
    margins = head_margins(model.state_dict(), model.cfg, offset, span)
    g = generator(seed, "test")
    for length in (4, 12, 24):
        tokens = torch.randint(0, 20, (512, length), generator=g)
        with torch.no_grad():
            attention = model(tokens, torch.full((512,), length)).attention[:, 0]  # (B, L)
        on_target = attention[:, length - 1 - offset]  # (B,)
        assert float(on_target.min()) >= margins.bound(length) - BOUND_SLACK


@pytest.mark.parametrize("seed", range(2))
def test_length_margins_are_the_exact_worst_case_at_each_length(seed):
    # mu_L over the offsets that exist at L: the span-L margin, never below the whole-span one, and still a
    # lower bound on the target's weight in every length-L sequence
    model = _model(seed, d=16)
    with torch.no_grad():
        model.W_Q.weight.mul_(6.0)
    offset, lengths = 2, (4, 12, 24)
    per_length = length_margins(model.state_dict(), model.cfg, offset, lengths)
    assert [m.span for m in per_length] == list(lengths)
    for margins, length in zip(per_length, lengths):
        alone = head_margins(model.state_dict(), model.cfg, offset, length)
        assert margins.span == alone.span, (margins, alone)
        assert math.isclose(margins.worst, alone.worst, rel_tol=MARGIN_RTOL), (margins, alone)
        assert math.isclose(margins.typical, alone.typical, rel_tol=MARGIN_RTOL), (margins, alone)
    assert [m.worst for m in per_length] == sorted((m.worst for m in per_length), reverse=True)
    g = generator(seed, "test")
    for margins, length in zip(per_length, lengths):
        tokens = torch.randint(0, 20, (512, length), generator=g)
        with torch.no_grad():
            attention = model(tokens, torch.full((512,), length)).attention[:, 0]  # (B, L)
        assert float(attention[:, length - 1 - offset].min()) >= margins.bound(length) - BOUND_SLACK
    with pytest.raises(ValueError, match="span 2"):
        length_margins(model.state_dict(), model.cfg, offset, (2, 12))
    with pytest.raises(ValueError, match="at least one length"):
        length_margins(model.state_dict(), model.cfg, offset, ())


def test_margins_of_identical_tokens_follow_the_closed_form():
    # every token embeds to e_0, q = c e_0 and k = R_K e_0 on the first pair (theta_0 = 1): every logit at
    # offset delta is c cos(delta + K) / sqrt(d) whatever the tokens, so the worst case is the typical case
    d, offset, span, c = 8, 2, 16, 20.0
    model = _model(0, d=d)
    with torch.no_grad():
        model.embed.weight.zero_()
        model.embed.weight[:, 0] = 1.0
        model.W_Q.weight.zero_()
        model.W_K.weight.zero_()
        model.W_Q.weight[0, 0] = c
        model.W_K.weight[0, 0] = math.cos(offset)
        model.W_K.weight[1, 0] = math.sin(offset)
    margins = head_margins(model.state_dict(), model.cfg, offset, span)
    logit = {delta: c * math.cos(delta + offset) / math.sqrt(d) for delta in range(-(span - 1), 1)}
    expected = logit[-offset] - max(v for delta, v in logit.items() if delta != -offset)
    assert margins.worst == pytest.approx(expected, abs=1e-5)
    assert margins.typical == pytest.approx(expected, abs=1e-5)
    tokens = torch.randint(0, 20, (8, span), generator=generator(0, "test"))
    with torch.no_grad():
        a_star = float(model(tokens, torch.full((8,), span)).attention[:, 0, span - 1 - offset].mean())
    exact = 1 / sum(math.exp(v - logit[-offset]) for v in logit.values())
    assert a_star == pytest.approx(exact, abs=1e-5)
    assert margins.bound(span) <= a_star


def test_head_margins_rejects_other_heads():
    linear = OneLayerHead(ModelConfig(d=8, attention="linear"), 20, generator(0, "init"))
    with pytest.raises(ValueError, match="softmax RoPE"):
        head_margins(linear.state_dict(), linear.cfg, 2, 16)
    softmax = _model(0, d=8)
    with pytest.raises(ValueError, match="span 2"):
        head_margins(softmax.state_dict(), softmax.cfg, 2, 2)


def test_logit_profile_of_a_linear_head_and_bad_heads():
    linear = OneLayerHead(ModelConfig(d=8, attention="linear"), 20, generator(0, "init"))
    profile = head_logit_profile(linear.state_dict(), linear.cfg, 12)
    table = head_logit_table(linear.state_dict(), linear.cfg, 12)
    assert profile.shape == (12,) and table.shape == (20, 20, 12)
    torch.testing.assert_close(profile[-1], table[:, :, -1].diagonal().mean())  # delta = 0: the self-logits
    torch.testing.assert_close(profile[0], table[:, :, 0].mean())
    ape = OneLayerHead(ModelConfig(encoding="ape", d=8), 20, generator(0, "init"))
    with pytest.raises(ValueError, match="RoPE"):
        head_logit_table(ape.state_dict(), ape.cfg, 12)
    with pytest.raises(ValueError, match="head 2"):
        head_logit_table(linear.state_dict(), linear.cfg, 12, head=2)
