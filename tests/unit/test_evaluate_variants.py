"""The inference-time evaluation variants (P4, P6): factor 1 is the plain evaluation bit for bit; the fast
variant forward agrees with a plain per-position reference at fractional positions and scaled logits;
the variant evaluations are cached under their own keys."""

from __future__ import annotations

import math

import pytest
import torch

from lengthgen.store.cache import Cache
from lengthgen.config import EvalConfig
from lengthgen.engine.evaluate import eval_draw, evaluate_models
from lengthgen.engine.evaluate_variants import (
    InferenceVariant,
    evaluate_variant,
    reference_forward,
    variant_forward,
)
from lengthgen.store.one_layer import evaluated, evaluated_variant
from lengthgen.tasks import make_task
from lengthgen.engine.train import Member, train_members
from tests.helpers import tiny_spec

# float32: the table path and the per-position reference sum the same products in a different order
VALUE_ATOL = 2e-5  # logits / attention of order 1-10
EVALUATION = EvalConfig(lengths=(12, 20, 40), sequences=96)


def _models(encoding: str, **model):
    return train_members([Member(tiny_spec(encoding, steps=10, **model), seed) for seed in (0, 1)])


@pytest.mark.parametrize("encoding", ["rope", "ape", "nope"])
@pytest.mark.parametrize("kind", ["plain", "interpolate", "log-scale"])
def test_factor_one_is_the_plain_evaluation_bit_for_bit(encoding, kind):
    """At L <= Lmax every factor is 1 (and the plain kind is 1 everywhere): identical LengthEvals."""
    models = _models(encoding)
    evaluation = EvalConfig(lengths=(12, 16, 40) if kind == "plain" else (10, 16), sequences=96)
    assert evaluate_variant(models, evaluation, InferenceVariant(kind)) == evaluate_models(models, evaluation)


def test_scaled_forward_with_factors_one_equals_the_plain_forward_bit_for_bit():
    """Forcing the interpolation path with factor 1.0 (and scale 1.0) gives the plain logits exactly."""
    from lengthgen.engine.evaluate_variants import _rope_scores
    from lengthgen.models import table_forward
    from lengthgen.models.one_layer.fast import project
    from lengthgen.models.one_layer.fast.rope import RoPEFast

    models = _models("rope")
    cfg = models[0].spec.model
    p = {name: torch.stack([m.state[name] for m in models]) for name in models[0].state}
    tokens, lengths = eval_draw(make_task(models[0].spec.task), EVALUATION, 40)
    q_tab = project(p["embed.weight"], p["W_Q.weight"] / math.sqrt(cfg.head_dim), cfg.heads)
    k_tab = project(p["embed.weight"], p["W_K.weight"], cfg.heads)
    plain = RoPEFast.table_scores(p, cfg, q_tab, k_tab, tokens[None], lengths[None])
    assert torch.equal(_rope_scores(cfg, q_tab, k_tab, tokens[None], 1.0), plain)
    out = variant_forward(p, cfg, tokens[None], lengths[None], 1.0, 1.0)
    ref = table_forward(p, cfg, tokens[None], lengths[None])
    assert torch.equal(out.logits, ref.logits) and torch.equal(out.attention, ref.attention)


@pytest.mark.parametrize(
    "encoding, position_scale, logit_scale",
    [
        ("rope", 0.5, 1.0),
        ("rope", 16 / 48, 1.0),
        ("rope", 1.0, 1.75),
        ("rope", 0.4, 1.3),
        ("ape", 1.0, 1.5),
        ("nope", 1.0, 0.7),
    ],
)
def test_variant_forward_matches_the_plain_reference(encoding, position_scale, logit_scale):
    models = _models(encoding)
    cfg = models[0].spec.model
    p = {name: torch.stack([m.state[name] for m in models]) for name in models[0].state}
    tokens, lengths = eval_draw(make_task(models[0].spec.task), EVALUATION, 40)
    fast = variant_forward(p, cfg, tokens[None], lengths[None], position_scale, logit_scale)
    for i, model in enumerate(models):
        logits, attention = reference_forward(model, tokens, lengths, position_scale, logit_scale)
        torch.testing.assert_close(fast.logits[i], logits, atol=VALUE_ATOL, rtol=0)
        torch.testing.assert_close(fast.attention[i], attention.transpose(0, 1), atol=VALUE_ATOL, rtol=0)  # (H, B, P)


def test_reference_with_factors_one_is_the_module_forward():
    models = _models("rope")
    tokens, lengths = eval_draw(make_task(models[0].spec.task), EVALUATION, 20)
    logits, attention = reference_forward(models[0], tokens, lengths)
    out = models[0].module()(tokens, lengths)
    torch.testing.assert_close(logits, out.logits, atol=1e-6, rtol=0)
    torch.testing.assert_close(attention, out.attention, atol=1e-6, rtol=0)


def test_factors():
    interpolate, scaled, inverse = (InferenceVariant(k) for k in ("interpolate", "log-scale", "inverse-log-scale"))
    assert interpolate.position_scale(32) == 0.5 and interpolate.position_scale(16) == 1.0
    assert interpolate.logit_scale(128) == 1.0 and scaled.position_scale(128) == 1.0
    assert scaled.logit_scale(16) == 1.0 and scaled.logit_scale(256) == pytest.approx(2.0)
    assert inverse.logit_scale(256) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="'stretch'"):
        InferenceVariant("stretch")
    with pytest.raises(ValueError, match="max_len=1"):
        InferenceVariant("plain", max_len=1)


def test_interpolation_is_refused_for_ape():
    models = _models("ape")
    cfg = models[0].spec.model
    p = {name: torch.stack([m.state[name] for m in models]) for name in models[0].state}
    tokens, lengths = eval_draw(make_task(models[0].spec.task), EVALUATION, 20)
    with pytest.raises(ValueError, match="RoPE only"):
        variant_forward(p, cfg, tokens[None], lengths[None], 0.5, 1.0)


def test_variant_evaluations_are_cached_apart_from_the_plain_ones(tmp_path):
    cache = Cache(tmp_path)
    models = _models("rope")
    plain = evaluated(models, EVALUATION, cache)
    scaled = evaluated_variant(models, EVALUATION, cache, InferenceVariant("log-scale"))
    assert scaled == evaluate_variant(models, EVALUATION, InferenceVariant("log-scale"))
    assert scaled[0][0] == plain[0][0] and scaled[0][2] != plain[0][2]  # L = 12 unscaled, L = 40 scaled
    again = evaluated_variant(models, EVALUATION, cache, InferenceVariant("log-scale"))
    assert again == scaled
    assert evaluated(models, EVALUATION, cache) == plain
