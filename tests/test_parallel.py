"""train_passes: passes in parallel processes give the numbers of one process bit for bit, and the
processes train on the driver's device and thread count (a spawned process starts on the CPU)."""

from __future__ import annotations

import pytest
import torch

from lengthgen.engine import parallel
from lengthgen.device import get_device
from lengthgen.engine.parallel import train_passes
from lengthgen.engine.train import Member

from tests.helpers import tiny_spec


def passes() -> list[list[Member]]:
    return [[Member(tiny_spec(encoding, steps=20), seed) for seed in (0, 1)] for encoding in ("rope", "ape")]


@pytest.mark.slow
def test_two_processes_train_the_numbers_of_one():
    alone = dict(train_passes(passes(), workers=1))
    spread = dict(train_passes(passes(), workers=2, threads=1))
    assert sorted(spread) == sorted(alone) == [0, 1]
    for index, models in alone.items():
        for a, b in zip(models, spread[index]):
            assert all(torch.equal(a.state[n], b.state[n]) for n in a.state)
            assert a.trajectory == b.trajectory


def test_worker_processes_take_the_drivers_device_and_threads(monkeypatch):
    seen = {}
    monkeypatch.setattr("lengthgen.device.set_device", lambda name: seen.setdefault("device", name))
    monkeypatch.setattr(torch, "set_num_threads", lambda n: seen.setdefault("threads", n))
    parallel._init_worker(3, "cuda")
    assert seen == {"device": "cuda", "threads": 3}
    assert get_device().type == "cpu"  # this process untouched (set_device was replaced)


def test_a_cluster_needs_the_payload(monkeypatch):
    monkeypatch.setattr("lengthgen.engine.cluster.active", lambda: True)
    with pytest.raises(ValueError, match="payload"):
        next(train_passes(passes()))
