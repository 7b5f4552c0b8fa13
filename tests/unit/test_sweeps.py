"""The sweeps' building blocks: the paper's point is the C1 grid's spec (one cache entry), and the carrier
fraction of hand-made weights."""

from __future__ import annotations

import pytest
import torch

from lengthgen.config import ModelConfig
from lengthgen.context import Context
from lengthgen.experiments.ape_controls import ape_spec
from lengthgen.experiments.common import paper_spec
from lengthgen.experiments.sweeps import (
    PAPER_POINT,
    SWEEP,
    carrier_fractions,
    point_coordinates,
    point_label,
    sweep_spec,
)
from lengthgen.store.one_layer import train_key
from lengthgen.engine.train import Member


@pytest.mark.parametrize("factor", SWEEP)
def test_paper_point_is_the_c1_grid_model(factor):
    for offset in (2, 3):
        spec = sweep_spec(Context((), 4000), offset, factor, PAPER_POINT[factor])
        grid = paper_spec(Context((), 4000), task={"offset": offset})
        assert spec == grid and train_key(Member(spec, 0)) == train_key(Member(grid, 0))


def test_sweep_points_change_one_factor():
    assert sweep_spec(Context((), 10), 2, "width", 32).model.d == 32
    assert sweep_spec(Context((), 10), 2, "vocab", 40).task.vocab == 40
    task = sweep_spec(Context((), 10), 2, "lengths", (4, 12)).task
    assert (task.min_len, task.max_len) == (4, 12)
    assert sweep_spec(Context((), 10), 2, "temperature", 0.5).model.temperature == 0.5
    changed = sweep_spec(Context((), 10), 2, "width", 32)
    assert changed.replace(model={"d": 64}) == paper_spec(Context((), 10), task={"offset": 2})
    with pytest.raises(ValueError, match="'depth'"):
        sweep_spec(Context((), 10), 2, "depth", 2)
    with pytest.raises(ValueError, match="offset K=5"):
        sweep_spec(Context((), 10), 5, "lengths", (4, 12))
    assert [point_label(f, v) for f, v in [("width", 32), ("lengths", (8, 24)), ("temperature", 0.5)]] == [
        "d=32",
        "L in [8,24]",
        "tau=0.5",
    ]
    assert [point_coordinates(f, v) for f, v in [("width", 32), ("lengths", (8, 24)), ("temperature", 0.5)]] == [
        {"width": 32},
        {"min_len": 8, "max_len": 24},
        {"temperature": 0.5},
    ]
    with pytest.raises(ValueError, match="'depth'"):
        point_coordinates("depth", 2)


def test_zero_weight_decay_is_the_c1_grid_ape_model():
    assert ape_spec(Context((), 4000), 2, 0.0) == paper_spec(
        Context((), 4000), model={"encoding": "ape"}, task={"offset": 2}
    )
    assert ape_spec(Context((), 4000), 2, 1e-4).train.weight_decay == 1e-4


def test_carrier_fractions_of_hand_made_weights():
    cfg = ModelConfig(encoding="rope", d=4)
    m = 6
    shared = torch.tensor([1.0, 0.0, 0.0, 0.0])
    # every token embeds to the same vector: queries and keys are pure carriers (fraction 1)
    state = {"embed.weight": shared.expand(m, 4).clone(), "W_Q.weight": torch.eye(4), "W_K.weight": torch.eye(4)}
    fractions = carrier_fractions(state, cfg)
    assert (fractions.query, fractions.key) == pytest.approx((1.0, 1.0))
    # embeddings +e and -e cancel: zero carrier; half of the key projection reads a shared direction
    signs = torch.tensor([1.0, -1.0] * 3)[:, None]
    embed = signs * torch.tensor([0.0, 1.0, 0.0, 0.0]) + torch.tensor([0.0, 0.0, 1.0, 0.0])  # (m, 4): (0, +-1, 1, 0)
    w_q = torch.diag(torch.tensor([0.0, 1.0, 0.0, 0.0]))  # reads only the cancelling coordinate
    w_k = torch.eye(4)  # reads both: mean (0, 0, 1, 0), each row norm^2 = 2 -> fraction 1/2
    fractions = carrier_fractions({"embed.weight": embed, "W_Q.weight": w_q, "W_K.weight": w_k}, cfg)
    assert (fractions.query, fractions.key) == pytest.approx((0.0, 0.5))
