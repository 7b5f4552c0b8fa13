"""The ensemble engine: seed s gives the same model alone or beside other seeds and offsets; reruns
give the same numbers; the trajectory is recorded."""

from __future__ import annotations

import pytest
import torch

from lengthgen.engine.grouping import fill_workers, group_members
from lengthgen.engine.train import Member, train_members

from tests.helpers import tiny_spec

# Members never mix, but a batched matmul over S members may block its loops differently from S = 1,
# so results may differ in the last float32 bits; over 60 Adam steps these stay far below this.
ENSEMBLE_ATOL = 1e-5


def _assert_same_state(a, b, atol):
    assert a.keys() == b.keys()
    for name in a:
        torch.testing.assert_close(a[name], b[name], atol=atol, rtol=0, msg=lambda m: f"{name}: {m}")


@pytest.mark.parametrize("encoding", ["rope", "ape"])
def test_member_trained_alone_equals_member_in_ensemble(encoding):
    spec = tiny_spec(encoding, steps=60)
    alone = train_members([Member(spec, 3)])[0]
    together = train_members(
        [
            Member(spec.replace(task={"offset": 1}), 0),
            Member(spec, 3),
            Member(spec.replace(task={"offset": 3}), 5),
            Member(spec, 7),
        ]
    )[1]
    assert together.seed == 3 and together.spec == spec
    _assert_same_state(alone.state, together.state, ENSEMBLE_ATOL)
    assert alone.trajectory["loss"] == pytest.approx(together.trajectory["loss"], abs=1e-5)


def test_same_seed_same_numbers_on_rerun():
    spec = tiny_spec("rope", steps=30)
    first, second = (train_members([Member(spec, 2), Member(spec, 4)]) for _ in range(2))
    for a, b in zip(first, second):
        _assert_same_state(a.state, b.state, atol=0)


@pytest.mark.slow
def test_different_seeds_differ_and_training_learns():
    spec = tiny_spec("rope", steps=250, d=64)
    a, b = train_members([Member(spec, 0), Member(spec, 1)])
    assert not torch.equal(a.state["W_Q.weight"], b.state["W_Q.weight"])
    for model in (a, b):
        losses = model.trajectory["loss"]  # losses[0] is the record at step 0 (no steps yet)
        assert losses[-1] < 0.5 * losses[1], f"loss did not fall: {losses[1]:.3f} -> {losses[-1]:.3f}"


def test_trajectory_records_every_period():
    spec = tiny_spec("rope", steps=25)  # record_every=10
    model = train_members([Member(spec, 0)])[0]
    assert model.trajectory["step"] == [0, 10, 20, 25]
    for name in ("loss", "query_carrier", "key_carrier", "rank_energy"):
        assert len(model.trajectory[name]) == 4, name
    assert all(0 <= row[0] <= 1 for row in model.trajectory["rank_energy"])


def test_untrained_positions_keep_their_initial_values():
    spec = tiny_spec("ape", steps=20)
    model = train_members([Member(spec, 0)])[0]
    initial = model.initial_module().encoding.pos.weight
    trained = model.state["encoding.pos.weight"]
    assert torch.equal(trained[spec.task.max_len :], initial[spec.task.max_len :])
    assert not torch.equal(trained[: spec.task.max_len], initial[: spec.task.max_len])


def test_grouping_by_signature():
    rope, ape = tiny_spec("rope"), tiny_spec("ape")
    members = [Member(rope, 0), Member(ape, 0), Member(rope.replace(task={"offset": 3}), 1), Member(rope, 2)]
    groups = group_members(members, max_members=2)
    assert [len(g) for g in groups] == [2, 1, 1]  # 3 rope members in two passes, 1 ape
    assert all(len({m.spec.model for m in g}) == 1 for g in groups)


def test_fewer_passes_than_processes_are_split_largest_first():
    rope, ape = tiny_spec("rope"), tiny_spec("ape")
    passes = [[Member(rope, s) for s in range(5)], [Member(ape, 0)]]
    split = fill_workers(passes, 4)
    assert [[m.seed for m in g] for g in split] == [[0, 1], [2], [3, 4], [0]]  # 5 -> 3 + 2 -> (2 + 1) + 2
    assert fill_workers(passes, 2) == passes and fill_workers(passes, 1) == passes  # enough passes already
    assert [len(g) for g in fill_workers([[Member(ape, 0)]], 4)] == [1]  # one member cannot be split
    assert fill_workers([], 2) == []


def test_mixed_signatures_rejected():
    with pytest.raises(ValueError, match="cannot share an ensemble"):
        train_members([Member(tiny_spec("rope"), 0), Member(tiny_spec("ape"), 1)])


def test_negative_seed_rejected():
    with pytest.raises(ValueError, match="seed -1"):
        Member(tiny_spec(), -1)
    with pytest.raises(ValueError, match="seed True"):  # a bool is an int to Python, not a seed
        Member(tiny_spec(), True)
