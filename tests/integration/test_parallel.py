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


def test_the_pool_is_kept_for_its_key_and_replaced_for_another(monkeypatch):
    monkeypatch.setattr(parallel, "_POOL", None)
    try:
        first = parallel.pool(2, 1)  # processes start on the first submit, not here
        assert parallel.pool(2, 1) is first
        second = parallel.pool(3, 1)
        assert second is not first and parallel.pool(3, 1) is second
    finally:
        parallel.shutdown()
    assert parallel._POOL is None
    parallel.shutdown()  # a no-op without a pool


def test_map_unordered_in_process_keeps_the_order_and_needs_no_pool(monkeypatch):
    monkeypatch.setattr(parallel, "pool", lambda *a: pytest.fail("one worker must not start a pool"))
    assert list(parallel.map_unordered(abs, [-3, 2, -1], workers=1, threads=1)) == [(0, 3), (1, 2), (2, 1)]
    assert list(parallel.map_unordered(abs, [-3], workers=4, threads=1)) == [(0, 3)]


@pytest.mark.slow
def test_map_unordered_in_the_pool_gives_every_result_and_raises_a_jobs_error(monkeypatch):
    monkeypatch.setattr(parallel, "_POOL", None)
    try:
        assert dict(parallel.map_unordered(abs, [-3, 2, -1, -7], workers=2, threads=1)) == {0: 3, 1: 2, 2: 1, 3: 7}
        kept = parallel._POOL[1]
        with pytest.raises(ValueError, match="invalid literal"):
            dict(parallel.map_unordered(int, ["1", "x"], workers=2, threads=1))
        assert parallel._POOL[1] is kept  # a job's exception leaves the pool usable
        assert dict(parallel.map_unordered(abs, [-5, 6], workers=2, threads=1)) == {0: 5, 1: 6}
    finally:
        parallel.shutdown()
